"""``tracegrad.scipy.integrate``: the trapezoidal rule and ``odeint``, differentiable.

``trapezoid`` and ``cumulative_trapezoid`` with ``scipy.integrate``'s
signatures and values (``jax.scipy.integrate.trapezoid`` is the model),
written with ``tracegrad.numpy`` functions, so they are differentiable in
``y``, ``x`` and ``dx`` to any order and work under ``vmap`` and ``jit``.
"""
import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import numpy as tnp
from ..core import concrete_value, is_concrete
from ..numpy._core import _array
from ..tree_util import tree_leaves as tg_tree_leaves

__all__ = ["trapezoid", "cumulative_trapezoid", "odeint"]


def _float(y):
    if np.dtype(tnp.result_type(y)).kind not in "fc":
        return tnp.astype(y, np.float64)
    return y


def _spacing(y, x, dx, axis, name):
    """The interval widths along ``axis``, broadcastable against ``y[1:]``
    (``dx`` itself when ``x`` is None)."""
    if x is None:
        return dx
    x = _array(x)
    nd = y.ndim
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise ValueError(f"{name}: if given, length of x along axis must be the same "
                             f"as y ({x.shape[0]} and {y.shape[axis]})")
        d = tnp.subtract(x[1:], x[:-1])
        shape = [1] * nd
        shape[axis] = -1 if nd else 1
        return tnp.reshape(d, tuple(shape))
    if x.ndim != nd and name == "cumulative_trapezoid":
        raise ValueError("If given, shape of x must be 1-D or the same as y.")
    x = tnp.broadcast_to(x, tuple(y.shape))
    hi = tuple(slice(1, None) if a == axis else slice(None) for a in range(nd))
    lo = tuple(slice(None, -1) if a == axis else slice(None) for a in range(nd))
    return tnp.subtract(x[hi], x[lo])


def _panels(y, x, dx, axis, name):
    y = _float(_array(y))
    axis = normalize_axis_index(axis, y.ndim)
    d = _spacing(y, x, dx, axis, name)
    hi = tuple(slice(1, None) if a == axis else slice(None) for a in range(y.ndim))
    lo = tuple(slice(None, -1) if a == axis else slice(None) for a in range(y.ndim))
    return tnp.divide(tnp.multiply(d, tnp.add(y[hi], y[lo])), 2.0), axis


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate ``y`` along ``axis`` by the trapezoidal rule (``scipy.integrate.trapezoid``).

    ``sum_i (x[i+1] - x[i]) * (y[i+1] + y[i]) / 2``.

    Parameters
    ----------
    y : array_like or tracer
        Samples (integers are read as float64).
    x : array_like or tracer, optional
        Sample points: 1-D of ``y.shape[axis]`` entries, or an array
        broadcasting to ``y``'s shape.  Default: spacing ``dx``.
    dx : float or tracer
        The spacing when ``x`` is None.
    axis : int

    Returns
    -------
    array or tracer
        ``y``'s shape without ``axis``; 0 for fewer than two samples.
        Differentiable in ``y``, ``x`` and ``dx``.

    Raises
    ------
    ValueError
        A 1-D ``x`` whose length differs from ``y.shape[axis]``, or an ``x``
        that does not broadcast to ``y``.
    """
    panels, axis = _panels(y, x, dx, axis, "trapezoid")
    return tnp.sum(panels, axis=axis)


def cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None):
    """Running trapezoidal integral of ``y`` along ``axis``
    (``scipy.integrate.cumulative_trapezoid``).

    Parameters
    ----------
    y : array_like or tracer
        At least one sample along ``axis``.
    x : array_like or tracer, optional
        1-D sample points of ``y.shape[axis]`` entries, or an array of
        ``y``'s shape.  Default: spacing ``dx``.
    dx : float or tracer
        The spacing when ``x`` is None.
    axis : int
    initial : None or 0
        If 0, a zero is put in front of the result, which then has ``y``'s
        shape (SciPy allows no other value).

    Returns
    -------
    array or tracer
        ``y``'s shape with one sample fewer along ``axis`` (as many with
        ``initial=0``).  Differentiable in ``y``, ``x`` and ``dx``.

    Raises
    ------
    ValueError
        No sample along ``axis``, an ``x`` of the wrong shape, or
        ``initial`` other than None or 0.
    """
    y = _array(y)
    if y.shape[axis] == 0:
        raise ValueError("At least one point is required along `axis`.")
    if initial is not None:
        if not np.isscalar(initial):
            raise ValueError("`initial` parameter should be a scalar.")
        if initial != 0:
            raise ValueError("`initial` must be `None` or `0`.")
    panels, axis = _panels(y, x, dx, axis, "cumulative_trapezoid")
    res = tnp.cumsum(panels, axis=axis)
    if initial is not None:
        shape = list(res.shape)
        shape[axis] = 1
        res = tnp.concatenate([np.zeros(tuple(shape), tnp.result_type(res)), res], axis=axis)
    return res


# --------------------------------------------------------------------------
# odeint: Dormand-Prince 5(4), differentiated through its accepted steps

# The Dormand-Prince tableau (J. R. Dormand and P. J. Prince, "A family of
# embedded Runge-Kutta formulae", J. Comput. Appl. Math. 6, 1980; Hairer,
# Norsett and Wanner, Solving Ordinary Differential Equations I, II.5,
# table 5.2): nodes C, stage weights A, the 5th-order weights B (its last
# stage, at the new point, has weight 0) and B - B* for the error estimate.
_DP_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_DP_A = ((),
         (1 / 5,),
         (3 / 40, 9 / 40),
         (44 / 45, -56 / 15, 32 / 9),
         (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
         (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
         (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_DP_B = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
_DP_E = (71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40)


def _require_concrete(values):
    for v in tg_tree_leaves(values):
        if not is_concrete(v):
            raise TypeError(
                "tracegrad.scipy.integrate.odeint chooses its steps from concrete values, and "
                "got a staged or batched one (under jit or vmap): call odeint outside jit, "
                "or loop over the batch instead of vmap")


def odeint(func, y0, t, args=(), rtol=None, atol=None, hmax=0.0, mxstep=0, tfirst=False):
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y0`` at ``t[0]``, as
    ``scipy.integrate.odeint``, differentiably.

    Parameters
    ----------
    func : callable
        ``func(y, t, *args)`` (``func(t, y, *args)`` with ``tfirst``),
        returning an array of ``y``'s shape, written with tracegrad (or
        NumPy-protocol) functions.  It may close over traced values.
    y0 : array_like or tracer
        The initial state, any shape (SciPy: 1-D), real.
    t : array_like or tracer
        The times, 1-D, length ``n >= 1``, strictly increasing (or strictly
        decreasing), ``t[0]`` the time of ``y0``.
    args : tuple, optional
        Extra arguments of ``func``: arrays, tracers or constants.
    rtol, atol : float, optional
        Error tolerances per step (default ``1.49012e-8``, SciPy's): each
        accepted step's local error estimate ``e`` has ``rms(e / (atol +
        rtol max(|y|, |y_new|))) <= 1``.
    hmax : float, optional
        The largest step (0: no limit, SciPy's convention).
    mxstep : int, optional
        The most steps (accepted or rejected) per output interval (0: 500,
        SciPy's default).
    tfirst : bool, optional
        ``func(t, y, ...)`` instead of ``func(y, t, ...)``.

    Returns
    -------
    array or tracer
        Shape ``(n,) + y0.shape``: the solution at each ``t`` (row 0 is
        ``y0``), float64 (float32 for float32 inputs).  Differentiable in
        ``y0``, ``t``, ``args`` and anything ``func`` closes over, in
        forward and reverse mode and to any order.

    Raises
    ------
    ValueError
        If ``t`` is not 1-D or not strictly monotonic, or ``func`` returns
        an array of another shape.
    RuntimeError
        If an interval needs more than ``mxstep`` steps (a stiff problem or
        a singularity; SciPy warns and returns an inaccurate value).
    TypeError
        Under ``jit`` or ``vmap`` (the steps are chosen from concrete
        values), or for complex ``y0``.

    Notes
    -----
    The explicit Dormand-Prince 5(4) pair (Dormand and Prince, 1980) with
    local extrapolation, the starting step of Hairer, Norsett and Wanner
    (Solving ODEs I, II.4) and the step update ``h * clip(0.9 err**-1/5,
    0.2, 5)``; it suits non-stiff problems (SciPy's LSODA also switches to
    BDF for stiff ones).  Each step size is chosen from concrete values
    and held as a fixed fraction of its output interval, so the
    derivatives are those of the computed discrete solution ("discretize
    then differentiate", exact for it, and within the tolerances of the
    continuous sensitivities); HIPS autograd and ``jax.experimental.ode``
    integrate an adjoint system backwards instead, which stores less.
    """
    rtol = 1.49012e-8 if rtol is None else float(rtol)
    atol = 1.49012e-8 if atol is None else float(atol)
    mxstep = 500 if not mxstep else int(mxstep)
    hmax = np.inf if not hmax else float(hmax)
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    y0, t = _float(_array(y0)), _float(_array(t))
    if np.dtype(tnp.result_type(y0)).kind == "c":
        raise TypeError("tracegrad.scipy.integrate.odeint integrates real states, got complex y0 "
                        "(split it into real and imaginary parts)")
    _require_concrete((y0, t, args))
    tc = np.asarray(concrete_value(t), np.float64)
    if tc.ndim != 1 or tc.size == 0:
        raise ValueError(f"odeint needs t 1-D with at least one time, got shape {tc.shape}")
    steps = np.diff(tc)
    if steps.size and not (np.all(steps > 0) or np.all(steps < 0)):
        raise ValueError("odeint needs t strictly increasing or strictly decreasing")

    def f(y, time):
        dy = func(time, y, *args) if tfirst else func(y, time, *args)
        if tuple(tnp.shape(dy)) != tuple(tnp.shape(y)):
            raise ValueError(f"odeint: func returned shape {tnp.shape(dy)} for a state of "
                             f"shape {tnp.shape(y)}")
        return dy

    ys = [y0]
    y = y0
    h = None  # the concrete step, carried from interval to interval
    for i in range(tc.size - 1):
        y, h = _integrate_interval(f, y, t[i], t[i + 1], tc[i], tc[i + 1], h, rtol, atol,
                                   hmax, mxstep)
        ys.append(y)
    return tnp.stack(ys)


def _rms_error(err, y, y_new, rtol, atol):
    scale = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
    return float(np.sqrt(np.mean(np.square(err / scale)))) if err.size else 0.0


def _initial_step(f0, y, t0, direction, rtol, atol, f, length):
    """Hairer, Norsett and Wanner's starting step (Solving ODEs I, II.4), concrete."""
    scale = atol + rtol * np.abs(y)
    d0 = np.sqrt(np.mean(np.square(y / scale))) if y.size else 0.0
    d1 = np.sqrt(np.mean(np.square(f0 / scale))) if y.size else 0.0
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, length)
    f1 = np.asarray(concrete_value(f(y + direction * h0 * f0, t0 + direction * h0)))
    d2 = np.sqrt(np.mean(np.square((f1 - f0) / scale))) / h0 if y.size else 0.0
    h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** 0.2
    return min(100 * h0, h1, length)


def _integrate_interval(f, y, t0, t1, t0c, t1c, h, rtol, atol, hmax, mxstep):
    """``y`` at ``t1`` from ``y`` at ``t0``: steps of ``(t1 - t0) * fraction``
    (traced arithmetic) with the fractions chosen from concrete values."""
    length = abs(t1c - t0c)
    direction = 1.0 if t1c > t0c else -1.0
    span = tnp.subtract(t1, t0)
    s = 0.0  # the fraction of the interval done
    k1 = f(y, t0)
    if h is None:
        h = _initial_step(np.asarray(concrete_value(k1), np.float64),
                          np.asarray(concrete_value(y), np.float64), t0c, direction, rtol, atol,
                          f, length)
    for _ in range(mxstep):
        if s >= 1.0:
            return y, h
        h = min(h, hmax, length * (1.0 - s))
        last = h >= length * (1.0 - s) * (1.0 - 1e-12)
        frac = 1.0 - s if last else h / length
        hh = tnp.multiply(span, frac)
        time = tnp.add(t0, tnp.multiply(span, s))
        ks = [k1]
        for c, a in zip(_DP_C[1:], _DP_A[1:]):
            yi = y
            for aj, kj in zip(a, ks):
                if aj:
                    yi = tnp.add(yi, tnp.multiply(tnp.multiply(hh, aj), kj))
            ks.append(f(yi, tnp.add(time, tnp.multiply(hh, c))))
        y_new = yi  # the last stage's point is the 5th-order solution (B = A[6])
        err = sum(e * np.asarray(concrete_value(k), np.float64)
                  for e, k in zip(_DP_E, ks) if e) * (frac * length)
        yc = np.asarray(concrete_value(y), np.float64)
        ync = np.asarray(concrete_value(y_new), np.float64)
        e = _rms_error(np.asarray(err), yc, ync, rtol, atol)
        factor = 5.0 if e == 0.0 else min(5.0, max(0.2, 0.9 * e ** -0.2))
        if e <= 1.0:
            y, k1 = y_new, ks[-1]  # first same as last: the new point's slope
            s = 1.0 if last else s + frac
            h = h * factor if not last else max(h, (frac * length) * factor)
        else:
            if not np.isfinite(e):
                factor = 0.2
            h = h * factor
            if h < 1e-14 * max(1.0, abs(t0c), abs(t1c)):
                raise RuntimeError(f"odeint: the step fell below {h:.3g} near t = "
                                   f"{t0c + direction * s * length:g} (a singularity?)")
    if s >= 1.0:
        return y, h
    raise RuntimeError(f"odeint: more than mxstep={mxstep} steps between t = {t0c:g} and "
                       f"{t1c:g} (a stiff problem? raise mxstep or loosen rtol/atol)")
