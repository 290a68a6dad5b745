"""Primitive registry: every primitive with its impl, abstract eval, JVP, VJP.

Importing this package imports :mod:`.ops`, the flat namespace of the
primitives' wrappers, which imports every module declaring primitives.
``registry`` maps names to primitives.
"""
if __name__ != "tracegrad.primitives":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'primitives' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.primitives."
    )

# ``ops`` first: it imports every primitive module, and each of them does
# ``from . import ops`` (and ``core`` does too), which then finds this
# partially initialised module; rules read ``ops.f`` only at call time.
from . import ops
from .core import Primitive, ShapedArray, registry

__all__ = ["Primitive", "ShapedArray", "registry", "ops"]
