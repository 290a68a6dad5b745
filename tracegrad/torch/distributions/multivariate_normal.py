"""The multivariate normal distribution."""
import math


from .. import _creation, _ops
from .. import linalg as _linalg
from .._tensor import Size
from . import constraints
from .distribution import Distribution, _size
from .utils import _broadcast_shape, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """``bmat @ bvec`` for batches of matrices and vectors that broadcast."""
    return _ops.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^-1 x`` for batches of lower-triangular ``L`` and vectors ``x``
    (the batch shapes broadcast): ``|L^-1 x|^2`` by a triangular solve."""
    n = bx.size(-1)
    batch = tuple(_broadcast_shape(bL.shape[:-2], bx.shape[:-1]))
    L = bL.expand(batch + (n, n))
    x = bx.expand(batch + (n,))
    sol = _linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return sol.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^-1``: from the Cholesky factor of ``P``
    with its rows and columns reversed, as PyTorch computes it."""
    Lf = _linalg.cholesky(_ops.flip(P, (-2, -1)))
    L_inv = _ops.transpose(_ops.flip(Lf, (-2, -1)), -2, -1)
    eye = _creation.eye(P.shape[-1], dtype=P.dtype)
    return _linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution of mean ``loc`` and one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

    Parameters
    ----------
    loc : Tensor
        ``(*, n)``, at least one-dimensional.
    covariance_matrix, precision_matrix : Tensor, optional
        ``(*, n, n)`` positive definite.
    scale_tril : Tensor, optional
        ``(*, n, n)`` lower triangular with a positive diagonal (the Cholesky
        factor of the covariance).
    validate_args : bool, optional

    Raises
    ------
    ValueError
        For a 0-d ``loc``, not exactly one matrix, or a matrix of fewer than
        two dimensions (PyTorch's messages).

    Notes
    -----
    The batch shape is the broadcast of ``loc.shape[:-1]`` and the matrix's
    batch shape.  Everything is computed from the Cholesky factor ``L``:
    ``log_prob(x) = -(n log(2 pi) + |L^-1 (x - loc)|^2) / 2 - sum(log diag
    L)``, ``entropy = n (1 + log(2 pi)) / 2 + sum(log diag L)``, ``rsample =
    loc + L eps``.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (
                precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for name, m in (("scale_tril matrix", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is not None:
                if m.dim() < 2:
                    raise ValueError(f"{name} must be at least two-dimensional, "
                                     "with optional leading batch dimensions")
                batch_shape = tuple(_broadcast_shape(m.shape[:-2], loc.shape[:-1]))
                setattr(self, name.split()[0], m.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return _ops.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = _creation.eye(L.shape[-1], dtype=L.dtype)
        L_inv = _linalg.solve_triangular(L, eye.expand(L.shape), upper=False)
        return _ops.matmul(L_inv.mT, L_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, self.loc)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))


