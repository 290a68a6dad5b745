"""autograd.scipy.integrate -> tracegrad.scipy.integrate."""
import tracegrad.scipy.integrate as _m
from tracegrad.scipy.integrate import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_m, name)
