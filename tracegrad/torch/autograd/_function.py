"""Compatibility alias of :mod:`tracegrad.torch.autograd.function` (the implementation)."""
from .function import *  # noqa: F401,F403
from .function import __all__  # noqa: F401
