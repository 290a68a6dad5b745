"""autograd.numpy.random: NumPy's (autograd's tests draw their data from it)."""
from numpy.random import *  # noqa: F401,F403
