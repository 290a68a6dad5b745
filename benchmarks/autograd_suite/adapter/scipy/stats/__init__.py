"""autograd.scipy.stats -> tracegrad.scipy.stats."""
from . import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t  # noqa: F401
