"""Numba kernel machinery: lazy, cached, float32/float64 only.

``@kernel`` wraps a plain Python function (defined at module top level, so
Numba's on-disk cache can find it) in a :class:`Kernel` that imports Numba and
compiles only on its first call.  A process that never calls a kernel never
imports Numba, and the first gradient compiles (or loads from the cache) only
the kernels it runs.  Callers pass C-contiguous float32/float64 arrays of a
fixed rank, which keeps each kernel to at most two signatures.

Kernels that share Numba-level helpers (``inline`` functions, intrinsics)
live in modules that import Numba at their top, named ``_*_kernels.py``;
the primitive modules import those lazily, after :func:`ensure_numba`.

Numba's own fixed cost is paid once per process by :func:`ensure_numba`:
importing it and loading its compiler's registries (0.3 s and 0.6 s here,
most of it imports).  The cyclic garbage collector is paused meanwhile
(those imports create hundreds of thousands of objects), and at exit the
collector is frozen: otherwise the interpreter's final collection walks
Numba's object graph for another 0.3 s.  CPython does not promise to run
finalizers of objects alive at exit, so freezing only skips work it may skip.
"""
import atexit
import gc

import numpy as np

__all__ = ["kernel", "Kernel", "as_float_contiguous", "ensure_numba", "FLOAT_DTYPES"]

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

_numba = None


def _warmup(n):
    return n + 1


def ensure_numba():
    """Import Numba and initialize its compiler once; return the module."""
    global _numba
    if _numba is None:
        enabled = gc.isenabled()
        gc.disable()
        try:
            import numba  # lazy: about 1 s to import; a process that runs no kernel never pays it

            # The first dispatch (here of a tiny cached function) loads the
            # compiler's registries; do it while the collector is paused.
            numba.njit(cache=True)(_warmup)(1)
        finally:
            if enabled:
                gc.enable()
        atexit.register(gc.freeze)
        _numba = numba
    return _numba




class Kernel:
    """A Numba kernel compiled on first call (``cache=True``, ``nogil=True``).

    Parameters
    ----------
    pyfunc : callable
        Top-level Python function written in Numba's nopython subset.
    parallel : bool
        Compile with ``parallel=True`` (use ``numba.prange`` in ``pyfunc``).
    """

    def __init__(self, pyfunc, parallel=False):
        self.pyfunc = pyfunc
        self.parallel = parallel
        self._jit = None
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__

    @property
    def compiled(self):
        """The Numba dispatcher, or None if never called in this process."""
        return self._jit

    def __call__(self, *args):
        jit = self._jit
        if jit is None:
            numba = ensure_numba()
            jit = self._jit = numba.njit(
                cache=True, nogil=True, parallel=self.parallel, error_model="numpy"
            )(self.pyfunc)
        return jit(*args)


def kernel(fn=None, *, parallel=False):
    """Decorator: ``@kernel`` or ``@kernel(parallel=True)``."""
    if fn is None:
        return lambda f: Kernel(f, parallel=parallel)
    return Kernel(fn, parallel=parallel)


def as_float_contiguous(x, dtype):
    """``x`` as a C-contiguous array of ``dtype`` (no copy when it already is)."""
    return np.ascontiguousarray(x, dtype=dtype)
