"""``optim.Optimizer``, ``SGD``, ``Adam`` and ``AdamW`` (PyTorch's API and update rules).

An optimizer holds ``param_groups`` (dicts with a ``"params"`` list and the
hyperparameters, filled from the defaults) and a per-parameter ``state``.
``step()`` updates every parameter that has a gradient, in place under
``no_grad`` (the parameters keep their identity, their version counters
advance), with PyTorch's formulas in the parameter's dtype; parameters
whose ``.grad`` is None (frozen ones, or ones the loss does not reach) are
skipped, as in PyTorch.  ``state_dict()`` / ``load_state_dict()`` use
PyTorch's layout: parameters are referred to by their position across the
groups.
"""
import copy
import functools
import math
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import _grad_mode
from .._tensor import Tensor
from ..nn.module import RemovableHandle, _zero_grad

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "required"]


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_optim_kernels = None


def _adam_kernel():
    """:func:`._kernels.adam_kernel` (its module imports Numba: loaded on first use)."""
    global _optim_kernels
    if _optim_kernels is None:
        from . import _kernels  # lazy: imports Numba (and loads the cached kernel)

        _optim_kernels = _kernels
    return _optim_kernels.adam_kernel


def _fusable(*arrays):
    """True if ``arrays`` are C-contiguous ndarrays of one float32/float64 dtype and shape."""
    a = arrays[0]
    if type(a) is not np.ndarray or (a.dtype != _F32 and a.dtype != _F64):
        return False
    return all(type(b) is np.ndarray and b.dtype == a.dtype and b.shape == a.shape
               and b.flags.c_contiguous for b in arrays)


class _Required:
    """Marker of a hyperparameter without a default."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()


def _step_with_hooks(method):
    """``method`` (an optimizer's ``step``) running the step pre- and post-hooks around it.

    Hooks are called as ``hook(optimizer, args, kwargs)`` where, as in
    PyTorch, ``args`` starts with the optimizer itself; a pre-hook may
    return ``(args, kwargs)`` to replace them.  A ``step`` that calls
    ``super().step()`` runs the hooks once.
    """
    @functools.wraps(method)
    def step(self, *args, **kwargs):
        if self.__dict__.get("_in_hooked_step"):
            return method(self, *args, **kwargs)
        args = (self, *args)
        for hook in list(self.__dict__.get("_optimizer_step_pre_hooks", {}).values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{method} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        self._in_hooked_step = True
        try:
            out = method(*args, **kwargs)
        finally:
            self._in_hooked_step = False
        for hook in list(self.__dict__.get("_optimizer_step_post_hooks", {}).values()):
            hook(self, args, kwargs)
        return out

    step._runs_step_hooks = True
    return step


class Optimizer:
    """Base class of the optimizers.

    Parameters
    ----------
    params : iterable
        Tensors, ``(name, tensor)`` pairs (as ``named_parameters()`` gives),
        or dicts defining parameter groups (``{"params": [...], "lr": ...}``).
    defaults : dict
        Hyperparameters used where a group does not set them.

    Attributes
    ----------
    param_groups : list of dict
    state : defaultdict
        Per-parameter state (momentum buffers, moment estimates).

    Raises
    ------
    TypeError
        If ``params`` is a single tensor or holds non-tensors.
    ValueError
        For an empty parameter list, a non-leaf tensor or a parameter in two
        groups.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        method = cls.__dict__.get("step")
        if method is not None and not getattr(method, "_runs_step_hooks", False):
            cls.step = _step_with_hooks(method)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyperparameters.

        Parameters
        ----------
        param_group : dict
            ``"params"`` (a tensor, or an iterable of tensors or of
            ``(name, tensor)`` pairs) and hyperparameters; missing ones come
            from the defaults.

        Raises
        ------
        TypeError
            If a parameter is not a tensor.
        ValueError
            For a non-leaf tensor, a required hyperparameter that is
            missing, or a parameter already in another group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        params = list(params)
        names = None
        if params and isinstance(params[0], tuple):
            names = [n for n, _ in params]
            params = [p for _, p in params]
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = {"params": params, **({"param_names": names} if names is not None else {}),
                 **{k: v for k, v in group.items() if k != "params"}}
        for key, default in self.defaults.items():
            if default is required and key not in group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {key}"
                )
            group.setdefault(key, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                UserWarning, stacklevel=3,
            )
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter.

        Parameters
        ----------
        set_to_none : bool, optional
            True (default): set ``.grad`` to None (a following ``step``
            skips the parameter).  False: zero it in place.
        """
        for group in self.param_groups:
            for p in group["params"]:
                _zero_grad(p, set_to_none)

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)``, called before each ``step``.

        Parameters
        ----------
        hook : callable
            Returns None, or ``(new_args, new_kwargs)`` for ``step``.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.

        Raises
        ------
        RuntimeError
            At ``step``, if the hook returns anything else.
        """
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)``, called after each ``step``.

        Parameters
        ----------
        hook : callable
            Its return value is ignored.

        Returns
        -------
        RemovableHandle
        """
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @_step_with_hooks
    def step(self, closure=None):
        """Update the parameters once (subclasses define the update).

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; called with grad
            mode on.

        Returns
        -------
        object
            The closure's loss, or None.
        """
        loss = None
        if closure is not None:
            with _grad_mode.enable_grad():
                loss = closure()
        with _grad_mode.no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError

    def _params_with_grad(self, group):
        """``(param, data, grad)`` for every parameter of ``group`` that has a gradient."""
        out = []
        for p in group["params"]:
            g = p._grad
            if g is None:
                continue
            grad = g._data
            if group.get("maximize"):
                grad = -grad
            out.append((p, p._data, grad))
        return out

    @staticmethod
    def _bump(p):
        p._vc.value += 1

    # ------------------------------------------------------------------
    # state dict

    def state_dict(self):
        """The optimizer's state, with parameters referred to by position.

        Returns
        -------
        dict
            ``{"state": {index: {...}}, "param_groups": [{..., "params":
            [indices]}]}``; the state tensors are the live ones (as in
            PyTorch; copy them to keep a snapshot).
        """
        index = {}
        groups = []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
                ids.append(index[id(p)])
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore a state saved by :meth:`state_dict` (a deep copy, in the parameters' dtypes).

        Parameters
        ----------
        state_dict : dict

        Raises
        ------
        ValueError
            If the number of groups, or of parameters in a group, differs.
        """
        state_dict = copy.deepcopy(state_dict)
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, saved):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        lookup = {}
        for mine, theirs in zip(self.param_groups, saved):
            for p, i in zip(mine["params"], theirs["params"]):
                lookup[i] = p
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            p = lookup.get(i)
            if p is None:
                continue
            self.state[p] = {k: _cast_state(k, v, p) for k, v in s.items()}
        new_groups = []
        for mine, theirs in zip(self.param_groups, saved):
            g = {k: v for k, v in theirs.items() if k != "params"}
            g["params"] = mine["params"]
            new_groups.append(g)
        self.param_groups = new_groups

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _cast_state(key, value, param):
    """A loaded state entry: tensors take the parameter's dtype (``step`` stays as saved)."""
    if isinstance(value, Tensor) and key != "step" and value.is_floating_point():
        return Tensor._wrap(value._data.astype(param._data.dtype))
    return value


def _check(cond, message):
    if not cond:
        raise ValueError(message)


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    _check(0.0 <= lr, f"Invalid learning rate: {lr}")


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum, dampening, weight decay and Nesterov.

    Parameters
    ----------
    params : iterable
        See :class:`Optimizer`.
    lr : float, optional
        Default 1e-3 (PyTorch 2.x).
    momentum : float, optional
    dampening : float, optional
    weight_decay : float, optional
        L2 penalty added to the gradient.
    nesterov : bool, optional
    maximize : bool, optional
        Ascend instead.
    foreach, differentiable, fused : optional
        Accepted and stored for compatibility (no effect).

    Raises
    ------
    ValueError
        For a negative ``lr``, ``momentum`` or ``weight_decay``, or Nesterov
        without momentum or with dampening.

    Notes
    -----
    PyTorch's update, per parameter ``p`` with gradient ``g``:
    ``g += weight_decay * p``; with momentum, ``b = g`` at the first step and
    ``b = momentum * b + (1 - dampening) * g`` after, then ``g = g +
    momentum * b`` (Nesterov) or ``g = b``; finally ``p -= lr * g``
    (Sutskever et al. 2013, "On the importance of initialization and
    momentum in deep learning", in PyTorch's formulation).
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_lr(lr)
        _check(momentum >= 0.0, f"Invalid momentum value: {momentum}")
        _check(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, momentum = group["lr"], group["momentum"]
        dampening, wd = group["dampening"], group["weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            if wd != 0:
                grad = grad + dt(wd) * data
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = Tensor._wrap(np.array(grad, dtype=data.dtype))
                else:
                    b = buf._data
                    np.multiply(b, dt(momentum), out=b)
                    b += dt(1 - dampening) * grad
                    buf._vc.value += 1
                grad = grad + dt(momentum) * buf._data if group["nesterov"] else buf._data
            data -= dt(lr) * grad
            self._bump(p)


class Adam(Optimizer):
    """Adam (Kingma and Ba 2015), with PyTorch's bias correction, AMSGrad and weight decay.

    Parameters
    ----------
    params : iterable
        See :class:`Optimizer`.
    lr : float, optional
        Default 1e-3.
    betas : tuple of float, optional
        Decay rates of the first and second moment estimates (0.9, 0.999).
    eps : float, optional
        Added to the denominator (1e-8).
    weight_decay : float, optional
        L2 penalty added to the gradient (or, with ``decoupled_weight_decay``,
        AdamW's decay of the parameter).
    amsgrad : bool, optional
        Use the running maximum of the second moment (Reddi et al. 2018).
    maximize : bool, optional
    decoupled_weight_decay : bool, optional
        AdamW's decoupled decay ``p *= 1 - lr * weight_decay``.
    foreach, capturable, differentiable, fused : optional
        Accepted and stored for compatibility (no effect).

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps`` or ``weight_decay``, or a beta
        outside ``[0, 1)``.

    Notes
    -----
    PyTorch's update at step ``t``: ``m = beta1 m + (1 - beta1) g``,
    ``v = beta2 v + (1 - beta2) g**2``, ``p -= lr / (1 - beta1**t) * m /
    (sqrt(v) / sqrt(1 - beta2**t) + eps)`` (with ``v`` replaced by its
    running maximum for AMSGrad).  The state holds ``step`` (a float32
    scalar tensor), ``exp_avg``, ``exp_avg_sq`` and ``max_exp_avg_sq``.
    """

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay or self._decoupled)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, (beta1, beta2) = group["lr"], group["betas"]
        eps, wd, amsgrad = group["eps"], group["weight_decay"], group["amsgrad"]
        decoupled = group["decoupled_weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = Tensor._wrap(np.zeros((), np.float32))
                state["exp_avg"] = Tensor._wrap(np.zeros_like(data))
                state["exp_avg_sq"] = Tensor._wrap(np.zeros_like(data))
                if amsgrad:
                    state["max_exp_avg_sq"] = Tensor._wrap(np.zeros_like(data))
            step_t = state["step"]
            step_t._data[...] += 1
            step = float(step_t._data)
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            bias1 = 1 - beta1 ** step
            bias2_sqrt = math.sqrt(1 - beta2 ** step)
            if _fusable(data, grad, m, v) and not amsgrad:
                # one pass instead of NumPy's ten (the same operations, in order)
                _adam_kernel()(data.reshape(-1), grad.reshape(-1), m.reshape(-1),
                               v.reshape(-1), dt(1 - lr * wd if decoupled else 1),
                               dt(0 if decoupled else wd), dt(1 - beta1), dt(beta2),
                               dt(1 - beta2), dt(bias2_sqrt), dt(eps), dt(lr / bias1))
                self._bump(p)
                for key in state:
                    state[key]._vc.value += 1
                continue
            if wd != 0:
                if decoupled:
                    np.multiply(data, dt(1 - lr * wd), out=data)
                else:
                    grad = grad + dt(wd) * data
            m += (grad - m) * dt(1 - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += dt(1 - beta2) * grad * grad
            if amsgrad:
                vmax = state["max_exp_avg_sq"]._data
                np.maximum(vmax, v, out=vmax)
                v = vmax
            denom = np.sqrt(v) / dt(bias2_sqrt) + dt(eps)
            data -= dt(lr / bias1) * (m / denom)
            self._bump(p)
            for key in state:
                state[key]._vc.value += 1


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter 2019).

    Parameters
    ----------
    params : iterable
    lr : float, optional
    betas : tuple of float, optional
    eps : float, optional
    weight_decay : float, optional
        Default 1e-2: each step first scales the parameter by
        ``1 - lr * weight_decay``.
    amsgrad, maximize, foreach, capturable, differentiable, fused : optional
        As for :class:`Adam`.
    """

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused)

