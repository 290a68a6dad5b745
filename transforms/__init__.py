"""Public transforms (grad, vjp, jvp, Jacobians, vmap, custom derivatives,
checkpoint); pytrees are handled here.

Modules: :mod:`.api` (grad, vjp, jvp, the Jacobians, and :func:`record_vjp`,
reverse mode's entry point for tools that read the recorded graph),
:mod:`.batching` (vmap), :mod:`.custom_derivatives` (custom_jvp,
custom_vjp), :mod:`.checkpointing` (checkpoint/remat) and :mod:`.call`
(what those call primitives share), :mod:`.staging` (make_jaxpr,
eval_shape: the typed IR), :mod:`.jit` (jit: the staged program, run by a
generated driver).
"""
if __name__ != "tracegrad.transforms":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'transforms' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.transforms."
    )
from .api import (
    VJPRecord,
    float0,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    record_vjp,
    stop_gradient,
    value_and_grad,
    vjp,
)
from .batching import vmap
from .custom_derivatives import custom_jvp, custom_vjp
from .checkpointing import checkpoint, remat
from .staging import ShapeDtypeStruct, eval_shape, make_jaxpr
from .jit import jit

__all__ = ["stop_gradient", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "vmap",
           "custom_jvp", "custom_vjp", "checkpoint", "remat", "record_vjp", "VJPRecord", "float0",
           "make_jaxpr", "eval_shape", "ShapeDtypeStruct", "jit"]
