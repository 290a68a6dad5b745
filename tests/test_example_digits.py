"""The main job: examples/digits.py trains to >= 0.95 test accuracy.

Runs the example as a user would, in a fresh Python process from a
directory outside the repository, and reads the accuracy it prints.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn", reason="the digits example needs scikit-learn")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "digits.py"


def test_digits_example_reaches_target_accuracy(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "check_grads: loss derivatives match" in proc.stdout, output
    found = re.findall(r"final test accuracy: ([0-9.]+)", proc.stdout)
    assert found, output
    assert float(found[-1]) >= 0.95, output


def _accuracy(tmp_path, *flags):
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--epochs", "5", *flags], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.stdout, float(re.findall(r"final test accuracy: ([0-9.]+)", proc.stdout)[-1])


def test_digits_example_with_jit_trains_the_same_model(tmp_path):
    out, jitted = _accuracy(tmp_path, "--jit")
    assert "(jit)" in out
    _, eager = _accuracy(tmp_path)
    assert jitted == eager  # the same arithmetic, in the same order
