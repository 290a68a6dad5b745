"""Primitive registry: every primitive with its impl, abstract eval, JVP, VJP.

Importing this package declares all primitives and fills :mod:`.ops`, the
flat namespace of their wrappers.  ``registry`` maps names to primitives.
"""
if __name__ != "tracegrad.primitives":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'primitives' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.primitives."
    )

import importlib

from . import ops
from .core import Primitive, ShapedArray, registry

_MODULES = (
    "structural",
    "elementwise",
    "reductions",
    "indexing",
    "linalg",
    "nn",
)


def _load():
    for name in _MODULES:
        mod = importlib.import_module(f"{__name__}.{name}")
        for attr in mod.__all__:
            if hasattr(ops, attr):
                raise ImportError(f"primitives.{name} redefines ops.{attr}")
            setattr(ops, attr, getattr(mod, attr))


_load()

__all__ = ["Primitive", "ShapedArray", "registry", "ops"]
