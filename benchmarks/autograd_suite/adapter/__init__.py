"""A stand-in for HIPS autograd that runs autograd's own test suite on tracegrad.

``core``, ``numpy`` and ``scipy`` map autograd's API onto tracegrad; the
operators (``grad``, ``jacobian`` ...) are autograd's own
``differential_operators`` from the sdist, which ``run.py`` copies next to
this package, running on :func:`core.make_vjp`/:func:`core.make_jvp`.
"""
from .builtins import dict, isinstance, list, tuple, type  # noqa: F401
from .core import primitive  # noqa: F401
from .differential_operators import (  # noqa: F401
    checkpoint, deriv, elementwise_grad, grad, grad_and_aux, grad_named, hessian,
    hessian_tensor_product, hessian_vector_product, holomorphic_grad, jacobian, make_ggnvp,
    make_hvp, make_jvp, make_vjp, multigrad_dict, tensor_jacobian_product, value_and_grad,
    vector_jacobian_product)
