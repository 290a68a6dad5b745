"""autograd.scipy -> tracegrad.scipy."""
from . import integrate, linalg, signal, special, stats  # noqa: F401
