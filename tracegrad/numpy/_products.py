"""Products of ``tracegrad.numpy``: matmul, dot, vdot, inner, outer, tensordot,
einsum, vecdot, matvec, vecmat.

NumPy 2's signatures and semantics.  ``matmul`` is one primitive (NumPy's
BLAS matmul); ``tensordot`` (and so N-D ``dot`` and ``inner``) transposes and
reshapes its operands into one matrix product, as NumPy does; ``einsum``
reduces any subscripts to the clean ``einsum`` primitive after taking
diagonals, summing indices that occur in one operand only and dropping
broadcast size-1 axes, all with other primitives.
"""
import operator

import numpy as np

from ..core import Tracer
from ..primitives import ops
from ._core import _no_out as _no_out_outer  # outer's message, as for the shape functions
from ._core import arg
from ._dispatch import implements
from ._shape import ravel

__all__ = [
    "matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "vecdot",
    "matvec", "vecmat",
]


_ARRAYS = (np.ndarray, Tracer)


def _as_operand(x):
    """An array or tracer (Python scalars become 0-d arrays)."""
    x = arg(x)
    return x if hasattr(x, "shape") else np.asarray(x)


def _cast(out, dtype):
    return out if dtype is None else ops.convert_element_type(out, dtype)


def _no_out(name, out):
    if out is not None:
        raise TypeError(
            f"tracegrad.numpy.{name} does not support out=: arrays are immutable "
            "under transforms; use the return value."
        )


# --------------------------------------------------------------------------
# matmul


@implements(np.matmul)
def matmul(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Matrix product with NumPy's ``matmul`` semantics, differentiable.

    Parameters
    ----------
    x1 : array_like or tracer, shape ``(..., n, k)`` or ``(k,)``
    x2 : array_like or tracer, shape ``(..., k, m)`` or ``(k,)``
        Batch axes (all but the last two) broadcast.  A 1-D ``x1`` is a row
        vector and a 1-D ``x2`` a column vector; the added axis is removed
        from the result.
    dtype : dtype, optional
        Cast the result.

    Returns
    -------
    array or tracer
        Shape ``broadcast(batch1, batch2) + (n, m)`` without the axes of 1-D
        operands; NumPy's promoted dtype.

    Raises
    ------
    ValueError
        If an operand is 0-d (use ``*`` for scalars) or the contracted
        dimensions differ.

    Notes
    -----
    ``d(x1 @ x2) = dx1 @ x2 + x1 @ dx2``; the cotangents are ``ct @ x2^T``
    and ``x1^T @ ct``, summed over broadcast batch axes.
    """
    if out is not None or kwargs:
        _ufunc_kwargs("matmul", out, kwargs)
    a = x1 if isinstance(x1, _ARRAYS) else _as_operand(x1)
    b = x2 if isinstance(x2, _ARRAYS) else _as_operand(x2)
    sa, sb = a.shape, b.shape
    if len(sa) >= 2 and len(sb) >= 2 and sa[-1] == sb[-2]:  # the hot path
        return _cast(ops.matmul(a, b), dtype)
    if not sa or not sb:
        raise ValueError(
            "matmul: Input operand does not have enough dimensions (a 0-d operand "
            "was given); use multiply (*) to scale by a scalar."
        )
    ka = sa[-1]
    kb = sb[-2] if len(sb) > 1 else sb[0]
    if ka != kb:
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
            f"(size {kb} is different from {ka}): shapes {sa} and {sb} are not aligned."
        )
    if len(sa) == 1:
        a = ops.reshape(a, (1, ka))
    if len(sb) == 1:
        b = ops.reshape(b, (kb, 1))
    res = ops.matmul(a, b)
    if len(sa) == 1 or len(sb) == 1:
        s = res.shape
        s = s[:-2] + (() if len(sa) == 1 else s[-2:-1]) + (() if len(sb) == 1 else s[-1:])
        res = ops.reshape(res, s)
    return _cast(res, dtype)


# --------------------------------------------------------------------------
# tensordot, dot, vdot, inner


def _normalize_axes(axes, nda, ndb):
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(nda, ndb):
            raise ValueError(f"tensordot: axes={n} is out of range for operands of rank {nda} and {ndb}")
        return list(range(nda - n, nda)), list(range(n))
    try:
        ax_a, ax_b = axes
    except (TypeError, ValueError):
        raise TypeError(
            "tensordot: axes must be an int or a pair (axes_a, axes_b) of ints or "
            f"sequences of ints, got {axes!r}"
        ) from None
    ax_a = [operator.index(ax_a)] if np.ndim(ax_a) == 0 else [operator.index(i) for i in ax_a]
    ax_b = [operator.index(ax_b)] if np.ndim(ax_b) == 0 else [operator.index(i) for i in ax_b]
    if len(ax_a) != len(ax_b):
        raise ValueError(f"tensordot: axes lists have different lengths: {ax_a} and {ax_b}")
    for ax, nd in ((ax_a, nda), (ax_b, ndb)):
        for i in ax:
            if not -nd <= i < nd:
                raise np.exceptions.AxisError(i, nd)
    return [i % nda for i in ax_a], [i % ndb for i in ax_b]


def _tensordot(a, b, ax_a, ax_b):
    """Contract ``a``'s axes ``ax_a`` with ``b``'s ``ax_b`` as one matmul."""
    sa, sb = a.shape, b.shape
    for i, j in zip(ax_a, ax_b):
        if sa[i] != sb[j]:
            raise ValueError(
                f"tensordot: shape-mismatch for sum: axis {i} of a (size {sa[i]}) "
                f"and axis {j} of b (size {sb[j]})"
            )
    free_a = [i for i in range(len(sa)) if i not in ax_a]
    free_b = [i for i in range(len(sb)) if i not in ax_b]
    k = int(np.prod([sa[i] for i in ax_a], dtype=np.int64))
    out_shape = tuple(sa[i] for i in free_a) + tuple(sb[i] for i in free_b)
    if not ax_a:  # an outer product
        a2 = ops.reshape(a, tuple(sa) + (1,) * len(sb))
        return ops.mul(a2, b)
    m = int(np.prod([sa[i] for i in free_a], dtype=np.int64))
    n = int(np.prod([sb[i] for i in free_b], dtype=np.int64))
    a2 = ops.reshape(ops.transpose(a, free_a + ax_a), (m, k))
    b2 = ops.reshape(ops.transpose(b, ax_b + free_b), (k, n))
    return ops.reshape(ops.matmul(a2, b2), out_shape)


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    """Tensor contraction over chosen axes (NumPy's ``tensordot``), differentiable.

    Parameters
    ----------
    a, b : array_like or tracer
    axes : int or (sequence of int, sequence of int), optional
        An int ``N`` contracts the last ``N`` axes of ``a`` with the first
        ``N`` of ``b``; a pair lists the axes of ``a`` and of ``b`` to
        contract, in matching order (negative axes allowed).

    Returns
    -------
    array or tracer
        Shape: the free axes of ``a`` then the free axes of ``b``.

    Raises
    ------
    ValueError
        If the contracted axes differ in size or ``axes`` is out of range.

    Notes
    -----
    Computed as one matrix product of the transposed and reshaped operands,
    so its derivatives are those of ``matmul``, ``transpose`` and ``reshape``.
    """
    a, b = _as_operand(a), _as_operand(b)
    ax_a, ax_b = _normalize_axes(axes, len(a.shape), len(b.shape))
    return _tensordot(a, b, ax_a, ax_b)


@implements(np.dot)
def dot(a, b, out=None):
    """NumPy's ``dot``, differentiable.

    Parameters
    ----------
    a, b : array_like or tracer

    Returns
    -------
    array or tracer
        * both 1-D: the inner product (0-d);
        * both 2-D (or one 1-D): the matrix product, as ``matmul``;
        * either 0-d: ``a * b``;
        * N-D: the sum product over the last axis of ``a`` and the
          second-to-last of ``b`` (the last, if ``b`` is 1-D), shape
          ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``.  Unlike ``matmul``,
          batch axes do not broadcast: every pair is multiplied.

    Raises
    ------
    ValueError
        If the contracted dimensions differ.
    TypeError
        If ``out`` is given.

    Notes
    -----
    Computed with ``multiply``, :func:`matmul` or :func:`tensordot`, so its
    derivatives are theirs: for matrices, the cotangents are ``ct @ b.T``
    and ``a.T @ ct``.
    """
    _no_out("dot", out)
    a, b = _as_operand(a), _as_operand(b)
    na, nb = len(a.shape), len(b.shape)
    if na == 0 or nb == 0:
        return ops.mul(a, b)
    if na <= 2 and nb <= 2:
        return matmul(a, b)
    return _tensordot(a, b, [na - 1], [max(nb - 2, 0)])


@implements(np.vdot)
def vdot(a, b, /):
    """Dot product of the flattened arrays (NumPy's ``vdot``): ``sum(conj(a) * b)``.

    Parameters
    ----------
    a, b : array_like or tracer
        Same number of elements; flattened in C order.

    Returns
    -------
    0-d array or tracer

    Raises
    ------
    ValueError
        If the sizes differ.

    Notes
    -----
    A complex ``a`` is conjugated (NumPy's rule).  The cotangent of ``a``
    is the result's cotangent times ``b`` (reshaped to ``a``'s shape;
    conjugated for complex ``a``), and that of ``b`` is ``ct * conj(a)``,
    JAX's convention.
    """
    a, b = _as_operand(a), _as_operand(b)
    if not isinstance(a, Tracer) and not isinstance(b, Tracer):
        if np.iscomplexobj(a) or np.iscomplexobj(b):
            return np.vdot(a, b)
    a = _conj_plain(a)
    na, nb = int(np.prod(a.shape, dtype=np.int64)), int(np.prod(b.shape, dtype=np.int64))
    if na != nb:
        raise ValueError(f"vdot: cannot take the dot product of {na} and {nb} elements")
    return matmul(ops.reshape(a, (na,)), ops.reshape(b, (nb,)))


@implements(np.inner)
def inner(a, b, /):
    """Sum product over the last axes (NumPy's ``inner``), differentiable.

    Parameters
    ----------
    a, b : array_like or tracer
        Last axes of equal size (or either 0-d, meaning ``a * b``).

    Returns
    -------
    array or tracer
        Shape ``a.shape[:-1] + b.shape[:-1]``; the promoted dtype.

    Raises
    ------
    ValueError
        If the last axes differ in length.

    Notes
    -----
    One contraction (a :func:`tensordot` over the last axes), so its
    derivatives are those of ``matmul``, ``transpose`` and ``reshape``.
    """
    a, b = _as_operand(a), _as_operand(b)
    na, nb = len(a.shape), len(b.shape)
    if na == 0 or nb == 0:
        return ops.mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: shapes {a.shape} and {b.shape} not aligned in the last axis")
    return _tensordot(a, b, [na - 1], [nb - 1])


# --------------------------------------------------------------------------
# vecdot, matvec, vecmat (NumPy 2 gufuncs)


def _ufunc_kwargs(name, out, kwargs):
    _no_out(name, out)
    for k in ("casting", "order", "subok"):
        kwargs.pop(k, None)
    if kwargs:
        raise TypeError(f"tracegrad.numpy.{name} got unsupported keywords {sorted(kwargs)}")


def _gufunc_decorator(name):
    fn = getattr(np, name, None)
    return implements(fn) if fn is not None else (lambda f: f)


@_gufunc_decorator("vecdot")
def vecdot(x1, x2, /, out=None, *, axis=-1, dtype=None, **kwargs):
    """Vector dot product over ``axis`` with broadcasting (NumPy 2's ``vecdot``).

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Broadcast together; ``axis`` (default last) is contracted.
    axis : int, optional
        The contracted axis (default -1), counted in each operand.
    out : None
        Must be None.
    dtype : dtype, optional
        Cast the result.

    Returns
    -------
    array or tracer
        The broadcast shape without ``axis``; the promoted dtype.

    Raises
    ------
    ValueError
        If the contracted dimensions differ (the message names ``matmul``).
    numpy.exceptions.AxisError
        If ``axis`` is out of range for an operand (also for 0-d operands).
    TypeError
        If ``out`` or an unsupported keyword is given.

    Notes
    -----
    Computed as a batched ``matmul`` of rows by columns, so the cotangents
    are ``ct * x2`` and ``ct * x1`` (summed over broadcast axes).  A
    complex ``x1`` is conjugated, as by NumPy (the conjugation is
    differentiated too).
    """
    _ufunc_kwargs("vecdot", out, kwargs)
    a, b = _conj_plain(_as_operand(x1)), _as_operand(x2)
    res = ops.matmul(_row(_move_last(a, axis)), _col(_move_last(b, axis)))
    return _cast(ops.reshape(res, res.shape[:-2]), dtype)


def _conj_plain(x):
    """NumPy conjugates a complex first operand (arrays and tracers alike)."""
    return ops.conj(x) if np.dtype(x.dtype).kind == "c" else x


def _core_dims(name, signature, *operands):
    """NumPy's gufunc check that each operand has its core dimensions."""
    for i, (x, need) in enumerate(operands):
        if len(x.shape) < need:
            raise ValueError(
                f"{name}: Input operand {i} does not have enough dimensions (has "
                f"{len(x.shape)}, gufunc core with signature {signature} requires {need})"
            )


def _move_last(x, axis):
    nd = len(x.shape)
    if not -nd <= axis < nd:
        raise np.exceptions.AxisError(axis, nd)
    axis %= nd
    perm = [i for i in range(nd) if i != axis] + [axis]
    return ops.transpose(x, perm)


def _row(x):
    return ops.reshape(x, x.shape[:-1] + (1, x.shape[-1]))


def _col(x):
    return ops.reshape(x, x.shape + (1,))


@_gufunc_decorator("matvec")
def matvec(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Matrix-vector product with broadcasting (NumPy 2.2's ``matvec``).

    ``result[..., i] = sum_j x1[..., i, j] * x2[..., j]``.

    Parameters
    ----------
    x1 : array_like or tracer, shape ``(..., n, k)``
        A stack of matrices.
    x2 : array_like or tracer, shape ``(..., k)``
        A stack of vectors; the batch axes ``...`` of both broadcast.
    out : None
        Must be None.
    dtype : dtype, optional
        Cast the result.
    casting, order, subok : optional
        Accepted for NumPy compatibility and ignored.

    Returns
    -------
    array or tracer, shape ``broadcast(batch1, batch2) + (n,)``
        NumPy's promoted dtype of ``x1`` and ``x2``.

    Raises
    ------
    ValueError
        If the contracted dimensions differ (the message names ``matmul``),
        or ``x1`` has fewer than 2 or ``x2`` fewer than 1 dimensions (as
        NumPy's gufunc check).
    TypeError
        If ``out`` or another unsupported keyword (``axes``, ``axis``) is
        given.

    Notes
    -----
    Computed as ``x1 @ x2[..., None]``, so the derivatives are those of
    :func:`matmul`: the cotangent of ``x1`` is ``ct[..., :, None] *
    x2[..., None, :]`` and that of ``x2`` is ``x1^T @ ct``, each summed
    over broadcast batch axes.

    Examples
    --------
    >>> import numpy as np, tracegrad.numpy as tnp
    >>> tnp.matvec(np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0]))
    array([ 8., 26.])
    """
    _ufunc_kwargs("matvec", out, kwargs)
    a, b = _as_operand(x1), _as_operand(x2)
    _core_dims("matvec", "(m,n),(n)->(m)", (a, 2), (b, 1))
    res = ops.matmul(a, _col(b))
    return _cast(ops.reshape(res, res.shape[:-1]), dtype)


@_gufunc_decorator("vecmat")
def vecmat(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Vector-matrix product with broadcasting (NumPy 2.2's ``vecmat``).

    ``result[..., j] = sum_i x1[..., i] * x2[..., i, j]``.

    Parameters
    ----------
    x1 : array_like or tracer, shape ``(..., k)``
        A stack of vectors (a complex ``x1`` is conjugated, as by NumPy).
    x2 : array_like or tracer, shape ``(..., k, n)``
        A stack of matrices; the batch axes ``...`` of both broadcast.
    out : None
        Must be None.
    dtype : dtype, optional
        Cast the result.
    casting, order, subok : optional
        Accepted for NumPy compatibility and ignored.

    Returns
    -------
    array or tracer, shape ``broadcast(batch1, batch2) + (n,)``
        NumPy's promoted dtype of ``x1`` and ``x2``.

    Raises
    ------
    ValueError
        If the contracted dimensions differ (the message names ``matmul``),
        or ``x1`` has fewer than 1 or ``x2`` fewer than 2 dimensions (as
        NumPy's gufunc check).
    TypeError
        If ``out`` or another unsupported keyword (``axes``, ``axis``) is
        given.

    Notes
    -----
    Computed as ``x1[..., None, :] @ x2``, so the derivatives are those of
    :func:`matmul`: the cotangent of ``x1`` is ``x2 @ ct`` and that of
    ``x2`` is ``x1[..., :, None] * ct[..., None, :]``, each summed over
    broadcast batch axes.  Unlike NumPy, a 1-D ``x2`` is not rejected: the
    result is the dot product, of shape ``(1,)``.
    """
    _ufunc_kwargs("vecmat", out, kwargs)
    a, b = _conj_plain(_as_operand(x1)), _as_operand(x2)
    _core_dims("vecmat", "(n),(n,m)->(m)", (a, 1), (b, 2))
    res = ops.matmul(_row(a), b)
    return _cast(ops.reshape(res, res.shape[:-2] + res.shape[-1:]), dtype)


# --------------------------------------------------------------------------
# einsum

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublist_to_str(sub):
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        else:
            i = operator.index(s)
            if not 0 <= i < len(_LETTERS):
                raise ValueError(f"einsum: subscript {i} is out of range: use 0..{len(_LETTERS) - 1}")
            out.append(_LETTERS[i])
    return "".join(out)


def _interleaved_to_str(args):
    """``einsum(op0, sub0, op1, sub1, ..., [sub_out])`` to a subscripts string."""
    args = list(args)
    out = None
    if len(args) % 2 == 1:
        out = _sublist_to_str(args.pop())
    operands = args[0::2]
    terms = [_sublist_to_str(s) for s in args[1::2]]
    spec = ",".join(terms) + ("" if out is None else "->" + out)
    return spec, operands


def _parse_subscripts(subscripts, shapes):
    """Expand ellipses and the implicit output.

    Returns ``(terms, out)``: one letter string per operand, one letter per
    axis, and the output letters.
    """
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        ins, out = spec.split("->", 1)
        if "->" in out:
            raise ValueError("einsum: subscripts contain more than one '->'")
    else:
        ins, out = spec, None
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: {len(terms)} operand subscript(s) given in {subscripts!r} "
            f"for {len(shapes)} operand(s)"
        )
    used = set(c for c in spec if c.isalpha())
    for c in spec:
        if not (c.isalpha() and c in _LETTERS) and c not in ".,->":
            raise ValueError(f"einsum: invalid subscript {c!r} in {subscripts!r}; use letters a-z, A-Z")
    n_ell = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            if t.count("...") > 1 or "." in t.replace("...", "", 1):
                raise ValueError(f"einsum: invalid ellipsis in operand subscripts {t!r}")
            k = len(s) - (len(t) - 3)
        else:
            if "." in t:
                raise ValueError(f"einsum: invalid ellipsis in operand subscripts {t!r}")
            k = 0
            if len(t) != len(s):
                raise ValueError(
                    f"einsum: operand subscripts {t!r} name {len(t)} axes but the "
                    f"operand has {len(s)} (shape {s}); use '...' for the rest"
                )
        if k < 0:
            raise ValueError(f"einsum: operand subscripts {t!r} name more axes than the operand's {len(s)}")
        n_ell.append(k)
    n = max(n_ell, default=0)
    fresh = [c for c in _LETTERS if c not in used]
    if len(fresh) < n:
        raise ValueError("einsum: too many distinct indices (at most 52)")
    ell = "".join(fresh[:n])
    terms = [t.replace("...", ell[n - k:]) for t, k in zip(terms, n_ell)]
    if out is None:
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, m in counts.items() if m == 1 and c not in ell))
    else:
        if "..." in out:
            out = out.replace("...", ell, 1)
        elif n:
            raise ValueError(
                "einsum: output has more dimensions than subscripts given in einstein "
                "sum, but no '...' ellipsis provided to broadcast the extra dimensions."
            )
        if "." in out:
            raise ValueError(f"einsum: invalid ellipsis in output subscripts of {subscripts!r}")
        for c in out:
            if out.count(c) > 1:
                raise ValueError(f"einsum: output subscript {c!r} appears more than once")
            if not any(c in t for t in terms):
                raise ValueError(f"einsum: output subscript {c!r} does not appear in the operands")
    return terms, out


def _letter_sizes(terms, shapes):
    sizes = {}
    for t, s in zip(terms, shapes):
        for c, n in zip(t, s):
            m = sizes.get(c, 1)
            if n != m and n != 1 and m != 1:
                raise ValueError(
                    f"einsum: subscript {c!r} has sizes {m} and {n}, which cannot be broadcast"
                )
            sizes[c] = max(m, n)
    return sizes


def _take_diagonal(x, t, c):
    """Merge the first two axes labelled ``c`` of ``x`` into one (the diagonal)."""
    p = t.index(c)
    q = t.index(c, p + 1)
    n = x.shape[p]
    if x.shape[q] != n:
        raise ValueError(f"einsum: repeated subscript {c!r} labels axes of sizes {n} and {x.shape[q]}")
    mask_shape = [1] * len(t)
    mask_shape[p] = mask_shape[q] = n
    mask = np.eye(n, dtype=x.dtype).reshape(mask_shape)
    return ops.reduce_sum(ops.mul(x, mask), (q,)), t[:q] + t[q + 1:]


def _clean_operands(terms, out, operands):
    """Reduce operands to the clean form the ``einsum`` primitive requires."""
    sizes = _letter_sizes(terms, [x.shape for x in operands])
    xs, ts = [], []
    for x, t in zip(operands, terms):
        # size-1 axes broadcast against a larger size: drop them
        keep = [i for i, c in enumerate(t) if not (x.shape[i] == 1 and sizes[c] > 1)]
        if len(keep) < len(t):
            x = ops.reshape(x, tuple(x.shape[i] for i in keep))
            t = "".join(t[i] for i in keep)
        # repeated subscripts within the operand: diagonals
        for c in sorted(set(t)):
            while t.count(c) > 1:
                x, t = _take_diagonal(x, t, c)
        xs.append(x)
        ts.append(t)
    # subscripts found in one operand only and not in the output: sum them
    for i, (x, t) in enumerate(zip(xs, ts)):
        alone = [
            p for p, c in enumerate(t)
            if c not in out and not any(c in u for j, u in enumerate(ts) if j != i)
        ]
        if alone:
            xs[i] = ops.reduce_sum(x, alone)
            ts[i] = "".join(c for p, c in enumerate(t) if p not in alone)
    return xs, ts


def _normalize_optimize(optimize):
    if isinstance(optimize, (list, tuple)):
        return "greedy"  # an explicit path refers to the operands before cleaning
    if optimize in (True, False, "greedy", "optimal"):
        return optimize
    raise TypeError(
        f"einsum: optimize must be a bool, 'greedy', 'optimal' or an explicit "
        f"einsum_path list, got {optimize!r}"
    )


@implements(np.einsum)
def einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """Einstein summation (NumPy's ``einsum``), differentiable.

    Parameters
    ----------
    subscripts : str
        Comma-separated operand subscripts, optionally ``->`` and the output
        subscripts, e.g. ``"ij,jk->ik"``, ``"ii->"`` (trace), ``"ii->i"``
        (diagonal), ``"...ij,...jk->...ik"`` (batched product), ``"ij"``
        (implicit output: the letters used once, in alphabetical order, after
        the ellipsis axes).  The interleaved form
        ``einsum(op0, [0, 1], op1, [1, 2], [0, 2])`` is accepted too.
    *operands : array_like or tracer
        Any number.  A letter may repeat within an operand (a diagonal),
        occur in one operand only (summed if absent from the output), and
        label size-1 axes that broadcast against larger ones.
    optimize : bool, 'greedy', 'optimal' or list, optional
        Passed to ``numpy.einsum`` for the contraction; an explicit path list
        is replaced by ``'greedy'`` (the operands are reorganized first).
    dtype : dtype, optional
        Cast the result.

    Returns
    -------
    array or tracer
        Shaped by the output subscripts; dtype NumPy's promotion of the
        operands.

    Raises
    ------
    ValueError
        On malformed subscripts, a subscript count that does not match an
        operand's rank, or sizes that cannot be broadcast.

    Notes
    -----
    Diagonals, one-operand sums and broadcast size-1 axes are taken first
    with ``mul``/``reduce_sum``/``reshape``; what remains is one ``einsum``
    primitive whose operand letters are distinct and shared.  Its
    derivative with respect to an operand is the einsum of the output
    cotangent with the other operands, written to that operand's subscripts.
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.einsum does not support out=; use the return value")
    if not operands:
        raise ValueError("einsum: no subscripts given")
    if isinstance(operands[0], str):
        subscripts, ops_in = operands[0], list(operands[1:])
    else:
        subscripts, ops_in = _interleaved_to_str(operands)
    xs = [_as_operand(x) for x in ops_in]
    if not xs:
        raise ValueError("einsum: at least one operand is required")
    terms, out_t = _parse_subscripts(subscripts, [x.shape for x in xs])
    optimize = _normalize_optimize(optimize)
    xs, ts = _clean_operands(terms, out_t, xs)
    if len(xs) == 1:
        res = ops.transpose(xs[0], [ts[0].index(c) for c in out_t])
    else:
        res = ops.einsum(",".join(ts) + "->" + out_t, *xs, optimize=optimize)
    return _cast(res, dtype)


# --------------------------------------------------------------------------
# outer


@implements(np.outer)
def outer(a, b, out=None):
    """Outer product ``result[i, j] = a[i] * b[j]`` of the flattened inputs.

    Parameters
    ----------
    a : array_like or tracer
        Flattened to length ``M``.
    b : array_like or tracer
        Flattened to length ``N``.
    out : None
        Must be None.

    Returns
    -------
    array or tracer, shape ``(M, N)``
        The promoted dtype of ``a`` and ``b``.

    Raises
    ------
    TypeError
        If ``out`` is given.

    Notes
    -----
    A broadcast product: the cotangent of ``a`` is ``ct @ b`` and that of
    ``b`` is ``a @ ct``, reshaped to the inputs' shapes.
    """
    _no_out_outer("outer", out)
    a, b = ravel(a), ravel(b)
    return ops.mul(ops.reshape(a, (a.shape[0], 1)), ops.reshape(b, (1, b.shape[0])))
