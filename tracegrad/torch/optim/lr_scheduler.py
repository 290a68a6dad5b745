"""Learning-rate schedulers: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``LambdaLR``,
``CosineAnnealingLR`` (PyTorch's API and recurrences).

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
import warnings
import weakref
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR",
           "CosineAnnealingLR"]

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
        self._step_count = 0
        self._get_lr_called_within_step = False
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
        """Everything but the optimizer (and lambdas).

        Returns
        -------
        dict
        """
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}

    def load_state_dict(self, state_dict):
        """Restore from :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
        """
        self.__dict__.update(state_dict)


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
