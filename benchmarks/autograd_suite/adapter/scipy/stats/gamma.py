"""autograd.scipy.stats.gamma -> tracegrad.scipy.stats.gamma."""
import tracegrad.scipy.stats.gamma as _m
from tracegrad.scipy.stats.gamma import *  # noqa: F401,F403


def __getattr__(name):
    # what tracegrad lacks (rvs, for the tests' data) comes from SciPy
    if hasattr(_m, name):
        return getattr(_m, name)
    import scipy.stats  # lazy: only for test data

    return getattr(getattr(scipy.stats, __name__.rsplit(".", 1)[-1]), name)
