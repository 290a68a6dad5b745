"""``torch.cuda`` as seen by CPU-only tracegrad: no CUDA device exists.

``is_available()`` is False and ``device_count()`` 0, so the usual
``device = "cuda" if torch.cuda.is_available() else "cpu"`` picks the CPU.
Seeding functions are accepted (there is no CUDA generator to seed).
"""

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all",
           "synchronize"]


def is_available():
    """False: tracegrad.torch runs on the CPU only."""
    return False


def device_count():
    """0: no CUDA devices."""
    return 0


def manual_seed(seed):
    """Accepted for compatibility; there is no CUDA generator."""


def manual_seed_all(seed):
    """Accepted for compatibility; there is no CUDA generator."""


def synchronize(device=None):
    """Raises: there is no CUDA device to synchronize.

    Raises
    ------
    RuntimeError
        Always (tracegrad.torch is CPU only).
    """
    raise RuntimeError("tracegrad.torch runs on the CPU only; there is no CUDA device.")
