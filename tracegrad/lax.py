"""``tracegrad.lax``: JAX's structured control flow, with JAX's signatures.

``cond``, ``switch``, ``select``, ``fori_loop``, ``while_loop``, ``scan``,
``map``, ``associative_scan``, ``dynamic_slice``, ``dynamic_update_slice``,
``dynamic_index_in_dim``, ``stop_gradient``; carries and outputs are
pytrees.  Convolution: ``conv_general_dilated``, ``conv`` and
``conv_general_dilated_patches`` (from the ``im2col`` primitive and
``matmul``).

These run as Python code over tracegrad's functions, so they compose with
every transform as the loops they stand for do: ``grad`` and ``jvp``
differentiate the iterations that ran, ``vmap`` batches them, and under
staging (``make_jaxpr``, ``jit``) a loop is traced iteration by iteration
(unrolled; a loop whose trip count depends on a staged value cannot be
staged yet and raises ``tracegrad.errors.ConcretizationTypeError``).  Where
JAX's semantics need it, a predicate that has no single value -- batched
under ``vmap``, or staged -- is handled as JAX handles a batched one:

* ``cond``/``switch`` evaluate every branch and select per element
  (``tnp.where``), so both branches must be free of side effects;
* ``while_loop`` under ``vmap`` runs until every example's predicate is
  false, each example's carry frozen once its own predicate is false.

Compiled loops (primitives with sub-IRs) are the next stage of ``jit``.
"""
import math

import numpy as np

from . import numpy as tnp
from .core import ShapedArray, Tracer, concrete_value, dtype_of, is_concrete, shape_of
from .primitives import ops
from .interpreters.batching import example_values, has_values
from .interpreters.staging import StagingTracer
from .transforms import stop_gradient
from .transforms import ShapeDtypeStruct
from .transforms.control_flow import (cond_bind, join_branches, scan_bind, stage_flat,
                                      staging_active, while_bind)
from .tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_leaves, tree_map,
                        tree_structure, tree_unflatten)

__all__ = [
    "cond", "switch", "select", "fori_loop", "while_loop", "scan", "map",
    "associative_scan", "dynamic_slice", "dynamic_update_slice", "dynamic_index_in_dim",
    "stop_gradient", "conv_general_dilated", "conv", "conv_general_dilated_patches",
]


def _is_weak(x):
    """A Python scalar: weakly typed, it takes the dtype of what it meets."""
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _same_structure(a, b, what, dtypes=True):
    """``a`` and ``b`` (a carry before and after one step, or two branches'
    outputs) must agree in pytree structure and in each leaf's shape and
    (``dtypes``) dtype, as JAX requires; the error names the first leaf that
    differs (its pytree path).  A Python scalar in ``a`` is weakly typed:
    only its shape is checked, so ``init=0.0`` may meet a float32 output."""
    ta, tb = tree_structure(a), tree_structure(b)
    if ta != tb:
        raise TypeError(f"{what} must have the same pytree structure; got {ta} and {tb}")
    for (path, x), y in zip(tree_flatten_with_path(a)[0], tree_leaves(b)):
        leaf = keystr(path) or "(the whole value)"
        if tuple(np.shape(x)) != tuple(np.shape(y)):
            raise TypeError(
                f"{what} must have the same shapes; leaf {leaf} has shape {np.shape(x)} "
                f"before and {np.shape(y)} after (keep the carry's shape fixed: pad it, or "
                "stack per-step values as scan's ys instead)")
        if dtypes and not _is_weak(x) and np.dtype(dtype_of(x)) != np.dtype(dtype_of(y)):
            raise TypeError(
                f"{what} must have the same dtypes; leaf {leaf} has dtype "
                f"{np.dtype(dtype_of(x)).name} before and {np.dtype(dtype_of(y)).name} after "
                "(cast the initial value or the function's result with .astype)")


def _join_branches(outs, weak, what):
    """The dtype of each output leaf of a ``switch``/``cond`` whose branches
    returned ``outs`` (pytrees of the same structure and shapes; ``weak``:
    per branch, which leaves are weakly typed).

    As in JAX, the branches' dtypes must be equal, but a weakly typed leaf
    (a Python scalar) takes the dtype of the others' when it is of the same
    kind: ``cond(p, lambda: 1.0, lambda: x)`` is ``x``'s float32 whichever
    branch the scalar is in, while a Python float against an int32 branch,
    or against a Python int, is an error.  The result is weak only where
    every branch's is."""
    for o in outs[1:]:
        _same_structure(outs[0], o, what, dtypes=False)
    paths = [keystr(p) or "(the whole value)" for p, _ in tree_flatten_with_path(outs[0])[0]]
    leaves = [tree_leaves(o) for o in outs]
    joined = []
    for k, leaf in enumerate(paths):
        dts = [np.dtype(dtype_of(ls[k])) for ls in leaves]
        strong = sorted({d for d, w in zip(dts, weak) if not w[k]}, key=str)
        kinds = {d.kind for d in dts}
        if len(strong) > 1 or len(kinds) > 1:
            names = " and ".join(("weakly typed " if w[k] else "") + d.name
                                 for d, w in zip(dts, weak))
            raise TypeError(
                f"{what} must have the same dtypes; leaf {leaf} has dtypes {names} "
                "(cast a branch's result with .astype)")
        joined.append(strong[0] if strong else dts[0])
    return joined


def select(pred, on_true, on_false):
    """``on_true`` where ``pred``, else ``on_false`` (``jax.lax.select``).

    Parameters
    ----------
    pred : array of bool
        Shape of the operands (or a scalar).
    on_true, on_false : arrays
        Same shape and dtype.

    Returns
    -------
    array
        Elementwise choice; derivatives flow to the chosen operand only.

    Raises
    ------
    TypeError
        If ``pred`` is not boolean or the operands' dtypes differ.
    """
    if np.dtype(dtype_of(pred)).kind != "b":
        raise TypeError("select: pred must be a boolean array (compare first, e.g. x > 0)")
    if dtype_of(on_true) != dtype_of(on_false):
        raise TypeError(
            f"select: on_true and on_false must have the same dtype, got "
            f"{dtype_of(on_true)} and {dtype_of(on_false)}")
    return tnp.where(pred, on_true, on_false)


def _index_of(index, n):
    """A branch index clamped to [0, n), as JAX's ``switch`` does."""
    return tnp.clip(tnp.asarray(index).astype(np.int64), 0, n - 1)


def switch(index, branches, *operands):
    """``branches[index](*operands)`` (``jax.lax.switch``).

    Parameters
    ----------
    index : int or integer scalar
        Clamped to ``[0, len(branches) - 1]``.
    branches : sequence of callables
        Each returns a pytree of the same structure, shapes and dtypes.
    *operands
        Passed to the branch.

    Returns
    -------
    pytree
        The chosen branch's result.  If ``index`` has no single value
        (batched under ``vmap``, or staged) every branch runs and the result
        is selected per element.

    Raises
    ------
    ValueError
        If ``branches`` is empty.
    TypeError
        If the branches' outputs differ in structure or shape.
    """
    branches = list(branches)
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence")
    n = len(branches)
    if is_concrete(index):
        i = int(np.clip(int(np.asarray(concrete_value(index))), 0, n - 1))
        return branches[i](*operands)
    if staging_active(tree_leaves(operands) + [index]):
        idx = tnp.clip(tnp.asarray(index).astype(np.int32), 0, n - 1)
        return _staged_switch(idx, branches, operands)
    return _selected_switch(_index_of(index, n), branches, operands,
                            "switch: the branches' outputs")


def _selected_switch(idx, branches, operands, what):
    """Every branch run, the result selected per element by ``idx`` (a
    batched index, not staged)."""
    outs = [b(*operands) for b in branches]
    leaves = [tree_leaves(o) for o in outs]
    dtypes = _join_branches(outs, [[_is_weak(x) for x in ls] for ls in leaves], what)
    result = []
    for k, dt in enumerate(dtypes):
        acc = tnp.asarray(leaves[-1][k]).astype(dt)
        for i in range(len(branches) - 2, -1, -1):
            acc = tnp.where(idx == i, tnp.asarray(leaves[i][k]).astype(dt), acc)
        result.append(acc)
    return tree_unflatten(tree_structure(outs[0]), result)


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``
    (``jax.lax.cond``).

    Parameters
    ----------
    pred : bool or boolean scalar
    true_fun, false_fun : callables
        Return pytrees of the same structure, shapes and dtypes (a Python
        scalar leaf takes the other branch's dtype of its kind, as in JAX).
    *operands
        Passed to the branch.

    Returns
    -------
    pytree
        If ``pred`` has no single value (batched, or staged) both branches
        run and the result is selected per element, as in JAX.

    Raises
    ------
    TypeError
        If ``pred`` is not a scalar, or the branches' outputs differ.
    """
    if np.ndim(pred) != 0:
        raise TypeError(f"cond: pred must be a scalar, got shape {np.shape(pred)}")
    if is_concrete(pred):
        return true_fun(*operands) if bool(np.asarray(concrete_value(pred))) else false_fun(*operands)
    if staging_active(tree_leaves(operands) + [pred]):
        return _staged_switch(tnp.asarray(pred).astype(np.int32), [false_fun, true_fun], operands,
                              "cond: true_fun and false_fun's outputs")
    return _selected_switch(tnp.asarray(pred).astype(np.int64), [false_fun, true_fun], operands,
                            "cond: true_fun and false_fun's outputs")


def _staged_switch(idx, branches, operands, what="switch: the branches' outputs"):
    """``switch`` as one ``cond_p`` equation (under staging); ``idx`` is an
    int32 scalar already clamped."""
    leaves, tree = tree_flatten(tuple(operands))
    avals = _carry_avals(leaves)
    # (a staged Python-scalar input of an enclosing jit stays weakly typed)
    weak_in = [_is_weak(x) or (isinstance(x, StagingTracer) and x.var.weak_type)
               for x in leaves]
    fns, staged, outs, weak = [], [], [], []
    for b in branches:
        store = {}

        def fn(*args, b=b, store=store, casts=None):
            out_leaves, store["tree"] = tree_flatten(b(*tree_unflatten(tree, list(args))))
            # weakly typed: a Python scalar, or a Python-scalar operand as it came in
            store["weak"] = [_is_weak(o) or any(o is a for a, w in zip(args, weak_in) if w)
                             for o in out_leaves]
            if casts:
                out_leaves = [tnp.asarray(o).astype(c) if c is not None else o
                              for o, c in zip(out_leaves, casts)]
            return out_leaves

        staged.append(stage_flat(fn, avals, weak_in))
        fns.append(fn)
        weak.append(store["weak"])
        outs.append(tree_unflatten(store["tree"], [ShapeDtypeStruct(a.shape, a.dtype)
                                                   for a in staged[-1][0].out_avals]))
    dtypes = _join_branches(outs, weak, what)
    for i, fn in enumerate(fns):  # weakly typed leaves take the other branches' dtype
        casts = [d if o.dtype != d else None for o, d in zip(staged[i][0].out_avals, dtypes)]
        if any(c is not None for c in casts):
            staged[i] = stage_flat(lambda *a, fn=fn, casts=casts: fn(*a, casts=casts), avals,
                                   weak_in)
    jaxprs, consts = join_branches(staged)
    res = cond_bind(idx, consts + leaves, jaxprs)
    return tree_unflatten(tree_structure(outs[0]), res)


def fori_loop(lower, upper, body_fun, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)``
    (``jax.lax.fori_loop``).

    Parameters
    ----------
    lower, upper : int
        Concrete bounds (the trip count must be known).
    body_fun : callable
        ``(i, val) -> val`` of the same structure and shapes.
    init_val : pytree

    Returns
    -------
    pytree
        The final ``val``.

    Raises
    ------
    tracegrad.errors.ConcretizationTypeError
        If a bound is staged.
    TypeError
        If ``body_fun`` changes the carry's structure or shapes.
    """
    if staging_active(tree_leaves(init_val) + [lower, upper]):
        if is_concrete(lower) and is_concrete(upper):
            # a static trip count: a scan (so reverse mode works), as in JAX
            lo, hi = int(concrete_value(lower)), int(concrete_value(upper))
            dt = np.result_type(np.asarray(concrete_value(lower)), np.asarray(concrete_value(upper)))

            def step(c, _):
                i, v = c
                new = body_fun(i, v)
                _same_structure(v, new, "fori_loop: body_fun's input and output carry")
                return (i + 1, new), None

            return scan(step, (np.asarray(lo, dt), init_val), None, length=max(hi - lo, 0))[0][1]

        def body(c):
            i, hi_, v = c
            new = body_fun(i, v)
            _same_structure(v, new, "fori_loop: body_fun's input and output carry")
            return i + 1, hi_, new

        lo_, hi_ = tnp.asarray(lower), tnp.asarray(upper)
        dt = np.result_type(dtype_of(lo_), dtype_of(hi_))
        carry = (lo_.astype(dt), hi_.astype(dt), init_val)
        return while_loop(lambda c: c[0] < c[1], body, carry)[2]
    lo, hi = int(lower), int(upper)
    val = init_val
    for i in range(lo, hi):
        new = body_fun(i, val)
        _same_structure(val, new, "fori_loop: body_fun's input and output carry")
        val = new
    return val


def while_loop(cond_fun, body_fun, init_val):
    """``while cond_fun(val): val = body_fun(val)`` (``jax.lax.while_loop``).

    Parameters
    ----------
    cond_fun : callable
        ``val -> boolean scalar``.
    body_fun : callable
        ``val -> val`` of the same structure and shapes.
    init_val : pytree

    Returns
    -------
    pytree
        The final carry.  Under ``vmap`` with a batched predicate the loop
        runs until every example is done; an example's carry stops changing
        once its predicate is false (JAX's semantics).

    Raises
    ------
    tracegrad.errors.ConcretizationTypeError
        If the predicate is staged (a loop whose trip count is unknown while
        tracing is not stageable yet).
    TypeError
        If ``body_fun`` changes the carry's structure or shapes.
    """
    if staging_active(tree_leaves(init_val)):
        return _staged_while(cond_fun, body_fun, init_val)
    val = init_val
    while True:
        p = cond_fun(val)
        if np.ndim(p) != 0:
            raise TypeError(f"while_loop: cond_fun must return a scalar, got shape {np.shape(p)}")
        if is_concrete(p):
            if not bool(np.asarray(concrete_value(p))):
                return val
            new = body_fun(val)
            _same_structure(val, new, "while_loop: body_fun's input and output carry")
            val = new
            continue
        if not has_values(p):
            bool(p)  # staged: raises the ConcretizationTypeError naming the line
        if not np.any(example_values(p)[0]):  # every example done
            return val
        new = body_fun(val)
        _same_structure(val, new, "while_loop: body_fun's input and output carry")
        val = tree_map(lambda n, o: tnp.where(p, n, o), new, val)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``,
    stacking the ``y`` (``jax.lax.scan``).

    Parameters
    ----------
    f : callable
        ``(carry, x) -> (carry, y)``; the carry keeps its structure and shapes.
    init : pytree
        The initial carry.
    xs : pytree of arrays, or None
        Scanned along axis 0 (all leaves the same length); None: ``length``
        iterations with ``x = None``.
    length : int, optional
        Required when ``xs`` is None; must match otherwise.
    reverse : bool
        Scan from the end (the stacked ``ys`` keep ``xs``'s order).
    unroll : int
        Accepted for JAX compatibility (the loop runs in Python).

    Returns
    -------
    (carry, ys)
        The final carry and the stacked outputs (a pytree of arrays with a
        leading axis of the scan's length; None leaves stay None).  With
        length 0, ``f`` is staged once (never run) for its output types and
        the ys are empty stacks of them, as in JAX.

    Raises
    ------
    ValueError
        If the lengths disagree or cannot be found.
    TypeError
        If ``f`` changes the carry's structure or shapes.
    """
    x_leaves, x_tree = tree_flatten(xs)
    lengths = {int(np.shape(x)[0]) for x in x_leaves}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(
            "scan: xs leaves (and length, if given) must all have the same leading length; "
            f"got {sorted(lengths)}" if lengths else "scan: give xs or length")
    n = lengths.pop()
    # A scan of length 0 never runs ``f``, but its ys are still stacks of
    # what ``f`` returns (shape (0, ...)): staging the body once is what
    # gives those types, so such a scan is one scan_p equation even eagerly.
    if n == 0 or staging_active(x_leaves + tree_leaves(init)):
        return _staged_scan(f, init, xs, x_leaves, x_tree, n, reverse)
    carry, ys = init, []
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        x = tree_unflatten(x_tree, [xl[i] for xl in x_leaves]) if x_leaves else (
            None if xs is None else xs)
        new, y = f(carry, x)
        _same_structure(carry, new, "scan: f's input and output carry")
        carry = new
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    y_tree = tree_structure(ys[0])
    stacked = [tnp.stack(list(parts)) for parts in zip(*[tree_leaves(y) for y in ys])]
    return carry, tree_unflatten(y_tree, stacked)


def _carry_avals(leaves):
    return [ShapedArray(np.shape(x), dtype_of(x)) for x in leaves]


def _stage_body(fun, init, carry_leaves, other_avals, what):
    """Stage ``fun`` (carry leaves + other flat inputs -> new carry leaves +
    other outputs) into a body IR; a Python-scalar (weakly typed) carry leaf
    takes the dtype the body gives it (staged again if that differs), as in
    JAX.  Returns the IR, its hoisted constants and the carry leaves cast."""
    carry_avals = _carry_avals(carry_leaves)
    nk = len(carry_leaves)
    weak = [isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)
            for x in carry_leaves]
    if any(weak):  # a first pass finds the dtypes the body gives weak carries
        jaxpr, _ = stage_flat(fun, carry_avals + other_avals, weak + [False] * len(other_avals))
        for k, (w, a, o) in enumerate(zip(weak, carry_avals, jaxpr.out_avals[:nk])):
            if w and o.shape == a.shape:
                carry_avals[k] = ShapedArray(a.shape, o.dtype)
    jaxpr, consts = stage_flat(fun, carry_avals + other_avals)
    leaves = [np.asarray(x, a.dtype) if not isinstance(x, Tracer) else x
              for x, a in zip(carry_leaves, carry_avals)]
    return jaxpr, consts, leaves


def _staged_scan(f, init, xs, x_leaves, x_tree, n, reverse):
    """``scan`` as one ``scan_p`` equation (under staging)."""
    init_leaves, init_tree = tree_flatten(init)
    nk = len(init_leaves)
    store = {}

    def body(*args):
        carry = tree_unflatten(init_tree, list(args[:nk]))
        x = tree_unflatten(x_tree, list(args[nk:])) if x_leaves else (None if xs is None else xs)
        new, y = f(carry, x)
        _same_structure(init, new, "scan: f's input and output carry")
        y_leaves, store["y_tree"] = tree_flatten(y)
        return tree_leaves(new) + y_leaves

    x_avals = [ShapedArray(np.shape(x)[1:], dtype_of(x)) for x in x_leaves]
    jaxpr, consts, leaves = _stage_body(body, init, init_leaves, x_avals, "scan")
    outs = scan_bind(consts, leaves, x_leaves, jaxpr, n, reverse)
    return (tree_unflatten(init_tree, outs[:nk]), tree_unflatten(store["y_tree"], outs[nk:]))


def _staged_while(cond_fun, body_fun, init_val):
    """``while_loop`` as one ``while_p`` equation (under staging)."""
    leaves, tree = tree_flatten(init_val)

    def body(*args):
        val = tree_unflatten(tree, list(args))
        new = body_fun(val)
        _same_structure(init_val, new, "while_loop: body_fun's input and output carry")
        return tree_leaves(new)

    body_jaxpr, body_consts, leaves = _stage_body(body, init_val, leaves, [], "while_loop")

    def cond(*args):
        p = cond_fun(tree_unflatten(tree, list(args)))
        if np.ndim(p) != 0 or np.dtype(dtype_of(p)).kind != "b":
            raise TypeError(
                f"while_loop: cond_fun must return a boolean scalar, got shape {np.shape(p)} "
                f"and dtype {np.dtype(dtype_of(p)).name} (compare, e.g. i < n)")
        return [p]

    cond_jaxpr, cond_consts = stage_flat(cond, _carry_avals(leaves))
    outs = while_bind(cond_consts, body_consts, leaves, cond_jaxpr, body_jaxpr)
    return tree_unflatten(tree, outs)


def map(f, xs):  # noqa: A001 - JAX's name
    """``f`` applied to each slice of ``xs`` along axis 0, stacked
    (``jax.lax.map``).

    Parameters
    ----------
    f : callable
    xs : pytree of arrays with a common leading length

    Returns
    -------
    pytree of arrays
    """
    return scan(lambda c, x: (c, f(x)), (), xs)[1]


def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive scan of the associative ``fn`` along ``axis``
    (``jax.lax.associative_scan``), by doubling (log2(n) rounds of ``fn`` on
    whole arrays).

    Parameters
    ----------
    fn : callable
        Associative: ``fn(a, b)`` on pytrees of arrays sliced along ``axis``.
    elems : pytree of arrays
        Same length along ``axis``.
    reverse : bool
    axis : int

    Returns
    -------
    pytree of arrays
        ``out[i] = fn(... fn(elems[0], elems[1]) ..., elems[i])``.
    """
    leaves, tree = tree_flatten(elems)
    if reverse:
        leaves = [tnp.flip(x, axis) for x in leaves]
    n = int(np.shape(leaves[0])[axis])
    shift = 1
    while shift < n:
        head = [tnp.take(x, np.arange(shift), axis=axis) for x in leaves]
        a = tree_unflatten(tree, [tnp.take(x, np.arange(0, n - shift), axis=axis) for x in leaves])
        b = tree_unflatten(tree, [tnp.take(x, np.arange(shift, n), axis=axis) for x in leaves])
        combined = tree_leaves(fn(a, b))
        leaves = [tnp.concatenate([h, c], axis=axis) for h, c in zip(head, combined)]
        shift *= 2
    if reverse:
        leaves = [tnp.flip(x, axis) for x in leaves]
    return tree_unflatten(tree, leaves)


def _starts(start_indices, shape, sizes):
    """Start indices as JAX's dynamic slices take them: negative ones count
    from the end, then each is clamped so the slice fits."""
    starts = []
    for s, n, k in zip(start_indices, shape, sizes):
        s = tnp.asarray(s).astype(np.int64)
        starts.append(tnp.clip(tnp.where(s < 0, s + n, s), 0, n - k))
    return starts


def dynamic_slice(operand, start_indices, slice_sizes):
    """``operand[s0:s0+k0, s1:s1+k1, ...]`` with possibly traced starts
    (``jax.lax.dynamic_slice``); a negative start counts from the end, and
    starts are clamped so the slice fits.

    Parameters
    ----------
    operand : array
    start_indices : sequence of int or integer scalars
        One per axis.
    slice_sizes : sequence of int
        Concrete sizes.

    Returns
    -------
    array of shape ``slice_sizes``

    Raises
    ------
    TypeError
        If the numbers of starts or sizes do not match ``operand.ndim``.
    """
    shape = tuple(np.shape(operand))
    sizes = tuple(int(k) for k in slice_sizes)
    if len(start_indices) != len(shape) or len(sizes) != len(shape):
        raise TypeError(
            f"dynamic_slice: operand has {len(shape)} axes; got {len(start_indices)} start "
            f"indices and {len(sizes)} slice sizes")
    out = operand
    for ax, (s, k) in enumerate(zip(_starts(start_indices, shape, sizes), sizes)):
        out = tnp.take(out, s + np.arange(k), axis=ax)
    return out


def dynamic_update_slice(operand, update, start_indices):
    """``operand`` with ``update`` written at ``start_indices`` (clamped so it
    fits; ``jax.lax.dynamic_update_slice``).

    Parameters
    ----------
    operand : array
    update : array
        Same rank, each axis at most ``operand``'s.
    start_indices : sequence of int or integer scalars

    Returns
    -------
    array
        A new array (``operand`` is not modified); differentiable in both.

    Raises
    ------
    TypeError
        If the ranks or the number of starts do not match.
    """
    shape, ushape = tuple(np.shape(operand)), tuple(np.shape(update))
    if len(ushape) != len(shape) or len(start_indices) != len(shape):
        raise TypeError(
            f"dynamic_update_slice: operand has {len(shape)} axes, update {len(ushape)}, "
            f"and {len(start_indices)} start indices were given")
    starts = _starts(start_indices, shape, ushape)
    grids = tnp.ix_(*[s + np.arange(k) for s, k in zip(starts, ushape)]) if shape else ()
    return tnp.at(operand)[grids].set(update) if shape else tnp.asarray(update)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at ``index`` along ``axis`` (``jax.lax.dynamic_index_in_dim``).

    Parameters
    ----------
    operand : array
    index : int or integer scalar
        Clamped to the axis.
    axis : int
    keepdims : bool
        Keep ``axis`` with length 1.

    Returns
    -------
    array
    """
    shape = tuple(np.shape(operand))
    ax = axis % len(shape)
    starts = [0] * len(shape)
    starts[ax] = index
    sizes = list(shape)
    sizes[ax] = 1
    out = dynamic_slice(operand, starts, sizes)
    return out if keepdims else tnp.squeeze(out, axis=ax)


# --------------------------------------------------------------------------
# convolution (built from the im2col primitive and matmul, so every
# transform and every order of derivative works)


def _conv_specs(dimension_numbers, ndim):
    """Permutations taking (lhs, rhs, out) to channels-first layouts, from
    JAX's string form ``("NCHW", "OIHW", "NCHW")`` (spatial axes matched by
    letter, in the order of the lhs spec) or None (channels first)."""
    if dimension_numbers is None:
        ident = tuple(range(ndim))
        return ident, ident, ident
    if len(dimension_numbers) != 3 or not all(isinstance(s, str) and len(s) == ndim
                                              for s in dimension_numbers):
        raise ValueError(
            "conv_general_dilated: dimension_numbers must be None or three strings of "
            f"{ndim} letters such as ('NCHW', 'OIHW', 'NCHW'), got {dimension_numbers!r}"
        )
    lhs, rhs, out = dimension_numbers
    spatial = [c for c in lhs if c not in "NC"]
    try:
        return (tuple(lhs.index(c) for c in "NC" + "".join(spatial)),
                tuple(rhs.index(c) for c in "OI" + "".join(spatial)),
                tuple(out.index(c) for c in "NC" + "".join(spatial)))
    except ValueError:
        raise ValueError(
            f"conv_general_dilated: the specs {dimension_numbers!r} must name the batch (N) "
            "and feature (C) axes of lhs and out, the O and I axes of rhs, and the same "
            "spatial letters in all three") from None


def _conv_padding(padding, spatial, kernel, strides, rhs_dilation):
    n = len(spatial)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * n
        if mode not in ("SAME", "SAME_LOWER"):
            raise ValueError(f"padding must be 'VALID', 'SAME', 'SAME_LOWER' or a sequence of "
                             f"(low, high) pairs, got {padding!r}")
        pads = []
        for s, k, st, d in zip(spatial, kernel, strides, rhs_dilation):
            out = -(-s // st)
            total = max((out - 1) * st + (k - 1) * d + 1 - s, 0)
            lo = total // 2 if mode == "SAME" else total - total // 2
            pads.append((lo, total - lo))
        return tuple(pads)
    pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    if len(pads) != n:
        raise ValueError(f"padding needs one (low, high) pair per spatial axis ({n}), "
                         f"got {padding!r}")
    return pads


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    """N-dimensional convolution (cross-correlation, as in deep learning), JAX's signature.

    ``out[n, o, p] = sum_{c, j} lhs_padded[n, g*Cg + c, p*stride + j*rhs_dilation]
    * rhs[o, c, j]`` with ``g = o // (O / feature_group_count)``.

    Parameters
    ----------
    lhs : array or tracer
        Input, ``(N, C, S_1, ..., S_n)`` by default.
    rhs : array or tracer
        Kernel, ``(O, C / feature_group_count, k_1, ..., k_n)`` by default.
    window_strides : sequence of int
        One per spatial axis.
    padding : str or sequence of (int, int)
        ``"VALID"``, ``"SAME"`` (output size ``ceil(S / stride)``, the extra
        padding after), ``"SAME_LOWER"`` (the extra before), or ``(low,
        high)`` per axis (negative entries crop).
    lhs_dilation, rhs_dilation : sequence of int, optional
        Input dilation (``d - 1`` zeros between elements: a transposed
        convolution) and kernel dilation ("atrous").
    dimension_numbers : tuple of 3 str, optional
        Layouts of lhs, rhs and the output, e.g. ``("NHWC", "HWIO",
        "NHWC")``; default channels first (``NCHW``, ``OIHW``, ``NCHW``).
    feature_group_count : int, optional
        Grouped convolution: ``C`` and ``O`` split into that many groups.
    batch_group_count, precision, preferred_element_type
        Only the defaults (1, None, None) are supported.

    Returns
    -------
    array or tracer
        ``(N, O, O_1, ..., O_n)`` in the output layout; the dtype is the
        operands' common dtype.

    Raises
    ------
    ValueError
        Operands of different ranks, channel counts that do not match the
        groups, bad padding or dimension numbers.
    NotImplementedError
        ``batch_group_count`` other than 1 or a ``preferred_element_type``.

    Notes
    -----
    Computed as ``rhs @ im2col(lhs)`` (one ``matmul`` per example and
    group); the reverse rules are those of ``im2col`` (``col2im``) and
    ``matmul``.
    """
    if batch_group_count != 1 or preferred_element_type is not None:
        raise NotImplementedError("conv_general_dilated: batch_group_count and "
                                  "preferred_element_type are not supported")
    nd = len(np.shape(lhs))
    if len(np.shape(rhs)) != nd or nd < 3:
        raise ValueError(f"conv_general_dilated: lhs and rhs need the same rank (at least 3), "
                         f"got shapes {np.shape(lhs)} and {np.shape(rhs)}")
    lp, rp, op = _conv_specs(dimension_numbers, nd)
    x = tnp.transpose(lhs, lp) if lp != tuple(range(nd)) else tnp.asarray(lhs)
    w = tnp.transpose(rhs, rp) if rp != tuple(range(nd)) else tnp.asarray(rhs)
    if x.dtype != w.dtype:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, "
                        f"got {x.dtype}, {w.dtype}.")
    n = nd - 2
    strides = tuple(int(s) for s in window_strides)
    lhs_dilation = (1,) * n if lhs_dilation is None else tuple(int(d) for d in lhs_dilation)
    rhs_dilation = (1,) * n if rhs_dilation is None else tuple(int(d) for d in rhs_dilation)
    if any(d > 1 for d in lhs_dilation):
        if isinstance(padding, str):
            raise ValueError("conv_general_dilated: string padding is not defined for a "
                             "transposed convolution (lhs_dilation > 1); pass (low, high) "
                             "pairs")
        x = tnp.asarray(ops.pad(x, ((0, 0, 0),) * 2 + tuple((0, 0, d - 1) for d in lhs_dilation)))
    out = tnp.asarray(conv_nchw(
        x, w, strides, _conv_padding(padding, x.shape[2:], w.shape[2:], strides, rhs_dilation),
        rhs_dilation, int(feature_group_count)))
    if op != tuple(range(nd)):
        out = tnp.transpose(out, tuple(np.argsort(op)))
    return out


def conv_nchw(x, w, strides, padding, dilation, groups):
    """Convolution of channels-first operands: the core of
    :func:`conv_general_dilated` (and of the PyTorch layer's ``conv*d``).

    ``x`` is ``(N, C, S...)``, ``w`` is ``(O, C / groups, k...)``;
    ``padding`` holds ``(low, high)`` pairs (negative entries crop).
    Returns ``(N, O, O_1, ...)``.
    """
    xs, ws = tuple(shape_of(x)), tuple(shape_of(w))
    n = len(xs) - 2
    N, C, O, Cg = xs[0], xs[1], ws[0], ws[1]
    if groups < 1 or C % groups or O % groups or C // groups != Cg:
        raise ValueError(
            f"convolution: an input of {C} channels and a kernel of shape {ws} do not fit "
            f"{groups} group(s): C must be groups * kernel.shape[1] and O a multiple of groups"
        )
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        x = ops.slice(x, (0, 0) + tuple(max(-lo, 0) for lo, _ in padding),
                      xs[:2] + tuple(s - max(-hi, 0) for s, (_, hi) in zip(xs[2:], padding)))
        padding = tuple((max(lo, 0), max(hi, 0)) for lo, hi in padding)
    kernel = ws[2:]
    cols = ops.im2col(x, kernel, strides, padding, dilation)
    out_sp = tuple(shape_of(cols))[2 + n:]
    K, L = math.prod(kernel), math.prod(out_sp)
    if groups == 1:
        out = ops.matmul(ops.reshape(w, (O, C * K)), ops.reshape(cols, (N, C * K, L)))
    else:
        out = ops.matmul(ops.reshape(w, (groups, O // groups, Cg * K)),
                         ops.reshape(cols, (N, groups, Cg * K, L)))
    return ops.reshape(out, (N, O) + out_sp)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """:func:`conv_general_dilated` without dilation or groups (JAX's ``lax.conv``).

    Parameters
    ----------
    lhs : array or tracer
        ``(N, C, S...)``.
    rhs : array or tracer
        ``(O, C, k...)``.
    window_strides : sequence of int
    padding : str or sequence of (int, int)

    Returns
    -------
    array or tracer
        ``(N, O, O_1, ...)``.
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """Every window of ``lhs`` as features (JAX's ``lax.conv_general_dilated_patches``).

    Parameters
    ----------
    lhs : array or tracer
        ``(N, C, S...)`` by default (``dimension_numbers`` as in
        :func:`conv_general_dilated`).
    filter_shape : sequence of int
        The window ``(k_1, ..., k_n)``.
    window_strides, padding, lhs_dilation, rhs_dilation
        As in :func:`conv_general_dilated`.

    Returns
    -------
    array or tracer
        ``(N, C * k_1 * ... * k_n, O_1, ..., O_n)`` in the output layout:
        feature ``c * K + j`` is input channel ``c`` at kernel offset ``j``
        (row-major over the window), as in JAX.
    """
    if preferred_element_type is not None:
        raise NotImplementedError("conv_general_dilated_patches: preferred_element_type is "
                                  "not supported")
    nd = len(np.shape(lhs))
    lp, _, op = _conv_specs(None if dimension_numbers is None else
                            (dimension_numbers[0], "OI" + "".join(
                                c for c in dimension_numbers[0] if c not in "NC"),
                             dimension_numbers[2]), nd)
    x = tnp.transpose(lhs, lp) if lp != tuple(range(nd)) else tnp.asarray(lhs)
    n = nd - 2
    kernel = tuple(int(k) for k in filter_shape)
    strides = tuple(int(s) for s in window_strides)
    lhs_dilation = (1,) * n if lhs_dilation is None else tuple(int(d) for d in lhs_dilation)
    rhs_dilation = (1,) * n if rhs_dilation is None else tuple(int(d) for d in rhs_dilation)
    if any(d > 1 for d in lhs_dilation):
        x = tnp.asarray(ops.pad(x, ((0, 0, 0),) * 2 + tuple((0, 0, d - 1) for d in lhs_dilation)))
    pads = _conv_padding(padding, x.shape[2:], kernel, strides, rhs_dilation)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        x = x[(slice(None), slice(None)) + tuple(
            slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in zip(x.shape[2:], pads))]
        pads = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    cols = ops.im2col(x, kernel, strides, pads, rhs_dilation)
    s = tuple(np.shape(cols))
    out = tnp.asarray(ops.reshape(cols, (s[0], s[1] * int(np.prod(kernel))) + s[2 + n:]))
    if op != tuple(range(nd)):
        out = tnp.transpose(out, tuple(np.argsort(op)))
    return out
