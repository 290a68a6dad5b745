"""The two flat namespaces, ``tracegrad.primitives.ops`` and ``tracegrad.numpy``,
import every public name explicitly from the module that defines it.

Both used to be filled by a loop over their submodules' ``__all__`` (which
also refused a name defined twice).  Now they are written out by hand, so
these checks keep them complete: each namespace's ``__all__`` must be
exactly the union of its submodules' ``__all__``, no name may come from two
submodules, and every name must be the submodule's own object.
"""
import ast
import importlib
import inspect
import pathlib

import pytest

import tracegrad.numpy as tnp
from tracegrad.primitives import ops

PRIMITIVE_MODULES = ["structural", "elementwise", "elementwise_fused", "reductions", "indexing", "linalg",
                     "fft", "nn", "random", "special",
                     "bessel",  # Bessel functions (primitives/bessel.py)
                     "conv"]  # sliding windows: im2col, col2im (primitives/conv.py)
NUMPY_MODULES = [
    "_core", "_elementwise", "_reductions", "_shape", "_join", "_flip_pad", "_diagonal",
    "_selection", "_indexing", "_products", "_math", "_nan", "_statistics", "_index_tricks",
    "_sets", "_arrange", "_signal", "_polynomial",
]
CASES = [
    (ops, "tracegrad.primitives", PRIMITIVE_MODULES, set()),
    (tnp, "tracegrad.numpy", NUMPY_MODULES, {"linalg", "fft"}),
]


def _exports(package, names):
    """``{public name: [submodule, ...]}`` over the submodules' ``__all__``."""
    out = {}
    for name in names:
        mod = importlib.import_module(f"{package}.{name}")
        for attr in mod.__all__:
            out.setdefault(attr, []).append(mod)
    return out


@pytest.mark.parametrize("namespace, package, submodules, extra", CASES,
                         ids=["ops", "tracegrad.numpy"])
def test_namespace_lists_every_submodule_name_once(namespace, package, submodules, extra):
    exports = _exports(package, submodules)
    twice = {n: [m.__name__ for m in ms] for n, ms in exports.items() if len(ms) > 1}
    assert not twice, f"exported by more than one submodule: {twice}"
    missing = set(exports) - set(namespace.__all__)
    assert not missing, f"{namespace.__name__} misses {sorted(missing)}: add them to its imports"
    unknown = set(namespace.__all__) - set(exports) - extra
    assert not unknown, f"{namespace.__name__}.__all__ lists {sorted(unknown)}, defined nowhere"
    assert len(namespace.__all__) == len(set(namespace.__all__))
    assert namespace.__all__ == sorted(namespace.__all__, key=lambda s: (s.lower(), s))
    for name, (mod,) in exports.items():
        assert getattr(namespace, name) is getattr(mod, name), name


@pytest.mark.parametrize("namespace, package, submodules, extra", CASES,
                         ids=["ops", "tracegrad.numpy"])
def test_names_are_imported_statically(namespace, package, submodules, extra):
    """Every public name appears in an ``import`` statement of the namespace's
    source (no loops, ``setattr`` or ``globals()``), so grep and editors find it."""
    tree = ast.parse(pathlib.Path(inspect.getfile(namespace)).read_text())
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
    for name in namespace.__all__:
        assert name in imported, f"{namespace.__name__}.{name} is not imported by name"
    exports = _exports(package, submodules)
    for name, (mod,) in exports.items():
        assert package + "." + imported[name] == mod.__name__, name
    calls = {n.func.id for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not calls & {"setattr", "globals", "__import__"}, calls
