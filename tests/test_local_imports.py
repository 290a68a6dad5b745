"""Imports live at the top of their module.

A function-local import hides a dependency from readers and from the layer
check's first glance, and usually papers over an import cycle that the
module structure should break instead.  The one accepted use is the lazy
load of an optional or heavy dependency (Numba, graphviz, SciPy,
scikit-learn, the oracles PyTorch, JAX and HIPS autograd), so that
``import tracegrad`` stays light and works without the extras; each such
import carries a comment starting ``# lazy:`` that says why, on its line or
the line above.  A lazy import of one of tracegrad's own modules is accepted
on the same terms when that module itself imports such a dependency at its
top (the Numba kernel modules), and a module-level ``__getattr__`` (PEP 562)
may load tracegrad's own submodules lazily, with the same comment.

This test scans every module of the package (the four source folders) with
``ast`` and fails, listing file and line, on any other import inside a
function or method, including ``importlib.import_module`` and
``__import__`` calls.
"""
import ast
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = ("tracegrad", "transforms", "primitives", "interpreters")

#: Top-level names that may be imported lazily (optional or heavy).
LAZY_ALLOWED = frozenset({
    "numba", "llvmlite", "graphviz", "scipy", "sklearn", "torch", "jax", "jaxlib",
    "autograd", "dask", "distributed", "tqdm",
})


#: Where each source folder installs (pyproject.toml's package-dir).
INSTALLED_AS = {"tracegrad": "tracegrad", "transforms": "tracegrad.transforms",
                "primitives": "tracegrad.primitives", "interpreters": "tracegrad.interpreters"}


def module_name(path):
    """The dotted name ``path`` installs as (``primitives/nn.py`` -> ``tracegrad.primitives.nn``)."""
    rel = path.relative_to(REPO)
    parts = [INSTALLED_AS[rel.parts[0]], *rel.parts[1:]]
    parts[-1] = parts[-1][:-3]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_file(name):
    """The source file of the dotted module ``name``, or None."""
    for folder, package in sorted(INSTALLED_AS.items(), key=lambda kv: -len(kv[1])):
        if name == package or name.startswith(package + "."):
            base = REPO.joinpath(folder, *name[len(package):].strip(".").split(".")) if name != package else REPO / folder
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate
    return None


def imports_heavy_dependency(path):
    """True if the module at ``path`` imports a :data:`LAZY_ALLOWED` package at its top."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in LAZY_ALLOWED for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in LAZY_ALLOWED:
            return True
    return False


def _relative_targets(path, node):
    """The dotted modules a relative ``from ... import`` in ``path`` may load."""
    if REPO not in path.parents:
        return []
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    base = f"{package}.{node.module}" if node.module else package
    return [base] + [f"{base}.{a.name}" for a in node.names]


def source_files():
    for folder in SOURCE_FOLDERS:
        yield from sorted((REPO / folder).rglob("*.py"))


def _import_targets(node):
    """``(top-level name or None for a relative import, description)`` pairs."""
    if isinstance(node, ast.Import):
        return [(a.name.split(".")[0], f"import {a.name}") for a in node.names]
    if isinstance(node, ast.ImportFrom):
        top = None if node.level else (node.module or "").split(".")[0]
        return [(top, f"from {'.' * node.level}{node.module or ''} import ...")]
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if name in ("import_module", "__import__"):
            arg = node.args[0] if node.args else None
            target = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            top = target.split(".")[0] if target and not target.startswith(".") else None
            return [(top, f"{name}({target!r})" if target else f"{name}(...)")]
    return []


def local_imports(path):
    """``(line, description, allowed)`` for each import inside a function of ``path``."""
    text = path.read_text()
    lines = text.splitlines()
    tree = ast.parse(text, filename=str(path))
    found = []

    def has_lazy_comment(lineno):
        here = lines[lineno - 1]
        above = lines[lineno - 2] if lineno >= 2 else ""
        return "# lazy:" in here or above.strip().startswith("# lazy:")

    def visit(node, func, top_level_getattr):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                is_getattr = (isinstance(node, ast.Module) and getattr(child, "name", "") == "__getattr__")
                visit(child, True, is_getattr or top_level_getattr)
                continue
            if func:
                for top, what in _import_targets(child):
                    lazy = has_lazy_comment(child.lineno)
                    allowed = lazy and (top in LAZY_ALLOWED or top_level_getattr)
                    if lazy and not allowed and isinstance(child, ast.ImportFrom) and child.level:
                        files = [module_file(m) for m in _relative_targets(path, child)]
                        allowed = any(f is not None and imports_heavy_dependency(f) for f in files)
                    found.append((child.lineno, what, allowed))
            visit(child, func, top_level_getattr)

    visit(tree, False, False)
    return found


def test_no_function_local_imports_except_lazy_optional_ones():
    offenders = []
    for path in source_files():
        for line, what, allowed in local_imports(path):
            if not allowed:
                offenders.append(f"{path.relative_to(REPO)}:{line}: {what}")
    assert not offenders, (
        "function-local imports (move them to the top of the module; only lazy loads of "
        "optional or heavy dependencies stay local, each with a '# lazy: why' comment):\n  "
        + "\n  ".join(offenders)
    )


@pytest.mark.parametrize(
    "source, allowed",
    [
        ("def f():\n    from . import ops\n", [False]),
        ("def f():\n    import numpy as np\n", [False]),
        ("def f():\n    import numba  # lazy: Numba is heavy\n", [True]),
        ("def f():\n    # lazy: graphviz is optional\n    import graphviz\n", [True]),
        ("def f():\n    import graphviz\n", [False]),
        ("def f():\n    from .torch import Tensor  # lazy: no reason is good enough\n", [False]),
        ("class A:\n    def m(self):\n        importlib.import_module('scipy')\n", [False]),
        ("def __getattr__(name):\n    # lazy: keeps import light\n    return importlib.import_module('.nn', __name__)\n", [True]),
        ("import numpy\nfrom . import ops\n", []),
    ],
)
def test_the_scan_itself(tmp_path, source, allowed):
    path = tmp_path / "m.py"
    path.write_text(source)
    assert [a for _, _, a in local_imports(path)] == allowed


def test_a_lazy_kernel_module_counts_as_heavy():
    # primitives/_nn_kernels.py imports Numba at its top: loading it late is the point.
    assert imports_heavy_dependency(REPO / "primitives" / "_nn_kernels.py")
    assert not imports_heavy_dependency(REPO / "primitives" / "ops.py")
    assert module_file("tracegrad.primitives._nn_kernels") == REPO / "primitives" / "_nn_kernels.py"
    assert module_name(REPO / "primitives" / "nn.py") == "tracegrad.primitives.nn"
