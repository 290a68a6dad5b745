"""autograd.numpy.fft -> tracegrad.numpy.fft."""
import tracegrad.numpy.fft as _m
from tracegrad.numpy.fft import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_m, name)
