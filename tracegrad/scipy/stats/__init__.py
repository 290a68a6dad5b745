"""Probability distributions with SciPy's signatures (``jax.scipy.stats``' layout).

Each distribution is a module of functions (``norm.logpdf(x, loc, scale)``),
differentiable in the data and in the parameters: ``norm`` (``logpdf``,
``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``),
``expon``, ``logistic``, ``laplace``, ``cauchy``, ``uniform``, ``pareto``,
``gumbel_r``, ``gumbel_l``, ``truncnorm`` (densities, CDFs, quantiles),
``t``, ``gamma``, ``beta``, ``chi2``, ``gennorm``, ``vonmises``,
``wrapcauchy``, ``dirichlet``, ``multivariate_normal`` (densities),
``poisson``, ``bernoulli``, ``binom``, ``nbinom``, ``geom``, ``betabinom``,
``multinomial`` (``logpmf``, ``pmf``; CDFs for ``bernoulli`` and ``geom``).
``gamma``, ``chi2`` and ``beta`` also have ``cdf``, ``sf``, ``logcdf``,
``logsf``, ``t`` has ``cdf``, ``sf``, ``logcdf``, ``logsf``, ``poisson`` has ``cdf`` (through
the incomplete gamma and beta functions: differentiable in the data,
``loc``, ``scale`` and ``mu``, not in the shape parameters ``a``, ``b``,
``df``, where they raise NotImplementedError).  Also the sample statistics
``sem``, ``rankdata`` and ``mode`` and the kernel density estimate
``gaussian_kde``.
"""
from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm,
               geom, gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal,
               nbinom, norm, pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from ._kde import gaussian_kde
from ._summary import ModeResult, mode, rankdata, sem

__all__ = ["ModeResult", "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2",
           "dirichlet", "expon", "gamma", "gaussian_kde", "gennorm", "geom", "gumbel_l",
           "gumbel_r", "laplace", "logistic", "mode", "multinomial", "multivariate_normal",
           "nbinom", "norm", "pareto", "poisson", "rankdata", "sem", "t", "truncnorm",
           "uniform", "vonmises", "wrapcauchy"]
