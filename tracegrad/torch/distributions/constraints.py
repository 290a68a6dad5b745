"""Constraints: the sets parameters and samples of a distribution belong to.

Each constraint's :meth:`~Constraint.check` returns a bool tensor that is
true where a value satisfies it, of the value's shape without the
constraint's ``event_dim`` rightmost dimensions.  The names and the
instances are PyTorch's (``constraints.real``, ``positive``, ``simplex``,
``interval(lo, hi)``, ...), and so are the ``repr`` strings that appear in
the distributions' validation errors (``GreaterThan(lower_bound=0.0)``).
"""
import numpy as np

from .._tensor import Tensor
from .utils import _fmt

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "lower_triangular", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
    "positive_semidefinite", "real", "real_vector", "simplex", "square", "symmetric",
    "unit_interval",
]


def _bool(x):
    """``x`` (a comparison's result) as a bool tensor."""
    if isinstance(x, Tensor):
        return x
    return Tensor._wrap(np.asarray(x, dtype=bool))


class Constraint:
    """A region of values.

    Attributes
    ----------
    is_discrete : bool
        Whether the region is a discrete set.
    event_dim : int
        How many rightmost dimensions together make one point of the region.
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor, true where ``value`` satisfies the constraint.

        Parameters
        ----------
        value : Tensor

        Returns
        -------
        Tensor
            bool, ``value.shape[:value.dim() - event_dim]``.
        """
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters
    (its :meth:`check` raises ValueError)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """True for a :data:`dependent` constraint (or a :func:`dependent_property`)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution that is, on the class, a dependent
    constraint (``support`` of ``Uniform``, ``Categorical``, ...)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more event dimensions."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError("reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(
                f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = _bool(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(
                f"Expected value.dim() >= {self.base_constraint.event_dim + n} "
                f"but got {value.dim()}")
        data = np.asarray(result._data)
        data = data.reshape(data.shape[:data.ndim - n] + (-1,))
        return Tensor._wrap(np.asarray(data.all(-1)))

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & value.sum(-1).eq(1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _bool((value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound))

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={_fmt(self.lower_bound)}, "
                f"upper_bound={_fmt(self.upper_bound)})")


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={_fmt(self.lower_bound)})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return _bool(value > self.lower_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={_fmt(self.lower_bound)})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return _bool(value >= self.lower_bound)


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _bool(value < self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={_fmt(self.upper_bound)})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _bool((value >= self.lower_bound) & (value <= self.upper_bound))

    def __repr__(self):
        return (f"{type(self).__name__[1:]}(lower_bound={_fmt(self.lower_bound)}, "
                f"upper_bound={_fmt(self.upper_bound)})")


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return _bool((value >= self.lower_bound) & (value < self.upper_bound))


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        d = np.asarray(value._data)
        return Tensor._wrap(np.asarray((np.tril(d) == d).reshape(d.shape[:-2] + (-1,)).all(-1)))


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        d = np.asarray(value._data)
        lower = (np.tril(d) == d).reshape(d.shape[:-2] + (-1,)).all(-1)
        positive_diagonal = (np.diagonal(d, axis1=-2, axis2=-1) > 0).all(-1)
        return Tensor._wrap(np.asarray(lower & positive_diagonal))


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return Tensor._wrap(np.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                                    dtype=bool))


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square._data.all()):
            return square
        d = np.asarray(value._data)
        close = np.isclose(d, np.swapaxes(d, -1, -2), rtol=1e-5, atol=1e-6)
        return Tensor._wrap(np.asarray(close.all(-1).all(-1)))


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric._data.all()):
            return symmetric
        return Tensor._wrap(np.asarray((np.linalg.eigvalsh(np.asarray(value._data)) >= 0).all(-1)))


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric._data.all()):
            return symmetric
        d = np.asarray(value._data)
        flat = d.reshape((-1,) + d.shape[-2:])
        ok = np.empty(flat.shape[0], dtype=bool)
        for i, m in enumerate(flat):
            try:
                np.linalg.cholesky(m)
                ok[i] = True
            except np.linalg.LinAlgError:
                ok[i] = False
        return Tensor._wrap(ok.reshape(d.shape[:-2]))


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()

