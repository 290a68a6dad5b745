"""Learning-rate schedulers: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``LambdaLR``,
``MultiplicativeLR``, ``CosineAnnealingLR``, ``ConstantLR``, ``LinearLR``, ``PolynomialLR``,
``CosineAnnealingWarmRestarts``, ``CyclicLR``, ``OneCycleLR``, ``ReduceLROnPlateau``,
``SequentialLR`` and ``ChainedScheduler`` (PyTorch's API and recurrences).

A scheduler rewrites ``group["lr"]`` of its optimizer's parameter groups
each time ``step()`` is called (once per epoch, after ``optimizer.step()``).
Construction performs step 0, as in PyTorch, and stores each group's
starting rate as ``initial_lr``.  The multiplicative schedulers update the
current rate (so they compose with other changes to it), with PyTorch's
formulas, so the rates match PyTorch's to the last bit.
"""
import bisect
import functools
import math
import types
import warnings
import weakref
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR",
           "MultiplicativeLR", "CosineAnnealingLR", "ConstantLR", "LinearLR", "PolynomialLR",
           "CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR", "ReduceLROnPlateau",
           "SequentialLR", "ChainedScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


def _record_optimizer_steps(optimizer):
    """Make ``optimizer.step`` set ``optimizer._opt_called`` (for the call-order warning).

    The instance's ``step`` is replaced once by a wrapper around the class's
    method; the wrapper holds the optimizer weakly.
    """
    if getattr(optimizer.step, "_records_calls", False):
        return
    method = type(optimizer).step
    ref = weakref.ref(optimizer)

    @functools.wraps(method)
    def step(*args, **kwargs):
        opt = ref()
        opt._opt_called = True
        return method(opt, *args, **kwargs)

    step._records_calls = True
    optimizer.step = step


class LRScheduler:
    """Base class of the schedulers.

    Parameters
    ----------
    optimizer : Optimizer
    last_epoch : int, optional
        The index of the last epoch; -1 (default) starts from scratch.

    Raises
    ------
    TypeError
        If ``optimizer`` is not an :class:`~.optimizer.Optimizer`.
    KeyError
        When resuming (``last_epoch != -1``) on groups without ``initial_lr``.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                    "trying to resume training from a checkpoint but haven't properly loaded the "
                    "optimizer state\n2. You're using last_epoch >= 0 for a fresh training run "
                    "(not recommended)"
                )
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        _record_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Step 0 (run by the constructor, and by ``SequentialLR`` at construction)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The rates for the current ``last_epoch`` (one per group).

        Called by :meth:`step`; calling it directly warns (use
        :meth:`get_last_lr`), as in PyTorch.
        """
        raise NotImplementedError

    def _current(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def step(self, epoch=None):
        """Advance one epoch and write the new rates into the optimizer.

        Parameters
        ----------
        epoch : int, optional
            Deprecated (a UserWarning, as in PyTorch); jumps to that epoch
            (closed form where the scheduler has one).

        Warns
        -----
        UserWarning
            On the first call after construction if ``optimizer.step()`` has
            not run yet (the order PyTorch 1.1 changed), and when ``epoch``
            is given.
        """
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. See "
                "more details at https://pytorch.org/docs/stable/optim.html"
                "#how-to-adjust-learning-rate", UserWarning, stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Move to the next epoch (or to ``epoch``) and write the rates into the optimizer."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_closed_form", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def get_last_lr(self):
        """The rates set by the last ``step()``.

        Returns
        -------
        list of float
        """
        return self._last_lr

    def state_dict(self):
        """Everything but the optimizer.

        Returns
        -------
        dict
            The scheduler's attributes; for ``LambdaLR`` and
            ``MultiplicativeLR``, ``lr_lambdas`` holds None for each plain
            function and the ``__dict__`` of each callable object (as in
            PyTorch: functions are not saved).
        """
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        if "lr_lambdas" in self.__dict__:
            state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                                   else fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restore from :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
        """
        state_dict = dict(state_dict)
        lambdas = state_dict.pop("lr_lambdas", None)
        self.__dict__.update(state_dict)
        for fn, saved in zip(getattr(self, "lr_lambdas", ()), lambdas or ()):
            if saved is not None:
                fn.__dict__.update(saved)


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    step_size : int
    gamma : float, optional
        Default 0.1.
    last_epoch : int, optional
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``.

    Parameters
    ----------
    optimizer : Optimizer
    milestones : iterable of int
    gamma : float, optional
        Default 0.1.
    last_epoch : int, optional
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]

    def _closed_form(self):
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma ** passed for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch.

    Parameters
    ----------
    optimizer : Optimizer
    gamma : float
    last_epoch : int, optional
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class LambdaLR(LRScheduler):
    """Rate ``initial_lr * lr_lambda(epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
    lr_lambda : callable or list of callables
        One function of the epoch, or one per parameter group.
    last_epoch : int, optional

    Raises
    ------
    ValueError
        If a list of functions does not have one per group.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [b * f(self.last_epoch) for f, b in zip(self.lr_lambdas, self.base_lrs)]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial rate to ``eta_min`` over ``T_max`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    T_max : int
        Half-period, in epochs.
    eta_min : float, optional
        Minimum rate (default 0).
    last_epoch : int, optional

    Notes
    -----
    Loshchilov and Hutter (2017), "SGDR: Stochastic Gradient Descent with
    Warm Restarts", evaluated with PyTorch's recurrence on the current rate.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        if t == 0:
            return self._current()
        if self._step_count == 1 and t > 0:
            return self._closed_form()
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (b - lo) * (1 - math.cos(math.pi / T)) / 2
                    for lr, b in zip(self._current(), self.base_lrs)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - lo) + lo for lr in self._current()]

    def _closed_form(self):
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * t / T)) / 2 for b in self.base_lrs]


def _per_group(name, optimizer, value):
    """``value`` once per parameter group (a list or tuple must have one per group)."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


class MultiplicativeLR(LRScheduler):
    """Multiply the rate by ``lr_lambda(epoch)`` every epoch (after the first).

    Parameters
    ----------
    optimizer : Optimizer
    lr_lambda : callable or list of callables
        One function of the epoch, or one per parameter group.
    last_epoch : int, optional

    Raises
    ------
    ValueError
        If a list of functions does not have one per group.
    TypeError
        If a function is not callable.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial:
            return self._current()
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current())]


class ConstantLR(LRScheduler):
    """Multiply the rate by ``factor`` until epoch ``total_iters``, then restore it.

    Parameters
    ----------
    optimizer : Optimizer
    factor : float, optional
        In ``[0, 1]`` (default 1/3).
    total_iters : int, optional
        Default 5.
    last_epoch : int, optional

    Raises
    ------
    ValueError
        If ``factor`` is outside ``[0, 1]``.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _closed_form(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    start_factor : float, optional
        In ``(0, 1]`` (default 1/3).
    end_factor : float, optional
        In ``[0, 1]`` (default 1).
    total_iters : int, optional
        Default 5.
    last_epoch : int, optional

    Raises
    ------
    ValueError
        For factors outside those ranges.

    Notes
    -----
    Each step multiplies the current rate by ``1 + (end - start) / (T start
    + (t - 1)(end - start))`` (PyTorch's recurrence), so the rate after ``t``
    epochs is ``base (start + (end - start) min(t, T) / T)``.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        span = self.end_factor - self.start_factor
        scale = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [lr * scale for lr in self._current()]

    def _closed_form(self):
        span = self.end_factor - self.start_factor
        return [b * (self.start_factor + span * min(self.total_iters, self.last_epoch)
                     / self.total_iters) for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate as ``(1 - t / total_iters) ** power`` until ``total_iters``.

    Parameters
    ----------
    optimizer : Optimizer
    total_iters : int, optional
        Default 5.
    power : float, optional
        Default 1 (linear decay to zero).
    last_epoch : int, optional
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        t, T = self.last_epoch, self.total_iters
        factor = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power
        return [lr * factor for lr in self._current()]

    def _closed_form(self):
        t, T = self.last_epoch, self.total_iters
        return [b * (1.0 - min(T, t) / T) ** self.power for b in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, ``T_i = T_0 T_mult**i`` (SGDR).

    Parameters
    ----------
    optimizer : Optimizer
    T_0 : int
        Length of the first period (positive).
    T_mult : int, optional
        Growth of the period after each restart (>= 1, default 1).
    eta_min : float, optional
        Minimum rate (default 0).
    last_epoch : int, optional

    Raises
    ------
    ValueError
        For a non-positive or non-integer ``T_0``, a ``T_mult`` below 1 or
        not an integer, a non-numeric ``eta_min``, or a negative ``epoch``
        given to :meth:`step`.

    Notes
    -----
    Loshchilov and Hutter (2017): ``eta_min + (base - eta_min) (1 +
    cos(pi T_cur / T_i)) / 2``.  :meth:`step` accepts fractional epochs
    (``scheduler.step(epoch + i / iters)``) without a deprecation warning,
    as in PyTorch.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):  # noqa: N803
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or jump to (a possibly fractional) ``epoch``.

        Parameters
        ----------
        epoch : float, optional

        Raises
        ------
        ValueError
            For a negative ``epoch``.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current()


def _set_momentum(group, use_beta1, value):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _momentum_key(optimizer):
    """True for ``betas`` (Adam-like), False for ``momentum``; ValueError for neither."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option "
                         "enabled")
    return "betas" in optimizer.defaults


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith 2017), cycling the momentum inversely.

    Parameters
    ----------
    optimizer : Optimizer
    base_lr, max_lr : float or list of float
        The cycle's bounds (per group if lists).
    step_size_up : int, optional
        Iterations in the rising half (2000).
    step_size_down : int, optional
        Iterations in the falling half (default ``step_size_up``).
    mode : {"triangular", "triangular2", "exp_range"}, optional
        Amplitude scaling: constant, halved every cycle, or ``gamma**t``.
    gamma : float, optional
        For ``"exp_range"`` (default 1).
    scale_fn : callable, optional
        A custom amplitude scaling of the cycle (or iteration) number;
        replaces ``mode``.
    scale_mode : {"cycle", "iterations"}, optional
        What ``scale_fn`` is given.
    cycle_momentum : bool, optional
        Also cycle ``momentum`` (or Adam's ``beta1``) between
        ``max_momentum`` and ``base_momentum`` (default True).
    base_momentum, max_momentum : float or list of float, optional
        0.8 and 0.9.
    last_epoch : int, optional

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    ValueError
        For an unknown ``mode`` without ``scale_fn``, per-group lists of the
        wrong length, or ``cycle_momentum`` with an optimizer having neither
        ``momentum`` nor ``betas``.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for hi, lo, group in zip(self.max_momentums, self.base_momentums,
                                         optimizer.param_groups):
                    _set_momentum(group, self.use_beta1, hi)
                    group["max_momentum"] = hi
                    group["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        """The amplitude scaling at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [b + (m - b) * scale_factor * scale for b, m in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                     self.max_momentums):
                _set_momentum(group, self.use_beta1, hi - (hi - lo) * scale_factor * scale)
        return lrs

    def state_dict(self):
        """As :meth:`LRScheduler.state_dict`; a custom ``scale_fn`` that is a plain function
        is saved as None, a callable object as its ``__dict__`` (as in PyTorch).
        """
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        """Restore from :meth:`state_dict` (a callable ``scale_fn`` gets its attributes back)."""
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin 2018): warm up to ``max_lr``, then anneal far below.

    Parameters
    ----------
    optimizer : Optimizer
    max_lr : float or list of float
    total_steps : int, optional
        Or ``epochs * steps_per_epoch``.
    epochs, steps_per_epoch : int, optional
    pct_start : float, optional
        Fraction of the steps spent warming up (0.3).
    anneal_strategy : {"cos", "linear"}, optional
    cycle_momentum : bool, optional
        Cycle ``momentum`` (or Adam's ``beta1``) inversely, between
        ``max_momentum`` and ``base_momentum`` (default True).
    base_momentum, max_momentum : float or list of float, optional
        0.85 and 0.95.
    div_factor : float, optional
        ``initial_lr = max_lr / div_factor`` (25).
    final_div_factor : float, optional
        ``min_lr = initial_lr / final_div_factor`` (1e4).
    three_phase : bool, optional
        Warm up, come back down to ``initial_lr`` symmetrically, then
        anneal to ``min_lr`` (fast.ai's schedule).
    last_epoch : int, optional

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    ValueError
        For missing or non-positive step counts, ``pct_start`` not a float in
        ``[0, 1]``, an unknown ``anneal_strategy``, momentum cycling on an
        optimizer without momentum, or stepping past ``total_steps``.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        warm_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                       "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum",
                       "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_key(optimizer)
            his = _per_group("max_momentum", optimizer, max_momentum)
            los = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for hi, lo, group in zip(his, los, optimizer.param_groups):
                    _set_momentum(group, self.use_beta1, hi)
                    group["max_momentum"] = hi
                    group["base_momentum"] = lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == last:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, momentum)
        return lrs


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when a metric has stopped improving for ``patience`` epochs.

    Parameters
    ----------
    optimizer : Optimizer
    mode : {"min", "max"}, optional
        Whether the metric should decrease or increase.
    factor : float, optional
        Below 1 (default 0.1).
    patience : int, optional
        Epochs without improvement tolerated (10).
    threshold : float, optional
        Minimum improvement that counts (1e-4).
    threshold_mode : {"rel", "abs"}, optional
        Improvement relative to the best value (``best (1 -+ threshold)``) or
        absolute (``best -+ threshold``).
    cooldown : int, optional
        Epochs after a reduction during which bad epochs are not counted.
    min_lr : float or list of float, optional
        Lower bound of the rate (per group if a list).
    eps : float, optional
        Reductions smaller than this are skipped (1e-8).

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    ValueError
        For ``factor >= 1``, an unknown mode, or a ``min_lr`` list of the
        wrong length.
    RuntimeError
        When reducing after groups were added, if ``min_lr`` was a list.

    Notes
    -----
    ``step(metrics)`` takes the metric (a number or 1-element tensor).
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current()
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record the epoch's metric; reduce the rates after ``patience`` bad epochs.

        Parameters
        ----------
        metrics : float or Tensor
        epoch : int, optional
            Deprecated (a UserWarning).
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current()

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    "to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                group["lr"] = new

    @property
    def in_cooldown(self):
        """True during the cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        """Restore from :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _check_schedulers(kind, optimizer, schedulers):
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{kind} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != s.optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(s).__name__} at index {i} has {s.optimizer}, which is "
                f"different from {type(optimizer).__name__}."
            )


class _Composite(LRScheduler):
    """State handling shared by :class:`SequentialLR` and :class:`ChainedScheduler`."""

    def state_dict(self):
        """Own attributes, with ``_schedulers`` holding each scheduler's state dict."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        """Restore from :meth:`state_dict` (and each inner scheduler from its entry)."""
        inner = state_dict["_schedulers"]
        self.__dict__.update({k: v for k, v in state_dict.items() if k != "_schedulers"})
        for s, sd in zip(self._schedulers, inner):
            s.load_state_dict(sd)


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` from ``milestones[i - 1]`` to ``milestones[i]``.

    Parameters
    ----------
    optimizer : Optimizer
    schedulers : list of LRScheduler
        Built on ``optimizer``.
    milestones : list of int
        One fewer than ``schedulers``.
    last_epoch : int, optional

    Raises
    ------
    ValueError
        For no scheduler, a ``ReduceLROnPlateau``, a scheduler of another
        optimizer, or the wrong number of milestones.
    TypeError
        For an item without ``optimizer``.

    Notes
    -----
    As in PyTorch, construction resets the rates to ``initial_lr``, undoes
    the step 0 of every scheduler and redoes that of the first; at a
    milestone, the next scheduler restarts from its epoch 0 (closed form).
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(kind, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect.bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Step back the ``last_epoch`` of every (nested) scheduler once."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        """Advance one epoch, with the scheduler whose interval holds it."""
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers together (their changes compose), every epoch.

    Parameters
    ----------
    schedulers : sequence of LRScheduler
    optimizer : Optimizer, optional
        Default: the first scheduler's.

    Raises
    ------
    ValueError
        For no scheduler, a ``ReduceLROnPlateau`` or a scheduler of another
        optimizer.
    TypeError
        For an item without ``optimizer``.
    """

    def __init__(self, schedulers, optimizer=None):
        kind = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{kind} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(kind, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]

    def step(self):
        """Step every scheduler, in order."""
        for s in self._schedulers:
            s.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]
