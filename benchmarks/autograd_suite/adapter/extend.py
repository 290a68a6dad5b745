"""autograd.extend on tracegrad (see :mod:`core`)."""
from .core import (defjvp, defjvp_argnum, defvjp, defvjp_argnum, defvjp_argnums, primitive,  # noqa: F401
                   vspace, VSpace)


def notrace_primitive(fun):
    return fun


class SparseObject:  # imported by a few autograd modules; unused here
    pass
