"""Probability distributions with SciPy's signatures (``jax.scipy.stats``' layout).

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
differentiable in the data and in the parameters: ``norm`` (``logpdf``,
``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``),
``expon``, ``logistic``, ``laplace``, ``cauchy`` (densities and CDFs),
``uniform`` (density and CDF), ``t``, ``gamma``, ``beta``, ``chi2``,
``dirichlet``, ``multivariate_normal`` (densities), ``poisson`` and
``bernoulli`` (``logpmf``, ``pmf``).  ``gamma``, ``chi2`` and ``beta`` also
have ``cdf``, ``sf``, ``logcdf``, ``logsf``, ``t`` has ``cdf`` and ``sf``,
``poisson`` has ``cdf`` (through the incomplete gamma and beta functions:
differentiable in the data, ``loc``, ``scale`` and ``mu``, not in the shape
parameters ``a``, ``b``, ``df``, where they raise NotImplementedError).  The other distributions of issue 11 are not written
yet.
"""
from . import (bernoulli, beta, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic,
               multivariate_normal, norm, poisson, t, uniform)

__all__ = ["bernoulli", "beta", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace",
           "logistic", "multivariate_normal", "norm", "poisson", "t", "uniform"]
