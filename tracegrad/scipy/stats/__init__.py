"""Probability distributions with SciPy's signatures (``jax.scipy.stats``' layout).

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
differentiable in the data and in the parameters: ``norm`` (``logpdf``,
``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``),
``expon``, ``logistic``, ``laplace``, ``cauchy`` (densities and CDFs),
``uniform`` (density and CDF), ``t``, ``gamma``, ``beta``, ``chi2``,
``dirichlet``, ``multivariate_normal`` (densities), ``poisson`` and
``bernoulli`` (``logpmf``, ``pmf``).  The other distributions of issue 11 are not written
yet.
"""
from . import (bernoulli, beta, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic,
               multivariate_normal, norm, poisson, t, uniform)

__all__ = ["bernoulli", "beta", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace",
           "logistic", "multivariate_normal", "norm", "poisson", "t", "uniform"]
