"""Kernel density estimation with Gaussian kernels (``scipy.stats.gaussian_kde``)."""
import math

from ... import numpy as tnp
from ...numpy import linalg as tla
from ...primitives import ops
from .. import special
from ._common import reals

__all__ = ["gaussian_kde"]

_LOG_2PI = math.log(2.0 * math.pi)


class gaussian_kde:
    """A Gaussian kernel density estimate of ``dataset`` (``scipy.stats.gaussian_kde``).

    The density is ``sum_i w_i N(x; dataset_i, covariance)`` with
    ``covariance = factor**2 * cov(dataset, weights)`` (the weighted sample
    covariance, normalized as ``numpy.cov(aweights=...)``).  Every attribute is
    built with tracegrad operations, so densities are differentiable to any
    order in ``dataset``, ``weights``, a scalar ``bw_method`` and the evaluation
    points, and a function building the estimate stages under ``jit`` and
    batches under ``vmap``.

    Parameters
    ----------
    dataset : array_like or tracer
        Samples, shape ``(n,)`` (one dimension) or ``(d, n)``.
    bw_method : {'scott', 'silverman'}, scalar, callable or None, optional
        The bandwidth factor: ``'scott'`` (default, ``neff**(-1/(d+4))``),
        ``'silverman'`` (``(neff (d + 2) / 4)**(-1/(d+4))``), a scalar used as
        the factor, or a callable of the estimate returning it.
    weights : array_like or tracer, optional
        Sample weights, shape ``(n,)``, normalized to sum 1 (default uniform).

    Attributes
    ----------
    dataset : array or tracer
        Shape ``(d, n)``.
    weights : array or tracer
        Normalized, shape ``(n,)``.
    d, n : int
        Dimension and number of samples.
    neff : array or tracer
        Effective sample size ``1 / sum(weights**2)``.
    factor : array or tracer
        Bandwidth factor.
    covariance : array or tracer
        Kernel covariance, shape ``(d, d)``.

    Raises
    ------
    ValueError
        If ``dataset`` has fewer than 2 samples or more than 2 axes, if
        ``weights`` does not have shape ``(n,)``, or for an unknown ``bw_method``.
    TypeError
        If an operand is complex.

    Notes
    -----
    SciPy raises for ``d > n`` (a singular covariance); here the Cholesky
    factorization of the singular matrix gives NaN instead.  ``resample``
    and the ``integrate_*`` methods other than ``integrate_box_1d`` are not
    provided.
    """

    def __init__(self, dataset, bw_method=None, weights=None):
        (dataset,) = reals("gaussian_kde", dataset)
        if tnp.ndim(dataset) > 2:
            raise ValueError(f"gaussian_kde: dataset must be (n,) or (d, n), got "
                             f"{tnp.shape(dataset)}")
        self.dataset = tnp.atleast_2d(dataset)
        self.d, self.n = tnp.shape(self.dataset)
        if self.n < 2:
            raise ValueError("gaussian_kde: dataset needs more than one sample")
        if weights is None:
            self.weights = tnp.full((self.n,), 1.0 / self.n, dtype=tnp.result_type(self.dataset))
        else:
            (w,) = reals("gaussian_kde", weights)
            if tnp.shape(w) != (self.n,):
                raise ValueError(f"gaussian_kde: weights must have shape ({self.n},), got "
                                 f"{tnp.shape(w)}")
            self.weights = w / tnp.sum(w)
        self.neff = 1.0 / tnp.sum(tnp.square(self.weights))
        self.set_bandwidth(bw_method)

    def scotts_factor(self):
        """Scott's rule, ``neff**(-1/(d+4))``."""
        return tnp.power(self.neff, -1.0 / (self.d + 4))

    def silverman_factor(self):
        """Silverman's rule, ``(neff (d + 2) / 4)**(-1/(d+4))``."""
        return tnp.power(self.neff * (self.d + 2.0) / 4.0, -1.0 / (self.d + 4))

    covariance_factor = scotts_factor

    def set_bandwidth(self, bw_method=None):
        """Set the bandwidth factor (``bw_method`` as in the constructor) and the
        kernel covariance."""
        if bw_method is None or (isinstance(bw_method, str) and bw_method == "scott"):
            self.covariance_factor = self.scotts_factor
        elif isinstance(bw_method, str) and bw_method == "silverman":
            self.covariance_factor = self.silverman_factor
        elif isinstance(bw_method, str):
            raise ValueError(f"gaussian_kde: bw_method must be 'scott', 'silverman', a scalar "
                             f"or a callable, got {bw_method!r}")
        elif callable(bw_method):
            self._bw_method = bw_method
            self.covariance_factor = lambda: self._bw_method(self)
        else:
            (factor,) = reals("gaussian_kde", bw_method)
            if tnp.ndim(factor) != 0:
                raise ValueError("gaussian_kde: a numeric bw_method must be a scalar")
            self.covariance_factor = lambda: factor
        self.factor = self.covariance_factor()
        mean = tnp.sum(self.dataset * self.weights, axis=1, keepdims=True)
        centered = self.dataset - mean
        data_cov = (centered * self.weights) @ tnp.transpose(centered)
        data_cov = data_cov / (1.0 - tnp.sum(tnp.square(self.weights)))
        self.covariance = data_cov * tnp.square(self.factor)
        self._chol = tla.cholesky(self.covariance)
        self.log_det = 2.0 * tnp.sum(tnp.log(tnp.diagonal(self._chol)))

    def _points(self, points):
        (points,) = reals("gaussian_kde", points)
        points = tnp.atleast_2d(points)
        if tnp.shape(points)[0] != self.d:
            if tnp.shape(points) == (1, self.d):
                points = tnp.transpose(points)  # one point given as a vector
            else:
                raise ValueError(f"gaussian_kde: points have dimension {tnp.shape(points)[0]}, "
                                 f"the dataset {self.d}")
        return points

    def logpdf(self, points):
        """Log density at ``points`` (shape ``(m,)`` for ``d = 1``, ``(d, m)``, or one
        point ``(d,)``), ``logsumexp_i(log w_i + log N(x; dataset_i, covariance))``
        (no underflow far from the data); shape ``(m,)``."""
        points = self._points(points)
        m = tnp.shape(points)[1]
        diff = self.dataset[:, :, None] - points[:, None, :]  # (d, n, m)
        z = ops.triangular_solve(self._chol, tnp.reshape(diff, (self.d, self.n * m)), lower=True)
        maha = tnp.reshape(tnp.sum(tnp.square(z), axis=0), (self.n, m))
        log_kernel = -0.5 * (maha + self.log_det + self.d * _LOG_2PI)
        return special.logsumexp(log_kernel + tnp.log(self.weights)[:, None], axis=0)

    def evaluate(self, points):
        """The density at ``points``, ``exp(logpdf(points))``; shape ``(m,)``."""
        return tnp.exp(self.logpdf(points))

    __call__ = pdf = evaluate

    def integrate_box_1d(self, low, high):
        """``P(low <= X <= high)`` of a one-dimensional estimate,
        ``sum_i w_i (ndtr((high - x_i) / s) - ndtr((low - x_i) / s))``.

        Raises
        ------
        ValueError
            If the estimate is not one-dimensional.
        """
        if self.d != 1:
            raise ValueError("gaussian_kde.integrate_box_1d needs a one-dimensional estimate")
        low, high = reals("gaussian_kde", low, high)
        sd = self._chol[0, 0]
        x = self.dataset[0]
        upper = special.ndtr((high - x) / sd)
        lower = special.ndtr((low - x) / sd)
        return tnp.sum(self.weights * (upper - lower))
