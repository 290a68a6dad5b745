"""examples/cnn_digits.py: a CNN trains to >= 0.97 test accuracy, and is a PyTorch script.

The example runs as a user would, in a fresh Python process from a directory
outside the repository, and the accuracy it prints is read back.  Its source
must differ from a script for real PyTorch only in the import line; with
``import torch`` in its place PyTorch runs it (checked when PyTorch is
installed): it loads the ``state_dict`` tracegrad trained and saved and
reports the same test accuracy, and tracegrad loads one PyTorch trained
(for 2 epochs, to keep the run short) and reports PyTorch's accuracy.  The
same weights make the same predictions in both libraries.
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

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cnn_digits.py"
IMPORT = "import tracegrad.torch as torch"
MODEL = (
    "6186 parameters\nSequential(\n"
    "  (0): Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
    "  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, bias=True, "
    "track_running_stats=True)\n"
    "  (2): ReLU()\n"
    "  (3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
    "  (4): Conv2d(16, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
    "  (5): BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=True, bias=True, "
    "track_running_stats=True)\n"
    "  (6): ReLU()\n"
    "  (7): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
    "  (8): Flatten(start_dim=1, end_dim=-1)\n"
    "  (9): Dropout(p=0.25, inplace=False)\n"
    "  (10): Linear(in_features=128, out_features=10, bias=True)\n)"
)


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
    """What the script prints before training or loading: the data sizes and the model."""
    return re.split(r"\n(?:epoch|loaded )", stdout)[0]


def _pytorch_script(tmp_path):
    """The example with ``import torch`` for its import line, in ``tmp_path``."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed")
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    ported = [("import torch\n" if line.rstrip("\n") == IMPORT else line) for line in lines]
    assert [(a, b) for a, b in zip(lines, ported) if a != b] == [(IMPORT + "\n", "import torch\n")]
    script = tmp_path / "cnn_digits_pytorch.py"
    script.write_text("".join(ported))
    return script


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    """The example's training run on tracegrad (once for the module), and its directory."""
    cwd = tmp_path_factory.mktemp("cnn_digits")
    return _run(EXAMPLE, cwd), cwd


def test_cnn_digits_example_reaches_target_accuracy(example_run):
    (proc, accuracy, output), cwd = example_run
    assert proc.returncode == 0, output
    assert accuracy >= 0.97, output
    assert _header(proc.stdout).endswith(MODEL), output
    assert len(re.findall(r"^epoch +\d+ +loss [0-9.]+ ", proc.stdout, re.M)) == 8, output
    # saved where --save says by default: cnn_digits.pt in the working directory
    assert (cwd / "cnn_digits.pt").stat().st_size > 4 * 6186, output


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


def test_pytorch_loads_the_weights_tracegrad_saved(tmp_path, example_run):
    (trained, accuracy, _), cwd = example_run
    script = _pytorch_script(tmp_path)
    proc, loaded_accuracy, output = _run(script, tmp_path, "--load", str(cwd / "cnn_digits.pt"))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, output
    assert "\nepoch" not in proc.stdout, output  # evaluated only
    assert loaded_accuracy == accuracy, output
    assert _header(proc.stdout) == _header(trained.stdout)


def test_tracegrad_loads_the_weights_pytorch_saved(tmp_path):
    script = _pytorch_script(tmp_path)
    saved = tmp_path / "pytorch.pt"
    trained, accuracy, output = _run(script, tmp_path, "--epochs", "2", "--save", str(saved))
    # two epochs reach about 0.97 (the exit status says whether they passed 0.97)
    assert "Traceback" not in trained.stderr and accuracy >= 0.9 and saved.exists(), output
    proc, loaded_accuracy, output = _run(EXAMPLE, tmp_path, "--load", str(saved))
    assert "Traceback" not in proc.stderr and "\nepoch" not in proc.stdout, output
    assert loaded_accuracy == accuracy, output
