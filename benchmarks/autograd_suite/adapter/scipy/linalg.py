"""autograd.scipy.linalg -> tracegrad.scipy.linalg."""
import tracegrad.scipy.linalg as _m
from tracegrad.scipy.linalg import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_m, name)
