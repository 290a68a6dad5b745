"""Keep the memory of freed large arrays in the process (glibc's malloc).

A reverse pass allocates many large temporaries while the forward values are
still alive.  With glibc's defaults, large blocks are returned to the
operating system when freed (``munmap``, or trimming the top of the heap), so
the next array of that size starts on fresh pages and pays one page fault per
4 KiB.  On these virtual machines that fault cost dominates: the gradient of
``sum(tanh(x) * sin(x) + exp(-x * x))`` on 1e6 float64 took 42-50 ms with
about 5,000 faults per call, and 24-27 ms with none (see the README's
performance notes; ``benchmarks/bench.py`` reproduces the workload).

:func:`tune` asks glibc to serve blocks up to 32 MiB from the heap and to
keep up to 256 MiB of freed memory before trimming (``mallopt`` with
``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``; see ``man 3 mallopt``).  It
runs once when ``tracegrad`` is imported.  It changes nothing when:

* the environment variable ``TRACEGRAD_MALLOC_TUNING`` is ``0``;
* the user already tunes malloc (``MALLOC_MMAP_THRESHOLD_``,
  ``MALLOC_TRIM_THRESHOLD_`` or a ``glibc.malloc`` entry in
  ``GLIBC_TUNABLES``);
* the C library is not glibc (macOS, Windows, musl).

The cost is a process that keeps up to 256 MiB of freed memory for reuse
instead of returning it to the system.
"""
import ctypes
import os

__all__ = ["tune", "apply", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's maximum for this setting
TRIM_THRESHOLD = 256 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # constants from glibc's <malloc.h>
_M_MMAP_THRESHOLD = -3

#: True once :func:`tune` has changed the allocator's settings.
tuned = False


def tune(environ=os.environ):
    """Apply the malloc settings described in the module docstring.

    Returns
    -------
    bool
        True if the settings were applied, False if left unchanged.
    """
    global tuned
    if environ.get("TRACEGRAD_MALLOC_TUNING", "1").strip() == "0":
        return False
    if "MALLOC_MMAP_THRESHOLD_" in environ or "MALLOC_TRIM_THRESHOLD_" in environ:
        return False
    if "glibc.malloc" in environ.get("GLIBC_TUNABLES", ""):
        return False
    return apply(MMAP_THRESHOLD, TRIM_THRESHOLD)


def apply(mmap_threshold, trim_threshold):
    """Set glibc's ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD`` (bytes) now.

    Returns
    -------
    bool
        True if both were set; False where the C library is not glibc.
    """
    global tuned
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
    ok = mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1 and ok
    tuned = ok
    return ok
