"""``torch.distributions``: probability distributions with PyTorch's API.

:class:`Distribution` subclasses with ``batch_shape``/``event_shape``,
``sample``, ``rsample`` (reparameterized: differentiable with respect to the
parameters), ``log_prob``, ``entropy``, ``mean``/``mode``/``variance``/
``stddev``, ``cdf``/``icdf`` where PyTorch has them, ``expand`` and
argument validation with PyTorch's ``ValueError`` messages
(:mod:`.constraints`), and :func:`kl_divergence` with :func:`register_kl`.
Every density is written with ``tracegrad.torch`` operations (and
:mod:`tracegrad.torch.special` for ``lgamma``/``digamma``/``xlogy``/
``erfinv``/``gammainc``), so gradients reach the parameters through
tracegrad's primitives.

Distributions: ``Normal``, ``LogNormal``, ``MultivariateNormal``,
``Uniform``, ``Exponential``, ``Laplace``, ``Gamma``, ``Beta``,
``Dirichlet`` (the last three reparameterized implicitly, see
:class:`~.gamma.Gamma`), ``Categorical``, ``OneHotCategorical``,
``Bernoulli``, ``Binomial``, ``Poisson`` (sampled without gradient) and
``Independent``.

Samples come from ``tracegrad.torch``'s default generator
(``torch.manual_seed``): reproducible, not PyTorch's numbers.
"""
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential",
    "Gamma", "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal",
    "OneHotCategorical", "Poisson", "Uniform", "constraints", "kl_divergence", "register_kl",
]
