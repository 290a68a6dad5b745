"""``tracegrad.torch.utils``: PyTorch's utilities; only :mod:`.data` (data loading) so far."""
from . import data  # noqa: F401

__all__ = ["data"]
