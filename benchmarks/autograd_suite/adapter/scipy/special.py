"""autograd.scipy.special -> tracegrad.scipy.special."""
import tracegrad.scipy.special as _m
from tracegrad.scipy.special import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_m, name)
