"""Learning-rate schedulers: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``LambdaLR``,
``CosineAnnealingLR`` (PyTorch's API and recurrences).

A scheduler rewrites ``group["lr"]`` of its optimizer's parameter groups
each time ``step()`` is called (once per epoch, after ``optimizer.step()``).
Construction performs step 0, as in PyTorch, and stores each group's
starting rate as ``initial_lr``.  The multiplicative schedulers update the
current rate (so they compose with other changes to it), with PyTorch's
formulas, so the rates match PyTorch's to the last bit.
"""
import math
from collections import Counter

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR",
           "CosineAnnealingLR"]


class LRScheduler:
    """Base class of the schedulers.

    Parameters
    ----------
    optimizer : Optimizer
    last_epoch : int, optional
        The index of the last epoch; -1 (default) starts from scratch.

    Raises
    ------
    KeyError
        When resuming (``last_epoch != -1``) on groups without ``initial_lr``.
    """

    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    "an optimizer"
                )
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def get_lr(self):
        """The rates for the current ``last_epoch`` (one per group)."""
        raise NotImplementedError

    def _current(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def step(self, epoch=None):
        """Advance one epoch and write the new rates into the optimizer.

        Parameters
        ----------
        epoch : int, optional
            Deprecated in PyTorch; jumps to that epoch (closed form where
            the scheduler has one).
        """
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            values = self._closed_form() if hasattr(self, "_closed_form") else self.get_lr()
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
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]


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
