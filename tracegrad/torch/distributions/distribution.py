"""The :class:`Distribution` base class (PyTorch's ``torch.distributions.Distribution``)."""
import warnings

from .. import _grad_mode
from .._ops import _is_traced
from .._tensor import Size, Tensor
from . import constraints
from .utils import _fmt, lazy_property

__all__ = ["Distribution"]


def _size(shape):
    if isinstance(shape, Size):
        return shape
    if isinstance(shape, int):
        return Size((shape,))
    return Size(tuple(int(s) for s in shape))


class Distribution:
    """The base class of probability distributions.

    Parameters
    ----------
    batch_shape : Size
        The shape over which the parameters are batched.
    event_shape : Size
        The shape of one sample.
    validate_args : bool, optional
        Check the parameters against :attr:`arg_constraints` (and the values
        given to ``log_prob``/``cdf`` against :attr:`support`).  Default: the
        class default, True unless Python runs with ``-O``, as PyTorch's.

    Notes
    -----
    Inside a ``torch.func`` transform the values are traced, and are not
    checked (PyTorch checks them there too).

    Raises
    ------
    ValueError
        When validating and a parameter violates its constraint, with
        PyTorch's message (``Expected parameter scale (Tensor of shape ())
        of distribution Normal(...) to satisfy the constraint
        GreaterThan(lower_bound=0.0), but found invalid values: ...``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution.

        Raises
        ------
        ValueError
            If ``value`` is not True or False.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # (cannot be checked)
                if param not in self.__dict__ and isinstance(
                        getattr(type(self), param, None), lazy_property):
                    continue  # (a parameter computed from another one)
                value = getattr(self, param)
                if _is_traced(value):
                    continue  # (inside a torch.func transform: the values are not concrete)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{_fmt(value)}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the parameters expanded to ``batch_shape``
        (views; the arguments are not validated again)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one sample."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """``{parameter name: Constraint}``."""
        raise NotImplementedError

    @property
    def support(self):
        """The :class:`~.constraints.Constraint` of the samples."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean, ``batch_shape + event_shape``."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode, ``batch_shape + event_shape``."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance, ``batch_shape + event_shape``."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation, ``variance.sqrt()``."""
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient.

        The draws come from ``tracegrad.torch``'s default generator
        (``torch.manual_seed`` makes them reproducible; they are not PyTorch's numbers).
        """
        with _grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """A reparameterized sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """``sample((n,))`` (deprecated, as in PyTorch)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log density (or mass) at ``value``, ``batch_shape`` broadcast with the
        value's leading dimensions."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution's support, along dimension 0."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(_size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Check ``value`` against the shapes and the support (PyTorch's ValueErrors)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.", stacklevel=2)
            return
        if _is_traced(value):
            return  # (inside a torch.func transform: the values are not concrete)
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{_fmt(value)}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        params = [(k, self.__dict__[k]) for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {_fmt(v) if v.numel() == 1 else v.size()}" for k, v in params)
        return f"{type(self).__name__}({args})"


def _expand_params(self, cls, batch_shape, _instance, names, event_shape=Size()):
    """``expand`` of a distribution whose parameters ``names`` have shape
    ``batch_shape + event_shape`` (shared by the simple distributions)."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = _size(batch_shape)
    full = tuple(batch_shape) + tuple(event_shape)
    for name in names:
        if name in self.__dict__:
            setattr(new, name, getattr(self, name).expand(full))
    Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new
