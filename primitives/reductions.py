"""Reduction and scan primitives: max/min/prod reductions, cumulative sums and
products, a first-order linear recurrence, arg-reductions and logical ones.

``reduce_sum`` itself lives in ``structural.py`` (every broadcasting rule
needs it); everything else that collapses or scans an axis is declared here,
one block per primitive with its impl, abstract eval, JVP and VJP.

Derivative design
-----------------
* ``reduce_max``/``reduce_min`` split the derivative evenly among tied
  extrema, in both modes: the tangent is ``sum(t * mask) / count`` and the
  cotangent ``ct * mask / count``, with ``mask = (x == ans)`` (the
  convention of TensorFlow's and JAX's max gradients).  Both run as fused
  Numba kernels (mask, count and scale without temporaries),
  ``extremum_tangent`` and ``extremum_grad``, which are primitives of their
  own and each other's transposes.
* ``cumprod`` and ``reduce_prod`` are differentiated without ever dividing by
  ``x`` (so zeros in the input are handled exactly, to any order) through
  ``linear_recurrence``: ``y[k] = a[k] * y[k-1] + b[k]``.  The JVP of a
  recurrence is a recurrence with the same ``a``, and its VJP is the reversed
  recurrence with ``a`` shifted by one position (the transpose of a
  bidiagonal solve).  The product of all elements but one is the product of
  the exclusive cumulative products from the left and from the right (the
  division-free scheme of TensorFlow's ``reduce_prod`` gradient).  Everything
  is O(n).
"""
import math

import numpy as np

from .core import (
    Primitive,
    ShapedArray,
    def_nondifferentiable,
    defjvp,
    defjvp_linear,
    defvjp,
    dtype_of,
    shape_of,
)
from .elementwise import add, mul
from .batching import defbatch_axes
from .conv import window_kernels
from .kernels import FLOAT_DTYPES, kernel
from .structural import _expand_reduced, pad, reduce_sum, reshape, slice, transpose

__all__ = [
    "reduce_max",
    "reduce_min",
    "extremum_grad",
    "extremum_tangent",
    "reduce_prod",
    "cumsum",
    "cumprod",
    "linear_recurrence",
    "shift",
    "argmax",
    "argmin",
    "reduce_all",
    "reduce_any",
]


def _reduced_shape(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _check_axes(ndim, axes):
    if any(not 0 <= a < ndim for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(
            f"reduction axes {axes} are invalid for an array of rank {ndim}: "
            "pass distinct non-negative axes below the rank"
        )


def _norm_axes(axes):
    return tuple(sorted(int(a) for a in axes))


def _blocks(shape, axes):
    """Lay ``shape`` out as ``(pre, n, post)`` with the ``axes`` in the middle.

    Returns ``(perm, (pre, n, post))``: ``perm`` is None when the reduced
    axes are one contiguous block (then a plain reshape suffices), else the
    transposition that moves them to the end (and ``post == 1``).
    """
    prod = math.prod
    if not axes:
        return None, (prod(shape), 1, 1)
    lo, hi = axes[0], axes[-1] + 1
    if hi - lo == len(axes):
        return None, (prod(shape[:lo]), prod(shape[lo:hi]), prod(shape[hi:]))
    kept = [i for i in range(len(shape)) if i not in axes]
    perm = tuple(kept) + tuple(axes)
    return perm, (prod([shape[i] for i in kept]), prod([shape[i] for i in axes]), 1)


def _to_blocks(x, layout, dtype):
    """``x`` as a C-contiguous ``(pre, n, post)`` array of ``dtype``."""
    perm, dims = layout
    if perm is not None:
        x = np.transpose(x, perm)
    return np.ascontiguousarray(x, dtype=dtype).reshape(dims)


def _from_blocks(out3, shape, layout):
    """Undo :func:`_to_blocks` for an array of the full input ``shape``."""
    perm = layout[0]
    if perm is None:
        return out3.reshape(shape)
    return np.transpose(out3.reshape([shape[i] for i in perm]), np.argsort(perm))


# ==========================================================================
# reduce_max / reduce_min

def _extremum_prim(name, np_fn):
    prim = Primitive(name)
    defbatch_axes(prim)

    @prim.def_impl
    def impl(x, *, axes):
        return np_fn(x, axis=axes)

    @prim.def_abstract_eval
    def aval(x, *, axes):
        _check_axes(x.ndim, axes)
        if axes and any(x.shape[a] == 0 for a in axes):
            raise ValueError(
                f"zero-size array to reduction operation {name} which has no identity "
                f"(shape {x.shape}, axes {axes}); pass initial= to reduce empty axes"
            )
        return ShapedArray(_reduced_shape(x.shape, axes), x.dtype)

    defjvp(prim, lambda t, ans, x, *, axes: extremum_tangent(t, x, ans, axes))
    defvjp(prim, lambda ct, ans, x, *, axes: extremum_grad(ct, x, ans, axes))
    return prim


reduce_max_p = _extremum_prim("reduce_max", np.max)
reduce_max_p.torch_name = "AmaxBackward0"
reduce_min_p = _extremum_prim("reduce_min", np.min)
reduce_min_p.torch_name = "AminBackward0"


def reduce_max(x, axes):
    """Maximum of ``x`` over ``axes`` (a tuple of non-negative ints).

    The derivative is split evenly among tied maxima: with ``k`` elements
    equal to the maximum, each receives ``1/k`` of the cotangent (and the
    tangent is the mean of their tangents).  NaN propagates, and NaN
    elements share the derivative when the result is NaN.
    """
    axes = _norm_axes(axes)
    _check_axes(len(shape_of(x)), axes)
    return reduce_max_p.bind(x, axes=axes)


def reduce_min(x, axes):
    """Minimum of ``x`` over ``axes``; ties share the derivative as in :func:`reduce_max`."""
    axes = _norm_axes(axes)
    _check_axes(len(shape_of(x)), axes)
    return reduce_min_p.bind(x, axes=axes)


# --------------------------------------------------------------------------
# extremum_grad / extremum_tangent: the tie-splitting rules, fused.
# Both take the mask ``x == ans`` (or both NaN) and its count along ``axes``;
# they are linear in their first argument, piecewise constant in x and ans
# (no derivative there), and each is the other's transpose.

@kernel
def _extremum_grad_kernel(ct, x, ans, out, scale):
    # out[i, k, j] = ct[i, j] / count[i, j] where x[i, k, j] ties ans[i, j].
    # Inner loops are branch-free (selects) so LLVM can vectorize them; a
    # tie is x == ans, or both NaN.
    pre, n, post = x.shape
    if post == 1:  # reduction over trailing axes: scalar count per row
        for i in range(pre):
            m = ans[i, 0]
            m_nan = m != m
            c = 0
            for k in range(n):
                v = x[i, k, 0]
                c += 1 if (v == m) | (m_nan & (v != v)) else 0
            s = ct[i, 0] / c
            for k in range(n):
                v = x[i, k, 0]
                out[i, k, 0] = s if (v == m) | (m_nan & (v != v)) else 0.0
        return
    for i in range(pre):
        for j in range(post):
            scale[j] = 0.0
        for k in range(n):
            for j in range(post):
                v = x[i, k, j]
                m = ans[i, j]
                scale[j] += 1.0 if (v == m) | ((m != m) & (v != v)) else 0.0
        for j in range(post):
            scale[j] = ct[i, j] / scale[j]
        for k in range(n):
            for j in range(post):
                v = x[i, k, j]
                m = ans[i, j]
                out[i, k, j] = scale[j] if (v == m) | ((m != m) & (v != v)) else 0.0


@kernel
def _extremum_tangent_kernel(t, x, ans, out, count):
    # out[i, j] = mean of t[i, k, j] over the k where x[i, k, j] ties ans[i, j]
    pre, n, post = x.shape
    if post == 1:
        for i in range(pre):
            m = ans[i, 0]
            m_nan = m != m
            c = 0
            acc = 0.0
            for k in range(n):
                v = x[i, k, 0]
                tie = (v == m) | (m_nan & (v != v))
                c += 1 if tie else 0
                acc += t[i, k, 0] if tie else 0.0
            out[i, 0] = acc / c
        return
    for i in range(pre):
        for j in range(post):
            out[i, j] = 0.0
            count[j] = 0.0
        for k in range(n):
            for j in range(post):
                v = x[i, k, j]
                m = ans[i, j]
                tie = (v == m) | ((m != m) & (v != v))
                out[i, j] += t[i, k, j] if tie else 0.0
                count[j] += 1.0 if tie else 0.0
        for j in range(post):
            out[i, j] /= count[j]


def _tie_mask(x, ans, axes):
    """NumPy fallback: boolean tie mask and its count (keepdims) along ``axes``."""
    a = np.expand_dims(ans, axes)
    with np.errstate(invalid="ignore"):
        mask = (x == a) | (np.isnan(x) & np.isnan(a))
    return mask, np.sum(mask, axis=axes, keepdims=True)


def _run_tie_kernel(kern, v, x, ans, axes, spread):
    """Lay ``v``/``x``/``ans`` out as ``(pre, n, post)`` blocks and run ``kern``.

    ``spread`` is True for ``extremum_grad`` (``v`` has the reduced shape,
    the result ``x``'s) and False for ``extremum_tangent`` (the reverse).
    Returns None when the kernel does not apply (non-float dtypes, empty).
    """
    dt = v.dtype
    if dt not in FLOAT_DTYPES or x.dtype not in FLOAT_DTYPES or not x.size:
        return None
    layout = _blocks(x.shape, axes)
    x3 = _to_blocks(x, layout, x.dtype)
    pre, n, post = x3.shape
    small = (pre, post)
    out = np.empty(x3.shape if spread else small, dt)
    v = np.ascontiguousarray(v, dt).reshape(small) if spread else _to_blocks(v, layout, dt)
    kern(v, x3, np.ascontiguousarray(ans, x.dtype).reshape(small), out, np.empty(post, dt))
    if spread:
        return _from_blocks(out, x.shape, layout)
    return out.reshape(np.shape(ans))[()]


def _tie_primitive(name, kern, spread, numpy_fallback):
    """Declare ``extremum_grad`` or ``extremum_tangent``.

    Both are linear in their first operand and piecewise constant (no
    derivative) in ``x`` and ``ans``; each one's JVP is itself and its VJP
    is the other one (they are transposes of each other).
    """
    prim = Primitive(name)
    defbatch_axes(prim)

    @prim.def_impl
    def impl(v, x, ans, *, axes):
        v, x, ans = np.asarray(v), np.asarray(x), np.asarray(ans)
        out = _run_tie_kernel(kern, v, x, ans, axes, spread)
        if out is None:
            mask, count = _tie_mask(x, ans, axes)
            out = np.asarray(numpy_fallback(v, mask, count, axes)).astype(v.dtype)[()]
        return out

    impl.__doc__ = (
        "One fused Numba kernel for float32/float64: a count pass and a write "
        "pass with branch-free inner loops.  It beats the NumPy composition "
        "(compare, NaN test, count, divide, multiply, with boolean temporaries) "
        "2-13x at 16, 1e3 and 1e6 elements (README kernel table).  Other dtypes "
        "use that NumPy composition."
    )

    @prim.def_abstract_eval
    def aval(v, x, ans, *, axes):
        return ShapedArray(x.shape if spread else ans.shape, v.dtype)

    this = extremum_grad if spread else extremum_tangent
    other = extremum_tangent if spread else extremum_grad
    defjvp(prim, lambda g, out, v, x, ans, *, axes: this(g, x, ans, axes))
    defvjp(prim, lambda c, out, v, x, ans, *, axes: other(c, x, ans, axes), None, None)
    return prim


def extremum_grad(ct, x, ans, axes):
    """Cotangent of ``reduce_max``/``reduce_min``: ``ct`` shared among ties.

    Parameters
    ----------
    ct : array, shape ``ans.shape``
        Cotangent of the reduction's result.
    x : array
        The reduction's input.
    ans : array
        The reduction's result (``x``'s max or min over ``axes``).
    axes : tuple of int

    Returns
    -------
    array, shape ``x.shape``, dtype of ``ct``
        ``ct / count`` where ``x == ans`` (or both are NaN), else 0.
    """
    return extremum_grad_p.bind(ct, x, ans, axes=_norm_axes(axes))


def extremum_tangent(t, x, ans, axes):
    """Tangent of ``reduce_max``/``reduce_min``: the mean of ``t`` over ties.

    Parameters
    ----------
    t : array, shape ``x.shape``
        Tangent of the reduction's input.
    x, ans : arrays
        The reduction's input and result.
    axes : tuple of int

    Returns
    -------
    array, shape ``ans.shape``, dtype of ``t``
        ``sum(t * mask, axes) / count`` with ``mask = (x == ans)``.
    """
    return extremum_tangent_p.bind(t, x, ans, axes=_norm_axes(axes))


extremum_grad_p = _tie_primitive(
    "extremum_grad", _extremum_grad_kernel, True,
    lambda ct, mask, count, axes: mask * (np.expand_dims(ct, axes) / count),
)
extremum_tangent_p = _tie_primitive(
    "extremum_tangent", _extremum_tangent_kernel, False,
    lambda t, mask, count, axes: np.sum(np.where(mask, t, 0), axis=axes)
    / np.squeeze(count, axes),
)


# ==========================================================================
# shift: move every element one step along an axis, filling the gap

def shift(x, axis, step, fill=0.0):
    """Shift ``x`` by one position along ``axis``.

    ``step=+1`` gives ``out[k] = x[k-1]`` and ``out[0] = fill``; ``step=-1``
    gives ``out[k] = x[k+1]`` and ``out[-1] = fill``.  Built from ``slice``
    and ``pad``, so it is differentiable to any order.
    """
    shape = shape_of(x)
    n = shape[axis]
    starts = [0] * len(shape)
    limits = list(shape)
    config = [(0, 0, 0)] * len(shape)
    if step > 0:
        limits[axis] = max(n - 1, 0)
        config[axis] = (1, 0, 0)
    else:
        starts[axis] = min(1, n)
        config[axis] = (0, 1, 0)
    if n == 0:
        return x
    return pad(slice(x, starts, limits), config, fill)


# ==========================================================================
# linear_recurrence: y[k] = a[k] * y[k-1] + b[k] along an axis

@kernel
def _recurrence_kernel(a, b, out, reverse):
    # out[i, k, :] = a[i, k, :] * out[i, k -/+ 1, :] + b[i, k, :] down the
    # middle axis of (pre, n, post) blocks; the inner loop runs over the
    # contiguous trailing block, so it vectorizes.  (_scan_kernel below is the
    # same loop without `a`: Numba kernels cannot share a loop body cheaply.)
    pre, n, post = a.shape
    for i in range(pre):
        for kk in range(n):
            k = n - 1 - kk if reverse else kk
            if kk == 0:
                for j in range(post):
                    out[i, k, j] = b[i, k, j]
            else:
                p = k + 1 if reverse else k - 1
                for j in range(post):
                    out[i, k, j] = a[i, k, j] * out[i, p, j] + b[i, k, j]


linear_recurrence_p = Primitive("linear_recurrence")
defbatch_axes(linear_recurrence_p, "axis")


@linear_recurrence_p.def_impl
def _linear_recurrence_impl(a, b, *, axis, reverse):
    """Sequential scan; a Numba kernel for float32/float64 (NumPy has no
    equivalent), a NumPy loop over the scanned axis for other dtypes."""
    a, b = np.asarray(a), np.asarray(b)
    dt = np.result_type(a, b)
    shape = a.shape
    if b.shape != shape:
        shape = np.broadcast_shapes(a.shape, b.shape)
        a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if not a.size:
        return np.zeros(shape, dt)
    if dt in FLOAT_DTYPES:
        layout = _blocks(shape, (axis,))
        a3 = _to_blocks(a, layout, dt)
        out = np.empty(a3.shape, dt)
        _recurrence_kernel(a3, _to_blocks(b, layout, dt), out, reverse)
        return out.reshape(shape)
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    out = np.empty(a.shape, dt)
    order = range(a.shape[0] - 1, -1, -1) if reverse else range(a.shape[0])
    prev = None
    for k in order:
        out[k] = b[k] if prev is None else a[k] * out[prev] + b[k]
        prev = k
    return np.moveaxis(out, 0, axis)


@linear_recurrence_p.def_abstract_eval
def _linear_recurrence_aval(a, b, *, axis, reverse):
    return ShapedArray(np.broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, b.dtype))


def _recurrence_jvp(primals, tangents, *, axis, reverse):
    # dy[k] = a[k] dy[k-1] + (da[k] y[k-1] + db[k]): the same recurrence
    a, b = primals
    da, db = tangents
    y = linear_recurrence(a, b, axis, reverse)
    step = -1 if reverse else 1
    rhs = None if da is None else mul(da, shift(y, axis, step))
    if db is not None:
        rhs = db if rhs is None else add(rhs, db)
    if rhs is None:
        return y, None
    return y, linear_recurrence(a, rhs, axis, reverse)


linear_recurrence_p.jvp = _recurrence_jvp


def _recurrence_adjoint(ct, a, axis, reverse):
    # y = L^-1 b with L unit bidiagonal (-a[k] below the diagonal), so the
    # cotangent of b is L^-T ct: the reversed recurrence with a shifted by one.
    step = -1 if reverse else 1
    return linear_recurrence(shift(a, axis, -step), ct, axis, not reverse)


defvjp(
    linear_recurrence_p,
    lambda ct, y, a, b, *, axis, reverse: mul(
        _recurrence_adjoint(ct, a, axis, reverse), shift(y, axis, -1 if reverse else 1)
    ),
    lambda ct, y, a, b, *, axis, reverse: _recurrence_adjoint(ct, a, axis, reverse),
)


def linear_recurrence(a, b, axis, reverse=False):
    """First-order linear recurrence along ``axis``.

    Computes ``y[0] = b[0]`` and ``y[k] = a[k] * y[k-1] + b[k]`` (with
    ``reverse=True`` the scan runs from the last position:
    ``y[k] = a[k] * y[k+1] + b[k]``).

    Parameters
    ----------
    a, b : arrays of the same shape (float32/float64 use a Numba kernel)
    axis : int
        Non-negative axis to scan.
    reverse : bool

    Returns
    -------
    array of the common shape and dtype

    Notes
    -----
    The JVP is the same recurrence applied to ``da * y[k-1] + db``; the VJP
    with respect to ``b`` is the reversed recurrence with coefficients
    ``a[k+1]`` (the transpose of the bidiagonal system), and with respect to
    ``a`` it is that times ``y[k-1]``.  No division anywhere.
    """
    return linear_recurrence_p.bind(a, b, axis=int(axis), reverse=bool(reverse))


# ==========================================================================
# cumsum / cumprod along one axis (optionally from the end)

@kernel
def _scan_kernel(x, out, reverse, product):
    # out[i, k, :] = out[i, k -/+ 1, :] (* or +) x[i, k, :], as _recurrence_kernel
    pre, n, post = x.shape
    for i in range(pre):
        for kk in range(n):
            k = n - 1 - kk if reverse else kk
            if kk == 0:
                for j in range(post):
                    out[i, k, j] = x[i, k, j]
            else:
                p = k + 1 if reverse else k - 1
                if product:
                    for j in range(post):
                        out[i, k, j] = out[i, p, j] * x[i, k, j]
                else:
                    for j in range(post):
                        out[i, k, j] = out[i, p, j] + x[i, k, j]


def _scan_impl(np_fn, product):
    def impl(x, *, axis, reverse):
        """Scan along ``axis``.  Along a non-trailing axis of a float array a
        Numba kernel whose inner loop runs over the contiguous trailing block
        (2-7x faster than NumPy's accumulate there); along the trailing axis
        NumPy's own loop, which is as fast or faster (kernel 0.75-1.0x at 1e6)."""
        x = np.asarray(x)
        shape = x.shape
        post = math.prod(shape[axis + 1:])
        if post > 1 and x.dtype in FLOAT_DTYPES and x.size:
            x3 = np.ascontiguousarray(x).reshape(math.prod(shape[:axis]), shape[axis], post)
            out = np.empty(x3.shape, x.dtype)
            _scan_kernel(x3, out, reverse, product)
            return out.reshape(shape)
        if reverse:
            return np.flip(np_fn(np.flip(x, axis), axis=axis), axis)
        return np_fn(x, axis=axis)

    return impl


def _scan_aval(np_fn):
    def aval(x, *, axis, reverse):
        return ShapedArray(x.shape, np_fn(np.zeros((1,), x.dtype)).dtype)

    return aval


cumsum_p = Primitive("cumsum")
cumsum_p.reads = ((), False)
defbatch_axes(cumsum_p, "axis")
cumsum_p.def_impl(_scan_impl(np.cumsum, False))
cumsum_p.def_abstract_eval(_scan_aval(np.cumsum))
defjvp_linear(cumsum_p)
defvjp(cumsum_p, lambda ct, ans, x, *, axis, reverse: cumsum(ct, axis, not reverse))


def cumsum(x, axis, reverse=False):
    """Cumulative sum along ``axis`` (from the end if ``reverse``); NumPy's
    ``cumsum`` impl and dtype (ints and bools accumulate in int64)."""
    return cumsum_p.bind(x, axis=int(axis), reverse=bool(reverse))


cumprod_p = Primitive("cumprod")
defbatch_axes(cumprod_p, "axis")
cumprod_p.def_impl(_scan_impl(np.cumprod, True))
cumprod_p.def_abstract_eval(_scan_aval(np.cumprod))


def _exclusive(y, axis, reverse):
    """Exclusive cumulative product from the inclusive one ``y``."""
    return shift(y, axis, -1 if reverse else 1, 1.0)


# With y[k] = x[k] y[k-1] and y[-1] = 1:  dy[k] = x[k] dy[k-1] + dx[k] y[k-1].
defjvp(
    cumprod_p,
    lambda t, y, x, *, axis, reverse: linear_recurrence(
        x, mul(t, _exclusive(y, axis, reverse)), axis, reverse
    ),
)
defvjp(
    cumprod_p,
    lambda ct, y, x, *, axis, reverse: mul(
        _recurrence_adjoint(ct, x, axis, reverse), _exclusive(y, axis, reverse)
    ),
)


def cumprod(x, axis, reverse=False):
    """Cumulative product along ``axis`` (from the end if ``reverse``).

    Derivatives go through :func:`linear_recurrence` and never divide by
    ``x``, so zeros in ``x`` are handled exactly to any order.
    """
    return cumprod_p.bind(x, axis=int(axis), reverse=bool(reverse))


# ==========================================================================
# reduce_prod

reduce_prod_p = Primitive("reduce_prod")
defbatch_axes(reduce_prod_p)


@reduce_prod_p.def_impl
def _reduce_prod_impl(x, *, axes):
    return np.prod(x, axis=axes)


@reduce_prod_p.def_abstract_eval
def _reduce_prod_aval(x, *, axes):
    _check_axes(x.ndim, axes)
    return ShapedArray(_reduced_shape(x.shape, axes), np.prod(np.zeros((), x.dtype)).dtype)


def _prod_of_others(x, axes):
    """For every element, the product of the other elements along ``axes``.

    The reduced axes are gathered into one (transpose + reshape), and the
    product of the others is ``exclusive_cumprod_left * exclusive_cumprod_right``.
    """
    shape = shape_of(x)
    perm, (pre, n, post) = _blocks(shape, axes)
    if n == 0 or not axes:
        return np.ones(shape, dtype_of(x))
    xt = x if perm is None else transpose(x, perm)
    x3 = reshape(xt, (pre, n, post))
    left = _exclusive(cumprod(x3, 1), 1, False)
    right = _exclusive(cumprod(x3, 1, reverse=True), 1, True)
    others = mul(left, right)
    if perm is None:
        return reshape(others, shape)
    others = reshape(others, shape_of(xt))
    return transpose(others, tuple(int(i) for i in np.argsort(perm)))


defjvp(
    reduce_prod_p,
    lambda t, ans, x, *, axes: reduce_sum(mul(t, _prod_of_others(x, axes)), axes),
)
defvjp(
    reduce_prod_p,
    lambda ct, ans, x, *, axes: mul(
        _expand_reduced(ct, shape_of(x), axes), _prod_of_others(x, axes)
    ),
)


def reduce_prod(x, axes):
    """Product of ``x`` over ``axes`` (a tuple of non-negative ints).

    The derivative with respect to each element is the product of the other
    elements, computed with exclusive cumulative products from both ends
    (no division, exact with zeros in ``x``, O(n), any order).
    """
    axes = _norm_axes(axes)
    _check_axes(len(shape_of(x)), axes)
    return reduce_prod_p.bind(x, axes=axes)


# ==========================================================================
# arg-reductions and logical reductions: no derivative

def _nondiff_reduction(name, np_fn, dtype, needs_elements):
    """A reduction with no derivative; params ``axes`` (a tuple of ints)."""
    prim = Primitive(name)
    defbatch_axes(prim)

    @prim.def_impl
    def impl(x, *, axes):
        return np.asarray(np_fn(x, axis=axes[0] if len(axes) == 1 else axes))[()]

    @prim.def_abstract_eval
    def aval(x, *, axes):
        _check_axes(x.ndim, axes)
        if needs_elements and any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"attempt to get {name} of an empty sequence")
        return ShapedArray(_reduced_shape(x.shape, axes), dtype)

    return def_nondifferentiable(prim)


argmax_p = _nondiff_reduction("argmax", np.argmax, np.intp, True)


@argmax_p.def_impl
def _argmax_impl(x, *, axes):
    """NumPy's ``argmax``, except along a non-last axis of a float32/float64
    array (a window reduction's layout, ``(..., K, L)``): there NumPy does not
    vectorize across the trailing axes (1.7-2.9 ms for ``(64, 6, 4, 144)``
    float32 here) and the kernel ``argmax_mid`` walks them innermost.  Same
    result: the first maximum, a NaN counting as the maximum."""
    x = np.asarray(x)
    if len(axes) == 1 and x.ndim >= 2 and axes[0] != x.ndim - 1 and x.size and (
            x.dtype in (np.float32, np.float64)):
        a = axes[0]
        m, k = math.prod(x.shape[:a]), x.shape[a]
        rest = x.shape[a + 1:]
        out = np.empty((m, math.prod(rest)), dtype=np.intp)
        window_kernels().argmax_mid(np.ascontiguousarray(x).reshape(m, k, -1), out)
        return out.reshape(x.shape[:a] + rest)
    return np.asarray(np.argmax(x, axis=axes[0] if len(axes) == 1 else axes))[()]

argmin_p = _nondiff_reduction("argmin", np.argmin, np.intp, True)
reduce_all_p = _nondiff_reduction("reduce_all", np.all, np.bool_, False)
reduce_any_p = _nondiff_reduction("reduce_any", np.any, np.bool_, False)


def argmax(x, axis):
    """Index of the first maximum along ``axis`` (an int; int64, no derivative)."""
    return argmax_p.bind(x, axes=(int(axis),))


def argmin(x, axis):
    """Index of the first minimum along ``axis`` (an int; int64, no derivative)."""
    return argmin_p.bind(x, axes=(int(axis),))


def reduce_all(x, axes):
    """True where every element over ``axes`` is nonzero (bool; no derivative)."""
    return reduce_all_p.bind(x, axes=_norm_axes(axes))


def reduce_any(x, axes):
    """True where some element over ``axes`` is nonzero (bool; no derivative)."""
    return reduce_any_p.bind(x, axes=_norm_axes(axes))
