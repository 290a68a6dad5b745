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
import os
import threading

import numpy as np

__all__ = ["kernel", "Kernel", "as_float_contiguous", "ensure_numba", "FLOAT_DTYPES",
           "num_threads", "launch", "call_ufunc"]

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


def num_threads():
    """Threads for large kernel calls: ``TRACEGRAD_NUM_THREADS``, else the CPUs this
    process may use.

    (Not ``OMP_NUM_THREADS``: Dask's local clusters set it to 1 in the process
    that starts them, for their workers; ``tracegrad.distributed``'s tasks set
    ``TRACEGRAD_NUM_THREADS=1`` in the worker processes instead.)
    """
    env = os.environ.get("TRACEGRAD_NUM_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"TRACEGRAD_NUM_THREADS={env!r}: expected a positive integer "
                             "number of threads") from None
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def launch(kernel, inputs, out, min_size, leading=()):
    """Run ``kernel(*leading, *inputs, out)``, split over threads when large.

    ``inputs`` and ``out`` share their first axis (flat arrays, or arrays
    broadcast to one shape).  Outputs of ``min_size`` elements or more are
    cut along it into slices of at least ``min_size // 2`` elements, one per
    thread (at most
    :func:`num_threads`); the calling thread computes the first.  The kernel
    must release the GIL (Numba's ``nogil=True``, or a NumPy/SciPy ufunc) and
    be elementwise, so the result does not depend on the split.  All threads
    are joined before returning, so none outlives the call (safe with
    ``fork``), and an exception in any slice is raised here.
    """
    n = out.shape[0] if out.ndim else 1
    k = min(num_threads(), out.size // max(1, min_size // 2), n) if out.size >= min_size else 1
    if k <= 1:
        kernel(*leading, *inputs, out)
        return
    bounds = [n * i // k for i in range(k + 1)]
    parts = [
        tuple(leading) + tuple(a[bounds[i]:bounds[i + 1]] for a in inputs)
        + (out[bounds[i]:bounds[i + 1]],)
        for i in range(k)
    ]
    errors = []

    def run(args):
        try:
            kernel(*args)
        except BaseException as e:  # re-raised in the calling thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(p,)) for p in parts[1:]]
    for t in threads:
        t.start()
    try:
        kernel(*parts[0])
    finally:
        for t in threads:
            t.join()
    if errors:
        raise errors[0]


def call_ufunc(fn, arrays, min_size):
    """``fn(*arrays)`` for a NumPy/SciPy ufunc with one output, over threads
    (:func:`launch`: slices of the broadcast operands along their first axis)
    when the result has ``min_size`` elements or more; warnings off."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    if isinstance(fn, np.ufunc) and fn.nout == 1 and shape and int(np.prod(shape)) >= min_size:
        views = np.broadcast_arrays(*arrays)
        out = np.empty(shape, np.result_type(*fn.resolve_dtypes(
            tuple(v.dtype for v in views) + (None,))[fn.nin:]))

        def call(*args):
            with np.errstate(all="ignore"):  # (the error state is per thread)
                fn(*args[:-1], out=args[-1])

        launch(call, views, out, min_size)
        return out
    with np.errstate(all="ignore"):
        return fn(*arrays)
