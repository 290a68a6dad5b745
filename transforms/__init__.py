"""Public transforms (grad, vjp, jvp, Jacobians); pytrees are handled here."""
if __name__ != "tracegrad.transforms":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'transforms' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.transforms."
    )
from .api import (
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    stop_gradient,
    value_and_grad,
    vjp,
)
from .batching import vmap
from .custom_derivatives import custom_jvp, custom_vjp
from .checkpointing import checkpoint, remat

__all__ = ["stop_gradient", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "vmap",
           "custom_jvp", "custom_vjp", "checkpoint", "remat"]
