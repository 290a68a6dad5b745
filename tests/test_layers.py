"""The layer contract: every import points down.

The layers, top to bottom, are declared once, in ``pyproject.toml``
(``[tool.importlinter]``), and described in the README ("How it is built"):
``tracegrad.torch``; the NumPy-style face (``numpy``, ``nn``, ``test_util``,
``viz``); ``transforms``; ``interpreters``; ``primitives``; the core
(``core``, ``tree_util``, ``_allocator``).  import-linter checks the
contract over every import statement, function-local ones included.

Why a copy of the sources: import-linter (through grimp) finds a package's
modules by walking the folder of its ``__init__.py``, so it cannot follow
the ``package-dir`` mapping that installs the repository's top-level folders
``transforms/``, ``primitives/`` and ``interpreters/`` as subpackages of
``tracegrad``.  The test therefore copies the sources into a scratch folder
laid out as they are installed (``tracegrad/transforms/...``) and runs
``lint-imports`` there with the repository's own configuration.  A second
test plants upward imports in such a copy and checks that the contract
fails, so the check is known to bite.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

pytest.importorskip("importlinter", reason="import-linter is a test dependency (pip install -e '.[test]')")
tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

REPO = pathlib.Path(__file__).resolve().parents[1]


def _package_dirs():
    """``{package: folder}`` of the installed layout, from pyproject.toml."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    return config["tool"]["setuptools"]["package-dir"]


def installed_layout(dest):
    """Copy the package sources to ``dest`` as they are installed; return the root."""
    root = pathlib.Path(dest) / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    # The deepest packages last, so each lands inside its parent's copy.
    for package, folder in sorted(_package_dirs().items(), key=lambda kv: kv[0].count(".")):
        shutil.copytree(REPO / folder, root.joinpath(*package.split(".")), ignore=ignore,
                        dirs_exist_ok=True)
    # lint-imports reads the contract from the pyproject.toml of its working directory.
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def lint_imports(root):
    """Run ``lint-imports`` in the copy at ``root``; return the completed process."""
    exe = pathlib.Path(sysconfig.get_path("scripts")) / "lint-imports"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(root)
    return subprocess.run(
        cmd + ["--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )


def test_every_import_points_down(tmp_path):
    proc = lint_imports(installed_layout(tmp_path))
    assert proc.returncode == 0, (
        "an import breaks the layer contract (pyproject.toml [tool.importlinter]; "
        "README 'How it is built'):\n" + proc.stdout + proc.stderr
    )
    assert "1 kept, 0 broken" in proc.stdout, proc.stdout


@pytest.mark.parametrize(
    "module, planted",
    [
        # A module-level upward import: the core reaching up to the NumPy face.
        ("core.py", "from . import numpy as _planted\n"),
        # A function-local one: a primitive module reaching up to transforms.
        ("primitives/core.py", "def _planted():\n    from ..transforms import grad\n    return grad\n"),
        # The PyTorch layer is the top: nothing below may import it.
        ("transforms/api.py", "def _planted():\n    import tracegrad.torch\n    return tracegrad.torch\n"),
    ],
)
def test_an_upward_import_breaks_the_contract(tmp_path, module, planted):
    root = installed_layout(tmp_path)
    target = root / "tracegrad" / module
    target.write_text(target.read_text() + "\n\n" + planted)
    proc = lint_imports(root)
    assert proc.returncode != 0, f"planting an upward import in {module} went unnoticed:\n{proc.stdout}"
    assert "0 kept, 1 broken" in proc.stdout, proc.stdout
