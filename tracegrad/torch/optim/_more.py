"""``optim.RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``ASGD``
and ``LBFGS`` (PyTorch's API, update formulas and state layout).

Each optimizer follows :class:`.optimizer.Optimizer`'s conventions: the
update runs in place under ``no_grad`` on the parameter's NumPy data, in the
parameter's dtype, with PyTorch's operations in PyTorch's order (scalars
are cast to the parameter's dtype, as PyTorch's CPU kernels do), so float64
trajectories agree with PyTorch's to rounding and float32 ones nearly so.
The per-parameter state has PyTorch's keys, in PyTorch's order, with
``step`` (and NAdam's ``mu_product``, ASGD's ``eta`` and ``mu``) as float32
scalar tensors.
"""
import numpy as np

from .. import _grad_mode
from .._tensor import Tensor
from .optimizer import Optimizer, _check, _check_lr, _step_with_hooks

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "LBFGS"]


def _zeros_state(data):
    return Tensor._wrap(np.zeros_like(data))


def _scalar_state(value):
    """A float32 scalar tensor (PyTorch's ``step``-like state entries)."""
    return Tensor._wrap(np.array(value, dtype=np.float32))


def _advance(state):
    """Add one to ``state["step"]`` and return the new count as a float."""
    step_t = state["step"]
    step_t._data[...] += 1
    step_t._vc.value += 1
    return float(step_t._data)


def _lerp_(a, b, weight):
    """``a.lerp_(b, weight)`` with PyTorch's two-sided formula (exact at both ends)."""
    w = a.dtype.type(weight)
    if weight < 0.5:
        a += w * (b - a)
    else:
        a[...] = b - (b - a) * a.dtype.type(1 - weight)


def _touch(p, state):
    """Advance the version counters of ``p`` and of its state tensors."""
    p._vc.value += 1
    for v in state.values():
        if isinstance(v, Tensor):
            v._vc.value += 1


def _check_betas(betas):
    _check(0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
    _check(0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e), with momentum, centering and weight decay.

    Parameters
    ----------
    params : iterable
        See :class:`~.optimizer.Optimizer`.
    lr : float, optional
        Default 1e-2.
    alpha : float, optional
        Smoothing constant of the squared-gradient average (0.99).
    eps : float, optional
        Added to the denominator (1e-8).
    weight_decay : float, optional
        L2 penalty added to the gradient.
    momentum : float, optional
    centered : bool, optional
        Divide by an estimate of the gradient's variance (Graves 2013)
        instead of its second moment.
    capturable, foreach, differentiable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps``, ``momentum``, ``weight_decay`` or
        ``alpha``.

    Notes
    -----
    PyTorch's update: ``v = alpha v + (1 - alpha) g**2``; centered: ``m =
    lerp(m, g, 1 - alpha)``, ``avg = sqrt(v - m**2) + eps``, otherwise
    ``avg = sqrt(v) + eps``; with momentum ``b = momentum b + g / avg``,
    ``p -= lr b``, otherwise ``p -= lr g / avg``.  State: ``step``,
    ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg``
    (centered).
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= momentum, f"Invalid momentum value: {momentum}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= alpha, f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, alpha, eps = float(group["lr"]), group["alpha"], group["eps"]
        wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["square_avg"] = _zeros_state(data)
                if momentum > 0:
                    state["momentum_buffer"] = _zeros_state(data)
                if centered:
                    state["grad_avg"] = _zeros_state(data)
            _advance(state)
            if wd != 0:
                grad = grad + dt(wd) * data
            v = state["square_avg"]._data
            np.multiply(v, dt(alpha), out=v)
            v += dt(1 - alpha) * grad * grad
            if centered:
                m = state["grad_avg"]._data
                _lerp_(m, grad, 1 - alpha)
                avg = np.sqrt(v + dt(-1) * m * m)
            else:
                avg = np.sqrt(v)
            avg += dt(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]._data
                np.multiply(buf, dt(momentum), out=buf)
                buf += grad / avg
                data += dt(-lr) * buf
            else:
                data += dt(-lr) * (grad / avg)
            _touch(p, state)


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011), with learning-rate decay and weight decay.

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Default 1e-2.
    lr_decay : float, optional
        The rate at step ``t`` is ``lr / (1 + (t - 1) lr_decay)``.
    weight_decay : float, optional
    initial_accumulator_value : float, optional
        Starting value of the sum of squared gradients.
    eps : float, optional
        Default 1e-10.
    foreach, differentiable, fused : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``lr_decay``, ``weight_decay``,
        ``initial_accumulator_value`` or ``eps``.

    Notes
    -----
    ``s += g**2``, ``p -= clr g / (sqrt(s) + eps)``.  As in PyTorch, the
    state (``step``, ``sum``) of every parameter is created by the
    constructor, so ``state_dict()`` lists all of them before any step.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check(0.0 <= lr_decay, f"Invalid lr_decay value: {lr_decay}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= initial_accumulator_value,
               f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p):
        state = self.state[p]
        state["step"] = _scalar_state(0.0)
        init = self.defaults["initial_accumulator_value"]
        state["sum"] = Tensor._wrap(np.full_like(p._data, init))

    def _update_group(self, group):
        lr, lr_decay = float(group["lr"]), group["lr_decay"]
        wd, eps = group["weight_decay"], group["eps"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                self._init_state(p)
            step = _advance(state)
            if wd != 0:
                grad = grad + dt(wd) * data
            clr = lr / (1 + (step - 1) * lr_decay)
            s = state["sum"]._data
            s += dt(1) * grad * grad
            std = np.sqrt(s) + dt(eps)
            data += dt(-clr) * (grad / std)
            _touch(p, state)


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012).

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Scales the step (default 1.0).
    rho : float, optional
        Decay of the running averages (0.9).
    eps : float, optional
        Default 1e-6.
    weight_decay : float, optional
    foreach, capturable, differentiable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps`` or ``weight_decay``, or ``rho``
        outside ``[0, 1]``.

    Notes
    -----
    ``v = rho v + (1 - rho) g**2``, ``delta = sqrt(u + eps) / sqrt(v + eps)
    g``, ``u = rho u + (1 - rho) delta**2``, ``p -= lr delta``.  State:
    ``step``, ``square_avg``, ``acc_delta``.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        _check(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, rho, eps, wd = float(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["square_avg"] = _zeros_state(data)
                state["acc_delta"] = _zeros_state(data)
            _advance(state)
            if wd != 0:
                grad = grad + dt(wd) * data
            v, u = state["square_avg"]._data, state["acc_delta"]._data
            np.multiply(v, dt(rho), out=v)
            v += dt(1 - rho) * grad * grad
            std = np.sqrt(v + dt(eps))
            delta = np.sqrt(u + dt(eps))
            delta /= std
            delta *= grad
            np.multiply(u, dt(rho), out=u)
            u += dt(1 - rho) * delta * delta
            data += dt(-lr) * delta
            _touch(p, state)


class Adamax(Optimizer):
    """Adamax, Adam's infinity-norm variant (Kingma and Ba 2015, section 7.1).

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Default 2e-3.
    betas : tuple of float, optional
        (0.9, 0.999).
    eps : float, optional
        Default 1e-8.
    weight_decay : float, optional
    foreach, differentiable, capturable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps`` or ``weight_decay``, or a beta
        outside ``[0, 1)``.

    Notes
    -----
    ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 u, |g| + eps)``, ``p -=
    lr / (1 - beta1**t) m / u``.  State: ``step``, ``exp_avg``,
    ``exp_inf``.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, (beta1, beta2) = float(group["lr"]), group["betas"]
        eps, wd = group["eps"], group["weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["exp_avg"] = _zeros_state(data)
                state["exp_inf"] = _zeros_state(data)
            step = _advance(state)
            if wd != 0:
                grad = grad + dt(wd) * data
            m, u = state["exp_avg"]._data, state["exp_inf"]._data
            _lerp_(m, grad, 1 - beta1)
            np.multiply(u, dt(beta2), out=u)
            np.maximum(u, np.abs(grad) + dt(eps), out=u)
            clr = lr / (1 - beta1 ** step)
            data += dt(-clr) * (m / u)
            _touch(p, state)


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum (Dozat 2016), PyTorch's momentum schedule.

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Default 2e-3.
    betas : tuple of float, optional
    eps : float, optional
    weight_decay : float, optional
    momentum_decay : float, optional
        ``psi`` of the schedule ``mu_t = beta1 (1 - 0.96**(t psi) / 2)``
        (default 4e-3).
    decoupled_weight_decay : bool, optional
        Decay the parameter (``p *= 1 - lr wd``, NAdamW) instead of adding
        ``wd p`` to the gradient.
    foreach, capturable, differentiable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps``, ``weight_decay`` or
        ``momentum_decay``, or a beta outside ``[0, 1)``.

    Notes
    -----
    With ``P_t = mu_1 ... mu_t`` (state ``mu_product``, a float32 scalar as
    in PyTorch) and ``denom = sqrt(v / (1 - beta2**t)) + eps``: ``p -= lr
    (1 - mu_t) / (1 - P_t) g / denom + lr mu_{t+1} / (1 - P_t mu_{t+1}) m /
    denom``.  State: ``step``, ``mu_product``, ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        _check(0.0 <= momentum_decay, f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, (beta1, beta2) = float(group["lr"]), group["betas"]
        eps, wd, psi = group["eps"], group["weight_decay"], group["momentum_decay"]
        decoupled = group["decoupled_weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["mu_product"] = _scalar_state(1.0)
                state["exp_avg"] = _zeros_state(data)
                state["exp_avg_sq"] = _zeros_state(data)
            step = _advance(state)
            bias2 = 1 - beta2 ** step
            if wd != 0:
                if decoupled:
                    np.multiply(data, dt(1 - lr * wd), out=data)
                else:
                    grad = grad + dt(wd) * data
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * psi))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * psi))
            prod = state["mu_product"]._data
            prod[...] = prod * prod.dtype.type(mu)
            prod_value = float(prod)
            prod_next = prod_value * mu_next
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            _lerp_(m, grad, 1 - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += dt(1 - beta2) * grad * grad
            denom = np.sqrt(v / dt(bias2))
            denom += dt(eps)
            data += dt(-lr * (1.0 - mu) / (1.0 - prod_value)) * (grad / denom)
            data += dt((-lr * mu_next) / (1.0 - prod_next)) * (m / denom)
            _touch(p, state)


class RAdam(Optimizer):
    """RAdam: Adam with a rectified adaptive rate (Liu et al. 2020).

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Default 1e-3.
    betas : tuple of float, optional
    eps : float, optional
    weight_decay : float, optional
    decoupled_weight_decay : bool, optional
        ``p *= 1 - lr wd`` instead of adding ``wd p`` to the gradient.
    foreach, capturable, differentiable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr``, ``eps`` or ``weight_decay``, or a beta
        outside ``[0, 1)``.

    Notes
    -----
    With ``rho_inf = 2 / (1 - beta2) - 1`` and ``rho_t = rho_inf - 2 t
    beta2**t / (1 - beta2**t)``: while ``rho_t <= 5`` the step is SGD with
    momentum on the bias-corrected ``m``; after, it is Adam's step times the
    rectification ``sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)
    (rho_inf - 2) rho_t))``.  State: ``step``, ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_lr(lr)
        _check(0.0 <= eps, f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, (beta1, beta2) = float(group["lr"]), group["betas"]
        eps, wd, decoupled = group["eps"], group["weight_decay"], group["decoupled_weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["exp_avg"] = _zeros_state(data)
                state["exp_avg_sq"] = _zeros_state(data)
            step = _advance(state)
            if wd != 0:
                if decoupled:
                    np.multiply(data, dt(1 - lr * wd), out=data)
                else:
                    grad = grad + dt(wd) * data
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            _lerp_(m, grad, 1 - beta1)
            np.multiply(v, dt(beta2), out=v)
            v += dt(1 - beta2) * grad * grad
            bias1 = 1 - beta1 ** step
            bias2 = 1 - beta2 ** step
            corrected = m / dt(bias1)
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive = dt(bias2 ** 0.5) / (np.sqrt(v) + dt(eps))
                data += dt(-1.0) * (corrected * dt(lr) * adaptive * dt(rect))
            else:
                data += dt(-1.0) * (corrected * dt(lr))
            _touch(p, state)


class ASGD(Optimizer):
    """Averaged SGD (Polyak and Juditsky 1992), PyTorch's variant.

    Parameters
    ----------
    params : iterable
    lr : float, optional
        Default 1e-2.
    lambd : float, optional
        Decay term (1e-4).
    alpha : float, optional
        Power of the rate's decay (0.75).
    t0 : float, optional
        The step at which averaging starts (1e6).
    weight_decay : float, optional
    foreach, differentiable, capturable : optional
        Accepted and stored for compatibility (no effect).
    maximize : bool, optional

    Raises
    ------
    ValueError
        For a negative ``lr`` or ``weight_decay``.

    Notes
    -----
    ``p *= 1 - lambd eta``, ``p -= eta g``; the average ``ax`` moves to
    ``p`` by ``mu`` (a copy while ``mu == 1``); then ``eta = lr / (1 + lambd
    lr t)**alpha`` and ``mu = 1 / max(1, t - t0)``.  State: ``step``,
    ``eta``, ``mu`` (float32 scalars) and ``ax``.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, lambd, alpha = float(group["lr"]), group["lambd"], group["alpha"]
        t0, wd = group["t0"], group["weight_decay"]
        for p, data, grad in self._params_with_grad(group):
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = _scalar_state(0.0)
                state["eta"] = _scalar_state(lr)
                state["mu"] = _scalar_state(1.0)
                state["ax"] = _zeros_state(data)
            step = _advance(state)
            if wd != 0:
                grad = grad + dt(wd) * data
            eta = float(state["eta"]._data)
            np.multiply(data, dt(1 - lambd * eta), out=data)
            data += dt(-eta) * grad
            mu = state["mu"]._data
            ax = state["ax"]._data
            if float(mu) != 1:
                ax += (data - ax) * mu.astype(data.dtype)
            else:
                ax[...] = data
            state["eta"]._data[...] = np.float32(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"]._data[...] = np.float32(1 / max(1, step - t0))
            _touch(p, state)


# ---------------------------------------------------------------------------
# L-BFGS


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)``, clipped to bounds.

    The midpoint of the bounds when the cubic has no real minimizer
    (Nocedal and Wright 2006, eq. 3.59, as in minFunc and PyTorch).
    """
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search for a step ``t`` along ``d`` meeting the strong Wolfe conditions.

    Bracketing then zoom with cubic interpolation (Nocedal and Wright 2006,
    algorithms 3.5 and 3.6), in PyTorch's (minFunc's) formulation.
    Returns ``(f_new, g_new, t, evaluations)``.
    """
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        previous = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


_SPLIT = 134217729.0  # 2**27 + 1, Dekker's splitting constant for float64


def _axpy(y, alpha, x):
    """``y + alpha * x`` rounded once, as PyTorch's ``y.add(x, alpha=alpha)`` (an FMA on CPU).

    float32: exact in float64, then rounded.  float64: Dekker's exact
    product and Knuth's exact sum (Ogita, Rump and Oishi 2005), correctly
    rounded except in rare ties; plain arithmetic where the split would
    overflow.
    """
    if y.dtype == np.float32:
        return (np.float64(alpha) * x.astype(np.float64) + y).astype(np.float32)
    a = np.float64(alpha)
    x = np.asarray(x, np.float64)
    p = a * x
    ca = _SPLIT * a
    a_hi = ca - (ca - a)
    a_lo = a - a_hi
    cx = _SPLIT * x
    x_hi = cx - (cx - x)
    x_lo = x - x_hi
    p_err = ((a_hi * x_hi - p) + a_hi * x_lo + a_lo * x_hi) + a_lo * x_lo
    s = y + p
    z = s - y
    s_err = (y - (s - z)) + (p - z)
    out = s + (s_err + p_err)
    bad = ~np.isfinite(out)
    if bad.any():
        out = np.where(bad, y + p, out)
    return out


def _to_state(value):
    """An internal L-BFGS value as PyTorch stores it (arrays and NumPy scalars as tensors)."""
    if isinstance(value, list):
        return [_to_state(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._wrap(np.array(value))
    return value


def _from_state(value):
    if isinstance(value, list):
        return [_from_state(v) for v in value]
    if isinstance(value, Tensor):
        data = value._data
        return data[()] if data.ndim == 0 else data.copy()
    return value


class LBFGS(Optimizer):
    """L-BFGS (Nocedal 1980), with an optional strong-Wolfe line search; PyTorch's algorithm.

    Parameters
    ----------
    params : iterable
        One group only.
    lr : float, optional
        Step length (default 1); the first iteration scales it by
        ``min(1, 1 / |g|_1)``.
    max_iter : int, optional
        Iterations per ``step`` (20).
    max_eval : int, optional
        Closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
    tolerance_grad : float, optional
        Stop when ``max |g| <= tolerance_grad`` (1e-7).
    tolerance_change : float, optional
        Stop when the step or the loss changes by less (1e-9).
    history_size : int, optional
        Number of correction pairs kept (100).
    line_search_fn : None or "strong_wolfe", optional

    Raises
    ------
    ValueError
        For a negative ``lr``, or several parameter groups.
    RuntimeError
        At ``step``, for a ``line_search_fn`` other than ``"strong_wolfe"``.

    Notes
    -----
    The two-loop recursion (Nocedal and Wright 2006, algorithm 7.4) on the
    flattened gradient of all parameters, skipping pairs with ``y.s <=
    1e-10``, with ``H_0 = (y.s / y.y) I``.  The state of the first parameter
    holds PyTorch's entries (``func_evals``, ``n_iter``, ``d``, ``t``,
    ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``,
    ``prev_loss``, ``al``).
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        views = []
        for p in self._params:
            g = p._grad
            views.append(np.zeros(p._data.size, p._data.dtype) if g is None
                         else g._data.reshape(-1))
        return np.concatenate(views)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            data = p._data
            n = data.size
            data[...] = _axpy(data, step_size, update[offset:offset + n].reshape(data.shape))
            p._vc.value += 1
            offset += n

    def _evaluate(self, closure):
        with _grad_mode.enable_grad():
            return closure()

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(self._evaluate(closure))
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p._data[...] = saved
            p._vc.value += 1
        return loss, flat_grad

    @_step_with_hooks
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations.

        Parameters
        ----------
        closure : callable
            Zeroes the gradients, evaluates the loss, calls ``backward()``
            and returns the loss (called with grad mode on).

        Returns
        -------
        Tensor
            The loss of the first evaluation.
        """
        with _grad_mode.no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = _from_state(state.get("d")), _from_state(state.get("t"))
        old_dirs, old_stps = _from_state(state.get("old_dirs")), _from_state(state.get("old_stps"))
        ro, H_diag = _from_state(state.get("ro")), _from_state(state.get("H_diag"))
        prev_flat_grad = _from_state(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        opt_cond = False

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * d.dtype.type(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = _from_state(state["al"])
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = _axpy(q, -al[i], old_dirs[i])
                r = q * q.dtype.type(H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = _axpy(r, al[i] - be_i, old_stps[i])
                d = r
                state["al"] = _to_state(al)

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, evals = _strong_wolfe(obj_func, x_init, t, d, loss,
                                                          flat_grad, gtd,
                                                          max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * d.dtype.type(t)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _to_state(d)
        state["t"] = _to_state(t)
        state["old_dirs"] = _to_state(old_dirs)
        state["old_stps"] = _to_state(old_stps)
        state["ro"] = _to_state(ro)
        state["H_diag"] = _to_state(H_diag)
        state["prev_flat_grad"] = _to_state(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss

