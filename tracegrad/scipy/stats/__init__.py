"""Probability distributions with SciPy's signatures (``jax.scipy.stats``' layout).

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
differentiable in the data and in the parameters: ``norm`` (``logpdf``,
``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``),
``expon``, ``logistic``, ``laplace``, ``cauchy`` (densities and CDFs),
``t``, ``gamma``, ``beta`` (densities), ``poisson`` and ``bernoulli``
(``logpmf``, ``pmf``).  The other distributions of issue 11 are not written
yet.
"""
from . import bernoulli, beta, cauchy, expon, gamma, laplace, logistic, norm, poisson, t

__all__ = ["bernoulli", "beta", "cauchy", "expon", "gamma", "laplace", "logistic", "norm",
           "poisson", "t"]
