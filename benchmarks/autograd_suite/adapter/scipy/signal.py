"""autograd.scipy.signal -> tracegrad.scipy.signal."""
import tracegrad.scipy.signal as _m
from tracegrad.scipy.signal import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_m, name)
