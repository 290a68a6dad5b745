"""autograd.numpy.linalg -> tracegrad.numpy.linalg, with autograd's two
helpers its tests call (``T``, the transpose of the last two axes, and the
batched product ``_dot``)."""
import tracegrad.numpy as _tnp
import tracegrad.numpy.linalg as _m
from tracegrad.numpy.linalg import *  # noqa: F401,F403


def T(x):
    return _tnp.swapaxes(x, -1, -2)


def _dot(a, b):
    return _tnp.einsum("...ij,...jk->...ik", a, b)


def __getattr__(name):
    return getattr(_m, name)
