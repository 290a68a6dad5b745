"""examples/digits_torch.py: trains to >= 0.95 test accuracy, and is a PyTorch script.

The example runs as a user would, in a fresh Python process from a directory
outside the repository, and the accuracy it prints is read back.  Its source
must differ from a script for real PyTorch only in the import line:
``import tracegrad.torch as torch`` replaced by ``import torch`` gives a
script that PyTorch runs and trains (checked when PyTorch is installed, for
2 epochs to keep the run short; the model and data it prints are the same
text).
"""
import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("sklearn") is None:  # found without importing it (slow)
    pytest.skip("the digits example needs scikit-learn", allow_module_level=True)

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "digits_torch.py"
IMPORT = "import tracegrad.torch as torch"


def _run(script, cwd, *args):
    # one thread: PyTorch's thread pool only costs time on a busy 2-core machine
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=env)
    output = proc.stdout + proc.stderr
    found = re.findall(r"final test accuracy: ([0-9.]+)", proc.stdout)
    assert found, output
    return proc, float(found[-1]), output


def _header(stdout):
    """What the script prints before training: the data sizes and the model."""
    return stdout.split("\nepoch")[0]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    """The example's run on tracegrad (once for the module)."""
    return _run(EXAMPLE, tmp_path_factory.mktemp("digits_torch"))


def test_digits_torch_example_reaches_target_accuracy(example_run):
    proc, accuracy, output = example_run
    assert proc.returncode == 0, output
    assert accuracy >= 0.95, output
    assert _header(proc.stdout).endswith(
        "4810 parameters\nSequential(\n"
        "  (0): Linear(in_features=64, out_features=64, bias=True)\n  (1): Tanh()\n"
        "  (2): Linear(in_features=64, out_features=10, bias=True)\n)"), output


def test_only_the_import_line_names_tracegrad():
    source = EXAMPLE.read_text()
    assert source.splitlines().count(IMPORT) == 1
    tree = ast.parse(source)
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    tracegrad_imports = [
        node for node in imports
        if any(alias.name.split(".")[0] == "tracegrad" for alias in node.names)
        or (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tracegrad"))
    ]
    assert [ast.unparse(node) for node in tracegrad_imports] == [IMPORT]
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert "tracegrad" not in names | attributes


def test_the_same_script_trains_under_pytorch(tmp_path, example_run):
    if importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed")
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    ported = [("import torch\n" if line.rstrip("\n") == IMPORT else line) for line in lines]
    assert [(a, b) for a, b in zip(lines, ported) if a != b] == [(IMPORT + "\n", "import torch\n")]
    script = tmp_path / "digits_pytorch.py"
    script.write_text("".join(ported))
    proc, accuracy, output = _run(script, tmp_path, "--epochs", "2")
    # two epochs reach about 0.96; the check is that PyTorch trains the same model
    assert "Traceback" not in proc.stderr and accuracy >= 0.9, output
    assert _header(proc.stdout) == _header(example_run[0].stdout)
