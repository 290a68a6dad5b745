"""tracegrad: composable function transformations (grad, jvp, vjp, Jacobians) for NumPy code.

>>> import tracegrad as tg
>>> import tracegrad.numpy as tnp
>>> float(tg.grad(lambda x: tnp.sum(tnp.sin(x) * x))(1.0))  # sin(1) + cos(1)
1.3817732906760363

The package is layered: :mod:`tracegrad.transforms` (what users call) runs
functions under :mod:`tracegrad.interpreters` (how values flow), which apply
the rules of :mod:`tracegrad.primitives` (what the math is).
"""
import importlib.util as _importlib_util

if _importlib_util.find_spec(f"{__name__}.primitives") is None:
    # The source folders transforms/, primitives/ and interpreters/ become
    # subpackages of tracegrad only when installed (pyproject's package-dir).
    raise ImportError(
        "tracegrad is being imported from its source folder without being installed, so its "
        "subpackages (tracegrad.primitives, tracegrad.interpreters, tracegrad.transforms) are "
        "missing. Run `pip install -e .` in the repository (see the README, Set-up), then "
        "import tracegrad from anywhere."
    )

from . import _allocator
from . import primitives as _primitives  # noqa: F401  (declares every primitive)
from . import numpy  # noqa: F401  (installs tracer operators and NumPy dispatch)
from . import errors, tree, tree_util
from ._array import Array
from .core import UnexpectedTracerError
from .transforms import (
    ShapeDtypeStruct,
    checkpoint,
    custom_jvp,
    custom_vjp,
    eval_shape,
    float0,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jit,
    jvp,
    make_jaxpr,
    stop_gradient,
    value_and_grad,
    remat,
    vjp,
    vmap,
)
from .transforms.linearize import linear_transpose, linearize
from . import lax, nn, random, scipy, viz  # noqa: F401  (light: each loads in a few ms, so not lazily)

_allocator.tune()  # large arrays reuse freed memory; TRACEGRAD_MALLOC_TUNING=0 opts out

__version__ = "0.1.0"

__all__ = [
    "grad",
    "value_and_grad",
    "vjp",
    "jvp",
    "jacfwd",
    "jacrev",
    "jacobian",
    "hessian",
    "stop_gradient",
    "vmap",
    "hvp",
    "custom_jvp",
    "custom_vjp",
    "checkpoint",
    "remat",
    "tree",
    "tree_util",
    "test_util",
    "numpy",
    "nn",
    "scipy",
    "lax",
    "random",
    "viz",
    "UnexpectedTracerError",
    "float0",
    "make_jaxpr",
    "linearize",
    "linear_transpose",
    "jit",
    "eval_shape",
    "ShapeDtypeStruct",
    "errors",
    "Array",
]


def __getattr__(name):
    """``tracegrad.test_util``, imported on first use."""
    if name == "test_util":
        # Not `from . import test_util`: that asks this hook for the attribute first.
        # lazy: test_util loads numpy.testing (~50 ms, a third of `import tracegrad`)
        import tracegrad.test_util as test_util

        return test_util
    raise AttributeError(f"module 'tracegrad' has no attribute {name!r}")
