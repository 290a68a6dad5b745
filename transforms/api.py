"""The public transforms: vjp, jvp, grad, value_and_grad, jacfwd, jacrev, hessian.

Pytrees are flattened here, once, at the edge; ``argnums`` and ``has_aux``
are handled here too.  The functions below then run the user's function
under a fresh interpreter (see ``tracegrad.interpreters``) and read the
results back.  Names, signatures and output layouts follow JAX.

:func:`record_vjp` is reverse mode's entry point: it runs a function under
the reverse-mode interpreter and returns the graph it recorded; the
transforms here and tools that draw or inspect the graph
(:mod:`tracegrad.viz`) are built on it.
"""
import functools
import numbers
from typing import NamedTuple

import numpy as np

from .._array import Array
from ..core import Tracer, new_trace
from ..primitives import ops
from ..interpreters.jvp import JVPTrace, JVPTracer, split_jvp
from ..interpreters.vjp import VJPTrace, VJPTracer, backward_pass
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from .batching import vmap

__all__ = [
    "record_vjp",
    "VJPRecord",
    "float0",
    "stop_gradient",
    "vjp",
    "jvp",
    "grad",
    "value_and_grad",
    "jacfwd",
    "jacrev",
    "jacobian",
    "hessian",
]


# --------------------------------------------------------------------------
# edge helpers


def _check_callable(fun, name):
    if not callable(fun):
        raise TypeError(f"{name} requires a callable as its first argument, got {fun!r}")


def _as_value(x, what):
    """A pytree leaf as an array (or tracer), rejecting non-numeric leaves.

    A :class:`tracegrad.Array` becomes a plain ndarray view: the
    interpreters compute on plain ndarrays (a subclass slows every ufunc)."""
    if isinstance(x, (Tracer, np.ndarray, np.generic)):
        return x.view(np.ndarray) if type(x) is Array else x
    if isinstance(x, (numbers.Number, bool)) or isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise TypeError(
        f"{what}: {x!r} of type {type(x).__name__} is not a valid array value; "
        "arguments must be arrays, scalars or pytrees (tuples, lists, dicts) of them."
    )


#: The dtype of the derivative of an integer or bool input (JAX's ``float0``):
#: zero-size elements, so such a "gradient" carries only a shape.
float0 = np.dtype([("float0", "V")])


def _is_inexact(x):
    return np.dtype(x.dtype).kind in "fc"


def _leaf_dtype(leaf):
    return np.dtype(np.asarray(leaf).dtype if not hasattr(leaf, "dtype") else leaf.dtype)


def _check_inputs(args, argnums, name, holomorphic=False, allow_int=False, real=False):
    """Refuse argument leaves ``name`` cannot differentiate, as JAX does.

    ``holomorphic``: every leaf must be complex.  Otherwise ``real``
    (forward-mode Jacobians) asks for real floating leaves, and reverse mode
    takes float or complex leaves, plus integer and bool ones with
    ``allow_int``.
    """
    for i, a in zip(argnums, args):
        for leaf in tree_flatten(a)[0]:
            dt = _leaf_dtype(leaf)
            if holomorphic:
                if dt.kind != "c":
                    raise TypeError(
                        f"{name} with holomorphic=True requires inputs with complex dtype, "
                        f"but argument {i} has dtype {dt}. Pass complex arrays (for example "
                        "x.astype(complex)), or drop holomorphic=True."
                    )
            elif real:
                if dt.kind != "f":
                    raise TypeError(
                        f"{name} requires real-valued inputs (a floating dtype), but argument "
                        f"{i} has dtype {dt}. For holomorphic differentiation of complex "
                        "inputs pass holomorphic=True; for non-holomorphic functions of "
                        "complex inputs use tracegrad.jvp directly (or jacrev); pass a float "
                        "array for an integer one, or exclude the argument with argnums."
                    )
            elif dt.kind not in "fc" and not (allow_int and dt.kind in "biu"):
                raise TypeError(
                    f"{name} requires real- or complex-valued inputs (a float or complex "
                    f"dtype), but argument {i} has dtype {dt}. Pass a float array (for "
                    "example x.astype(float) or 1.0 instead of 1), set allow_int=True (its "
                    "gradient is then float0 zeros), or exclude the argument with argnums."
                )


def _check_reduce_axes(reduce_axes, name):
    if reduce_axes:
        raise NotImplementedError(
            f"reduce_axes argument to {name} is deprecated (JAX removed it too): "
            f"got {reduce_axes!r}; pass reduce_axes=() or leave it out, and reduce the "
            "gradient yourself."
        )


def _normalize_argnums(argnums, nargs, name):
    single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
    try:
        seq = (argnums,) if single else tuple(argnums)
    except TypeError:
        seq = (argnums,)
    if not all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in seq):
        raise TypeError(
            f"{name}: argnums must be an int or a tuple of ints, got {argnums!r}."
        )
    nums = tuple(int(a) for a in seq)
    if not nums:
        raise ValueError(f"{name}: argnums must not be empty")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise TypeError(
                f"{name}: differentiating with respect to argnums={argnums} requires "
                f"at least {max(a, -a - 1) + 1} positional arguments, but the "
                f"function was called with {nargs}."
            )
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise ValueError(
            f"{name}: argnums {argnums!r} names the same argument twice; list each "
            "argument once."
        )
    return single, tuple(out)


def _partial(fun, args, kwargs, argnums):
    """``fun`` as a function of the arguments at ``argnums`` only."""

    def f(*dyn):
        full = list(args)
        for i, a in zip(argnums, dyn):
            full[i] = a
        return fun(*full, **kwargs)

    return f


def _split_aux(out, name):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        kind = "an array" if isinstance(out, (Tracer, np.ndarray, np.generic)) else (
            f"a {type(out).__name__}"
            + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else "")
        )
        raise TypeError(
            f"{name} with has_aux=True requires the function to return a pair "
            f"(output, auxiliary data), but it returned {kind}."
        )
    return out[0], out[1]


def _materialize(x):
    """Give users writable arrays (not read-only broadcast views)."""
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        return np.array(x)
    return x


def _fresh(leaves, protected=()):
    """Make every ndarray leaf one the caller may mutate freely.

    A leaf is copied if it is a view or read-only (its memory may belong to
    an argument or to the recorded graph), if it is the same object as an
    earlier leaf, or if it is one of the ``protected`` arrays (the caller's
    own cotangents or tangents, which identity-like rules pass through).
    NumPy scalars become 0-d arrays, so derivatives are always ndarrays.
    """
    seen = set(map(id, protected))
    out = []
    for x in leaves:
        if isinstance(x, np.generic):
            x = np.asarray(x)  # derivatives are always arrays (0-d for scalars)
        elif isinstance(x, np.ndarray):
            if id(x) in seen or not (x.flags.owndata and x.flags.writeable):
                x = np.array(x)
            seen.add(id(x))
        out.append(x)
    return out


def stop_gradient(x):
    """Return ``x`` unchanged, as a constant to every enclosing transform.

    Parameters
    ----------
    x : array, tracer, scalar or pytree of them
        Any shapes and dtypes.

    Returns
    -------
    pytree
        ``x``'s structure and values; every leaf is a concrete array (never a
        tracer), so no derivative flows through it at any nesting level.

    Notes
    -----
    Use it to hold a value fixed (a target, a normalizing constant, the
    shift in a numerically stable log-sum-exp), or to store a traced value
    outside its transform without leaking the tracer.

    Examples
    --------
    >>> import tracegrad as tg
    >>> float(tg.grad(lambda x: x * tg.stop_gradient(x))(3.0))
    3.0
    >>> float(tg.grad(lambda x: tg.stop_gradient([x])[0] * x)(3.0))
    3.0
    """
    return tree_map(ops.stop_gradient, x)


# --------------------------------------------------------------------------
# reverse mode


def _unwrap_vjp(trace, x):
    """(primal, node, out_index) of an output leaf; node None if constant."""
    if type(x) is VJPTracer and x._trace is trace:
        return x.primal, x.node, x.out_index
    return _as_value(x, "output"), None, 0


def _strip(trace, tree):
    """Replace this trace's tracers in ``tree`` by their primals (for aux)."""
    return tree_map(
        lambda x: x.primal if isinstance(x, VJPTracer) and x._trace is trace
        else (x.primal if isinstance(x, JVPTracer) and x._trace is trace else x),
        tree,
    )


def vjp(fun, *primals, has_aux=False):
    """Evaluate ``fun`` and return a function computing vector-Jacobian products.

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments returning a
        pytree of arrays (or, with ``has_aux``, a pair ``(output, aux)``).
    *primals : pytrees of arrays
        Where to evaluate ``fun``; float leaves are differentiated.
    has_aux : bool, optional
        See ``fun``.

    Returns
    -------
    out : pytree
        ``fun(*primals)``.
    vjp_fun : callable
        ``vjp_fun(ct)``, where ``ct`` has the structure, shapes and dtypes of
        ``out``, returns a tuple with one cotangent pytree per primal (shaped
        like that primal).  It may be called many times.
    aux : pytree
        Only with ``has_aux=True``.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, a primal leaf is not numeric, or
        (``has_aux``) ``fun`` does not return a pair; when ``vjp_fun`` is
        called, if the cotangent's structure or dtype does not match the
        output.
    ValueError
        If a cotangent's shape does not match the output.

    Notes
    -----
    Only floating-point (and complex) leaves of ``primals`` are traced;
    integer and bool leaves are constants and get zero cotangents of dtype
    :data:`float0` (JAX's convention).  ``fun`` runs once; each ``vjp_fun`` call is one
    backward pass over the recorded graph.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg
    >>> y, vjp_fun = tg.vjp(lambda x: x ** 2, np.array([1.0, 3.0]))
    >>> vjp_fun(np.array([1.0, 10.0]))
    (array([ 2., 60.]),)
    """
    _check_callable(fun, "vjp")
    return _vjp(fun, primals, has_aux, "vjp")


class VJPRecord(NamedTuple):
    """What one reverse-mode run of a function recorded (:func:`record_vjp`).

    Attributes
    ----------
    inputs : list
        The flattened input leaves, as arrays (or tracers of enclosing
        transforms).
    in_tree : PyTreeDef
        The structure of the primals.
    input_nodes : list
        Per input leaf, the graph's leaf node for it (``node.prim`` is None,
        ``node.ans`` its value), or None for an integer or bool leaf, which
        is a constant.
    outputs : list of tuple
        Per flattened output leaf, ``(primal, node, out_index)``: its value,
        the graph node that computed it (None when the output does not
        depend on a traced input) and which of that node's results it is.
    out_tree : PyTreeDef
        The structure of the output.
    aux : pytree or None
        The auxiliary output (``has_aux=True``), stripped of this run's
        tracers; None otherwise.
    """

    inputs: list
    in_tree: object
    input_nodes: list
    outputs: list
    out_tree: object
    aux: object


def record_vjp(fun, primals, has_aux=False, name="record_vjp"):
    """Run ``fun(*primals)`` once under the reverse-mode interpreter and
    return the graph it recorded.

    This is the entry point of reverse mode: :func:`vjp`, :func:`grad`,
    :func:`value_and_grad` and :func:`jacrev` are built on it, and tools
    that read the recorded graph instead of running a backward pass over it
    (:func:`tracegrad.viz.make_dot`) call it rather than driving
    ``tracegrad.interpreters.vjp.VJPTrace`` themselves.  Each node of the
    graph has ``prim`` (None for an input), ``params``, ``primals`` (the
    operands it keeps for its VJP rules), ``ans`` and ``parents``
    (``(operand index, parent node, parent's out_index)`` per traced
    operand).

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments returning a
        pytree of arrays (or, with ``has_aux``, a pair ``(output, aux)``).
    primals : tuple
        The arguments: pytrees of arrays or scalars.  Floating-point and
        complex leaves are traced; integer and bool leaves are constants.
    has_aux : bool, optional
        See ``fun``.
    name : str, optional
        The public function whose errors these are (``"vjp"``,
        ``"make_dot"``).

    Returns
    -------
    VJPRecord
        The input leaves and their graph nodes, the output leaves with the
        nodes that computed them, both structures and ``aux``.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, a primal leaf is not numeric, or
        (``has_aux``) ``fun`` does not return a pair.
    """
    _check_callable(fun, name)
    return VJPRecord(*_record_vjp(fun, primals, has_aux, name))


def _record_vjp(fun, primals, has_aux, name):
    """:func:`record_vjp`'s fields as a plain tuple (``vjp``'s path, per call)."""
    flat, in_tree = tree_flatten(primals)
    flat = [_as_value(x, name) for x in flat]
    aux = None
    with new_trace(VJPTrace) as trace:
        tracers = [trace.new_arg(x) if _is_inexact(x) else x for x in flat]
        out = fun(*tree_unflatten(in_tree, tracers))
        if has_aux:
            out, aux = _split_aux(out, name)
            aux = _strip(trace, aux)
        out_flat, out_tree = tree_flatten(out)
        outs = [_unwrap_vjp(trace, o) for o in out_flat]
    leaf_nodes = [t.node if isinstance(t, VJPTracer) else None for t in tracers]
    return flat, in_tree, leaf_nodes, outs, out_tree, aux


def _vjp(fun, primals, has_aux, name):
    """:func:`vjp`, with errors naming the public transform ``name``."""
    flat, in_tree, leaf_nodes, outs, out_tree, aux = _record_vjp(fun, primals, has_aux, name)
    out_primals = [o[0] for o in outs]

    def vjp_fun(ct):
        ct_flat, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(
                f"The cotangent has structure {ct_tree}, but the function's output "
                f"has structure {out_tree}; pass one cotangent per output leaf."
            )
        entries = []
        for c, (p, node, k) in zip(ct_flat, outs):
            if node is None:
                continue
            entries.append((node, k, _check_cotangent(c, p)))
        cts = backward_pass(entries)
        results = []
        for x, node in zip(flat, leaf_nodes):
            g = cts.get(node) if node is not None else None
            if g is None:
                g = np.zeros(np.shape(x), x.dtype if _is_inexact(x) else float0)
            results.append(g)
        del cts
        results = _fresh(results, protected=ct_flat)
        return tuple(tree_unflatten(in_tree, results))

    out = tree_unflatten(out_tree, out_primals)
    return (out, vjp_fun, aux) if has_aux else (out, vjp_fun)


def _check_cotangent(c, p):
    p_shape = np.shape(p) if not isinstance(p, Tracer) else p.shape
    if not isinstance(c, (np.ndarray, np.generic, Tracer)):
        c = np.asarray(c, dtype=p.dtype)
    if c.shape != p_shape:
        raise ValueError(
            f"Cotangent has shape {c.shape}, but the output it belongs to has shape "
            f"{p_shape}; the cotangent must have the output's shape."
        )
    if c.dtype != p.dtype:
        raise TypeError(
            f"Cotangent has dtype {c.dtype}, but the output it belongs to has dtype "
            f"{p.dtype}; cast it with .astype({str(p.dtype)!r})."
        )
    return c


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """Return a function computing both ``fun`` and its gradient.

    Parameters
    ----------
    fun : callable
        Function whose output is a real floating-point scalar (shape ``()``).
    argnums : int or tuple of ints, optional
        Positional argument(s) to differentiate with respect to.
    has_aux : bool, optional
        If True, ``fun`` returns ``(output, aux)``; aux is passed through.
    holomorphic : bool, optional
        See :func:`grad`.
    allow_int : bool, optional
        See :func:`grad`.
    reduce_axes : tuple, optional
        Must be empty (JAX's deprecated keyword, accepted for its signature).

    Returns
    -------
    callable
        ``(*args, **kwargs) -> (value, grad)`` or ``((value, aux), grad)``;
        ``grad`` has the structure of ``args[argnums]`` (a tuple of them when
        ``argnums`` is a tuple).

    Raises
    ------
    TypeError
        If ``fun`` is not callable; when called, in the cases listed by
        :func:`grad`.
    ValueError
        If ``argnums`` is an empty tuple.
    NotImplementedError
        If ``reduce_axes`` is not empty (as in JAX).
    """
    _check_callable(fun, "value_and_grad")
    _check_reduce_axes(reduce_axes, "value_and_grad")
    return _value_and_grad(fun, argnums, has_aux, "value_and_grad", holomorphic, allow_int)


def _value_and_grad(fun, argnums, has_aux, name, holomorphic=False, allow_int=False):
    """:func:`value_and_grad`, with errors naming the public transform ``name``."""

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        single, nums = _normalize_argnums(argnums, len(args), name)
        dyn = tuple(args[i] for i in nums)
        _check_inputs(dyn, nums, name, holomorphic, allow_int)
        res = _vjp(_partial(fun, args, kwargs, nums), dyn, has_aux, name)
        ans, vjp_fun = res[0], res[1]
        _check_scalar_output(ans, name, holomorphic)
        g = vjp_fun(np.ones((), ans.dtype))
        if allow_int:
            g = tuple(_float0_for_ints(gi, xi) for gi, xi in zip(g, dyn))
        g = g[0] if single else g
        return ((ans, res[2]), g) if has_aux else (ans, g)

    return value_and_grad_f


def _float0_for_ints(g, x):
    """``g`` with float0 zeros in place of the leaves of integer or bool inputs."""
    g_flat, g_tree = tree_flatten(g)
    x_flat = tree_flatten(x)[0]
    out = [np.zeros(np.shape(gi), float0) if _leaf_dtype(xi).kind in "biu" else gi
           for gi, xi in zip(g_flat, x_flat)]
    return tree_unflatten(g_tree, out)


def _check_scalar_output(ans, name, holomorphic=False):
    if not isinstance(ans, (np.ndarray, np.generic, Tracer)):
        raise TypeError(
            f"{name}: gradient only defined for scalar-output functions; the output is a "
            f"{type(ans).__name__}. For pytree or non-scalar outputs use "
            "tracegrad.jacrev or tracegrad.vjp."
        )
    if ans.shape != ():
        raise TypeError(
            f"{name}: gradient only defined for scalar-output functions. Output had shape "
            f"{ans.shape}. For non-scalar outputs use tracegrad.jacrev (the full "
            "Jacobian) or tracegrad.vjp (a vector-Jacobian product)."
        )
    kind = np.dtype(ans.dtype).kind
    if holomorphic:
        if kind != "c":
            raise TypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, but "
                f"got {ans.dtype}. Drop holomorphic=True for a real-valued function."
            )
        return
    if kind == "c":
        raise TypeError(
            f"{name} requires real-valued outputs (a floating dtype), but got {ans.dtype}. "
            "For holomorphic differentiation, pass holomorphic=True. For differentiation "
            "of non-holomorphic functions involving complex outputs, use tracegrad.vjp "
            "directly, or differentiate a real function of the output (its real part, "
            "abs)."
        )
    if kind != "f":
        raise TypeError(
            f"{name}: gradient only defined for floating-point outputs; the output has "
            f"dtype {ans.dtype}."
        )


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """Return a function computing the gradient of scalar-valued ``fun``.

    ``grad(f)(x)`` is ``df/dx`` at ``x``, computed by one reverse-mode pass
    (a :func:`vjp` with cotangent 1.0).

    Parameters
    ----------
    fun : callable
        Function of positional (and keyword) arguments whose output is a
        real floating-point scalar: shape ``()``, dtype float32 or float64
        (an array, NumPy scalar or tracer).  The arguments at ``argnums``
        are pytrees (tuples, lists, dicts, namedtuples, registered classes)
        of floating-point arrays or Python floats.
    argnums : int or tuple of ints, optional
        Positional argument(s) to differentiate with respect to (default
        0); negative values count from the end.  Keyword arguments are
        never differentiated.
    has_aux : bool, optional
        If True, ``fun`` returns a pair ``(output, aux)``; ``aux`` (any
        pytree) is returned alongside the gradient, not differentiated.
    holomorphic : bool, optional
        If True, ``fun`` is a holomorphic function of complex inputs with a
        complex scalar output, and the result is its complex derivative
        ``f'(z)`` (a cotangent of ``1 + 0j``).  Inputs and output must then
        be complex.
    allow_int : bool, optional
        If True, integer and bool inputs are accepted; their gradient is
        zeros of dtype :data:`float0` (JAX's convention).
    reduce_axes : tuple, optional
        Must be empty: JAX's deprecated keyword, accepted for its signature.

    Returns
    -------
    callable
        ``grad_f(*args, **kwargs)`` returning the gradient: a pytree with the
        structure of ``args[argnums]`` whose leaves have the shape and dtype
        of the matching input leaves (a tuple of such pytrees when
        ``argnums`` is a tuple).  With ``has_aux=True`` it returns
        ``(gradient, aux)``.  Leaves are NumPy arrays or NumPy scalars (a
        float32 input gives a float32 gradient); a function that does not
        depend on an input gives zeros for it.

    Raises
    ------
    TypeError
        Raised by ``grad_f`` (not by ``grad``, except for a non-callable
        ``fun``): if the output is not a scalar (the message gives its shape
        and points to :func:`jacrev` and :func:`vjp`), is integer or bool, or
        is complex without ``holomorphic=True``; if an argument at
        ``argnums`` has a leaf that is non-numeric, or integer or bool
        without ``allow_int=True``; with ``holomorphic=True``, if an input
        leaf or the output is not complex; if ``argnums`` refers to a missing
        positional argument; or if ``has_aux=True`` and ``fun`` does not
        return a pair.
    ValueError
        If ``argnums`` is an empty tuple.
    NotImplementedError
        If ``reduce_axes`` is not empty (raised by ``grad`` itself, as in JAX).

    See Also
    --------
    value_and_grad : the value and the gradient in one pass.
    jacrev, jacfwd : Jacobians of non-scalar functions.

    Notes
    -----
    Derivatives at kinks and ties follow each primitive's documented
    convention (for example ``abs'(0) = 0``, ties in ``max`` share the
    derivative evenly).  ``grad`` composes with itself and with the other
    transforms: ``grad(grad(f))`` is the second derivative.

    Complex inputs follow JAX's convention: for a real-valued ``f`` of
    ``z = x + iy`` the gradient is ``df/dx - i df/dy`` (so
    ``grad(lambda z: abs(z) ** 2)(z) == 2 * conj(z)``); for a holomorphic
    ``f`` with ``holomorphic=True`` it is ``f'(z)``.

    Examples
    --------
    >>> import tracegrad as tg, tracegrad.numpy as tnp
    >>> float(tg.grad(lambda x: x ** 3)(2.0))
    12.0
    >>> tg.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
    (array(5.), array(2.))
    """
    _check_callable(fun, "grad")
    _check_reduce_axes(reduce_axes, "grad")
    vg = _value_and_grad(fun, argnums, has_aux, "grad", holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


# --------------------------------------------------------------------------
# forward mode


def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode Jacobian-vector product of ``fun`` at ``primals``.

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments.
    primals : tuple or list of pytrees
        Where to evaluate ``fun``.
    tangents : tuple or list of pytrees
        Same structure, shapes and dtypes as ``primals``; an integer or
        bool primal takes a tangent of dtype :data:`float0` (JAX's rule).
    has_aux : bool, optional
        If True, ``fun`` returns ``(output, aux)``.

    Returns
    -------
    out : pytree
        ``fun(*primals)``.
    tangent_out : pytree
        ``J(primals) @ tangents``, shaped like ``out``; an integer or bool
        output leaf has float0 zeros (JAX's convention: it has no
        derivative).
    aux : pytree
        Only with ``has_aux=True``.

    Raises
    ------
    TypeError
        If ``primals``/``tangents`` are not tuples or lists, their structures
        differ, a tangent's dtype differs from its primal's, or an integer or
        bool primal has a tangent that is not float0.
    ValueError
        If a tangent's shape differs from its primal's.

    Notes
    -----
    One evaluation of ``fun`` carries the tangents along (forward mode).
    Outputs that do not depend on the traced primals get zero tangents.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg
    >>> tg.jvp(lambda x: x ** 2, (np.array([1.0, 3.0]),), (np.array([1.0, 0.5]),))
    (array([1., 9.]), array([2., 3.]))
    """
    _check_callable(fun, "jvp")
    _check_integer_tangents(primals, tangents, "jvp")
    res = _jvp(fun, primals, tangents, has_aux, "jvp")
    t_flat, t_tree = tree_flatten(res[1])
    t_flat = [np.zeros(np.shape(t), float0) if _leaf_dtype(t).kind in "biu" else t
              for t in t_flat]
    return (res[0], tree_unflatten(t_tree, t_flat)) + tuple(res[2:])


def _check_integer_tangents(primals, tangents, name):
    """An integer or bool primal takes a float0 tangent (JAX's rule), so a
    tangent that would be silently dropped is refused."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        return  # _jvp names the problem
    p_flat, p_tree = tree_flatten(tuple(primals))
    t_flat, t_tree = tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        return
    for p, t in zip(p_flat, t_flat):
        pd = _leaf_dtype(p)
        if pd.kind in "biu":
            td = _leaf_dtype(t)
            if td != float0:
                raise TypeError(
                    f"primal and tangent arguments to tracegrad.{name} do not match; dtypes "
                    "must be equal, or in case of int/bool primal dtype the tangent dtype "
                    f"must be float0. Got primal dtype {pd} and so expected tangent dtype "
                    f"{float0}, but got tangent dtype {td} instead. An integer input has "
                    f"no derivative: pass np.zeros(shape, tracegrad.float0) as its tangent, "
                    "or close over it instead of passing it."
                )


def _jvp(fun, primals, tangents, has_aux, name):
    """:func:`jvp`, with errors naming the public transform ``name``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to tracegrad.jvp must be tuples or lists; "
            f"found {type(primals).__name__} and {type(tangents).__name__}."
        )
    p_flat, p_tree = tree_flatten(tuple(primals))
    t_flat, t_tree = tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError(
            f"primal and tangent arguments to tracegrad.jvp must have the same tree "
            f"structure; got {p_tree} and {t_tree}."
        )
    p_flat = [_as_value(p, name) for p in p_flat]
    t_flat = [_as_tangent(t, p) for p, t in zip(p_flat, t_flat)]
    with new_trace(JVPTrace) as trace:
        tracers = [
            trace.new_arg(p, t) if _is_inexact(p) else p for p, t in zip(p_flat, t_flat)
        ]
        out = fun(*tree_unflatten(p_tree, tracers))
        if has_aux:
            out, aux = _split_aux(out, name)
            aux = _strip(trace, aux)
        out_flat, out_tree = tree_flatten(out)
        primals_out, tangents_out = split_jvp(trace, out_flat)
        for i, t in enumerate(tangents_out):
            if t is None:
                primals_out[i] = o = _as_value(primals_out[i], "output")
                tangents_out[i] = np.zeros(o.shape, o.dtype)
    tangents_out = _fresh(tangents_out, protected=t_flat)
    res = (tree_unflatten(out_tree, primals_out), tree_unflatten(out_tree, tangents_out))
    return res + (aux,) if has_aux else res


def _as_tangent(t, p):
    if not _is_inexact(p) and _leaf_dtype(t) == float0:
        t = np.zeros(np.shape(t), float0)
    elif not isinstance(t, (np.ndarray, np.generic, Tracer)):
        t = np.asarray(t, dtype=p.dtype if _is_inexact(p) else None)
    if t.shape != p.shape:
        raise ValueError(
            f"tracegrad.jvp: a tangent has shape {t.shape} but its primal has shape "
            f"{p.shape}; tangents must match their primals' shapes."
        )
    if _is_inexact(p) and t.dtype != p.dtype:
        raise TypeError(
            f"tracegrad.jvp: a tangent has dtype {t.dtype} but its primal has dtype "
            f"{p.dtype}; cast it with .astype({str(p.dtype)!r})."
        )
    return t


# --------------------------------------------------------------------------
# Jacobians


def _basis_batch(shape, dtype):
    """The standard basis of arrays of ``shape``, stacked: ``(size,) + shape``."""
    size = int(np.prod(shape, dtype=np.int64))
    return np.eye(size, dtype=dtype).reshape((size,) + tuple(shape))


def _leaf_shape(x):
    return tuple(x.shape)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian of ``fun`` by reverse mode (one VJP per output element).

    ``jacobian`` is another name for this function.

    Parameters
    ----------
    fun : callable
        Function of positional (and keyword) arguments returning a pytree of
        arrays of any shapes.
    argnums : int or tuple of ints, optional
        Positional argument(s) to differentiate with respect to (default
        0); their leaves must be floating point or complex.
    has_aux : bool, optional
        If True, ``fun`` returns ``(output, aux)``; ``aux`` is passed through.
    holomorphic : bool, optional
        If True, ``fun`` is holomorphic with complex inputs and outputs and
        the Jacobian holds complex derivatives.  Without it, complex inputs
        are allowed (a real output's Jacobian then has the inputs' complex
        dtype, JAX's convention) but complex outputs are not.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> jac`` (or ``(jac, aux)``).  For an output leaf
        of shape ``O`` and an input leaf of shape ``I`` the block has shape
        ``O + I`` and the input leaf's dtype; blocks are nested with the
        output's structure outside and the input's (a tuple of them for a
        tuple ``argnums``) inside, as in JAX.

    Raises
    ------
    TypeError
        If ``fun`` is not callable; when called, if a leaf of an argument at
        ``argnums`` is not floating point (or complex, see ``holomorphic``),
        an output is complex without ``holomorphic`` (``jacrev``) or real
        with it, ``argnums`` refers to a missing argument, or
        ``has_aux=True`` and ``fun`` does not return a pair.
    ValueError
        If ``argnums`` is an empty tuple.

    Notes
    -----
    Costs one reverse pass per output element (the forward pass is shared);
    prefer :func:`jacfwd` when the inputs have fewer elements than the
    outputs.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg
    >>> tg.jacrev(lambda x: x[:2] * x[1:])(np.array([1.0, 2.0, 3.0]))
    array([[2., 1., 0.],
           [0., 3., 2.]])
    """
    _check_callable(fun, "jacrev")
    return _jacrev(fun, argnums, has_aux, "jacrev", holomorphic)


def _check_jacobian_outputs(y_flat, name, holomorphic, mode):
    for y in y_flat:
        kind = _leaf_dtype(y).kind
        if holomorphic and kind != "c":
            raise TypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, but got "
                f"{_leaf_dtype(y)}. Drop holomorphic=True for a real-valued function."
            )
        if mode == "rev" and not holomorphic and kind == "c":
            raise TypeError(
                f"{name} requires real-valued outputs (a floating dtype), but got "
                f"{_leaf_dtype(y)}. For holomorphic differentiation, pass holomorphic=True. "
                "For differentiation of non-holomorphic functions involving complex "
                "outputs, use tracegrad.vjp directly, or jacfwd (which takes real inputs "
                "to complex outputs)."
            )


def _jacrev(fun, argnums, has_aux, name, holomorphic=False):
    """:func:`jacrev`, with errors naming the public transform ``name``."""

    @functools.wraps(fun)
    def jacfun(*args, **kwargs):
        single, nums = _normalize_argnums(argnums, len(args), name)
        dyn = tuple(args[i] for i in nums)
        _check_inputs(dyn, nums, name, holomorphic)
        res = _vjp(_partial(fun, args, kwargs, nums), dyn, has_aux, name)
        y, vjp_fun = res[0], res[1]
        y_flat, y_tree = tree_flatten(y)
        _check_jacobian_outputs(y_flat, name, holomorphic, "rev")
        x_flat, x_tree = tree_flatten(dyn)
        x_flat = [_as_value(x, name) for x in x_flat]
        blocks = [[None] * len(x_flat) for _ in y_flat]
        for j, yj in enumerate(y_flat):
            yshape = _leaf_shape(yj)
            n = int(np.prod(yshape, dtype=np.int64))
            if n == 0:
                rows = [np.zeros((0,) + _leaf_shape(x), x.dtype) for x in x_flat]
            else:
                # all of output j's basis cotangents at once: vmap of the VJP
                basis = _basis_batch(yshape, yj.dtype)
                cts = [np.zeros(_leaf_shape(o), o.dtype) for o in y_flat]
                axes = [None] * len(y_flat)
                cts[j], axes[j] = basis, 0
                pull = vmap(lambda c: tree_flatten(vjp_fun(tree_unflatten(y_tree, c)))[0],
                            in_axes=(axes,))
                rows = pull(cts)
            for i, xi in enumerate(x_flat):
                blocks[j][i] = _materialize(ops.reshape(rows[i], yshape + _leaf_shape(xi)))
        jac = _assemble(blocks, y_tree, x_tree, single)
        return (jac, res[2]) if has_aux else jac

    return jacfun


def _assemble(blocks, y_tree, x_tree, single):
    per_out = []
    for row in blocks:
        inner = tree_unflatten(x_tree, row)  # tuple over argnums
        per_out.append(inner[0] if single else inner)
    return tree_unflatten(y_tree, per_out)


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian of ``fun`` by forward mode (one JVP per input element).

    Parameters
    ----------
    fun : callable
        Function of positional (and keyword) arguments returning a pytree of
        arrays of any shapes.
    argnums : int or tuple of ints, optional
        Positional argument(s) to differentiate with respect to (default
        0); their leaves must be real floating point (complex with
        ``holomorphic``).
    has_aux : bool, optional
        If True, ``fun`` returns ``(output, aux)``; ``aux`` (from the first
        evaluation) is passed through.
    holomorphic : bool, optional
        If True, ``fun`` is holomorphic with complex inputs and outputs and
        the Jacobian holds complex derivatives.  Without it the inputs must
        be real (complex outputs are allowed), as in JAX.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> jac`` (or ``(jac, aux)``), laid out as in
        :func:`jacrev`: for an output leaf of shape ``O`` and an input leaf
        of shape ``I`` the block has shape ``O + I``, nested with the
        output's structure outside and the input's inside.  Blocks have the
        output leaf's dtype (a tangent of the output), where :func:`jacrev`
        gives the input leaf's dtype.

    Raises
    ------
    TypeError
        If ``fun`` is not callable; when called, if a leaf of an argument at
        ``argnums`` is not floating point (or complex, see ``holomorphic``),
        an output is complex without ``holomorphic`` (``jacrev``) or real
        with it, ``argnums`` refers to a missing argument, or
        ``has_aux=True`` and ``fun`` does not return a pair.
    ValueError
        If ``argnums`` is an empty tuple.

    Notes
    -----
    Evaluates ``fun`` once per input element (each a :func:`jvp` along one
    standard basis vector); cheaper than :func:`jacrev` when the inputs
    have fewer elements than the outputs.  With no input elements at all,
    ``fun`` is evaluated once for the output shapes and the blocks are
    empty.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg
    >>> tg.jacfwd(lambda x: x ** 2)(np.array([1.0, 3.0]))
    array([[2., 0.],
           [0., 6.]])
    """
    _check_callable(fun, "jacfwd")
    return _jacfwd(fun, argnums, has_aux, "jacfwd", holomorphic)


def _jacfwd(fun, argnums, has_aux, name, holomorphic=False):
    """:func:`jacfwd`, with errors naming the public transform ``name``."""

    @functools.wraps(fun)
    def jacfun(*args, **kwargs):
        single, nums = _normalize_argnums(argnums, len(args), name)
        dyn = tuple(args[i] for i in nums)
        _check_inputs(dyn, nums, name, holomorphic, real=True)
        f = _partial(fun, args, kwargs, nums)
        x_flat, x_tree = tree_flatten(dyn)
        x_flat = [_as_value(x, name) for x in x_flat]
        zeros = [np.zeros(_leaf_shape(x), x.dtype) for x in x_flat]
        x_args = tree_unflatten(x_tree, x_flat)
        y_flat = y_tree = aux = None
        cols = [None] * len(x_flat)  # per input leaf: flat output tangents, batched in front
        for i, xi in enumerate(x_flat):
            xshape = _leaf_shape(xi)
            if int(np.prod(xshape, dtype=np.int64)) == 0:
                continue
            # all of input i's basis tangents at once: vmap of the JVP
            t = list(zeros)
            axes = [None] * len(x_flat)
            t[i], axes[i] = _basis_batch(xshape, xi.dtype), 0

            def push(ts):
                r = _jvp(f, x_args, tree_unflatten(x_tree, ts), has_aux, name)
                y_l, y_t = tree_flatten(r[0])
                return y_l, tree_flatten(r[1])[0], (y_t, r[2] if has_aux else None)

            y_l, t_l, (y_t, a) = vmap(push, in_axes=(axes,), out_axes=(None, 0, None))(t)
            if y_flat is None:
                y_flat, y_tree, aux = y_l, y_t, a
            cols[i] = t_l
        if y_flat is None:  # no input elements: evaluate once for the shapes
            res = f(*x_args)
            if has_aux:
                res, aux = _split_aux(res, name)
            y_flat, y_tree = tree_flatten(res)
        _check_jacobian_outputs(y_flat, name, holomorphic, "fwd")
        blocks = []
        for j, yj in enumerate(y_flat):
            yshape = _leaf_shape(yj)
            row = []
            for i, xi in enumerate(x_flat):
                xshape = _leaf_shape(xi)
                if cols[i] is None or not _is_inexact(yj):
                    # an integer output has no derivative: zeros in the input's
                    # dtype, as jacrev gives
                    dtype = yj.dtype if _is_inexact(yj) else xi.dtype
                    row.append(np.zeros(yshape + xshape, dtype))
                    continue
                # batched as (size_in, *yshape); move the input axes last
                stacked = ops.reshape(cols[i][j], xshape + yshape)
                perm = tuple(range(len(xshape), len(xshape) + len(yshape))) + tuple(
                    range(len(xshape))
                )
                row.append(_materialize(ops.transpose(stacked, perm)))
            blocks.append(row)
        jac = _assemble(blocks, y_tree, x_tree, single)
        return (jac, aux) if has_aux else jac

    return jacfun


jacobian = jacrev


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """Hessian of ``fun``: ``jacfwd(jacrev(fun, argnums), argnums)``.

    Second derivatives by forward-over-reverse mode, the usual choice for
    Hessians (one reverse pass inside, one forward pass per input element
    outside).

    Parameters
    ----------
    fun : callable
        Function of positional (and keyword) arguments, usually returning a
        real scalar.  A non-scalar output of shape ``O`` is allowed and gives
        one Hessian per output element.
    argnums : int or tuple of ints, optional
        Positional argument(s) to differentiate with respect to (default
        0); their leaves must be floating point (complex with
        ``holomorphic``).
    has_aux : bool, optional
        If True, ``fun`` returns ``(output, aux)`` and the result is
        ``(hess, aux)``.
    holomorphic : bool, optional
        If True, ``fun`` is holomorphic in complex inputs with a complex
        output, and the result holds complex second derivatives.  Without it
        complex inputs are refused (the outer :func:`jacfwd` takes real
        inputs), as in JAX.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> hess`` (or ``(hess, aux)``).  For a scalar output and an input of
        shape ``I`` the result has shape ``I + I`` (``O + I + I`` for an
        output of shape ``O``) and the input's dtype.  With a tuple
        ``argnums`` it is a nested tuple of blocks ``hess[i][j]`` of shape
        ``I_i + I_j``, as in JAX.

    Raises
    ------
    TypeError
        If ``fun`` is not callable; when called, if a leaf of an argument at
        ``argnums`` is not floating point or ``argnums`` is not an int or a
        tuple of ints.
    ValueError
        If ``argnums`` is empty or names an argument twice.

    Notes
    -----
    Where ``fun`` has kinks (``abs``, ``max``, ``clip``, ...) the second
    derivative there is that of the primitives' documented first-derivative
    conventions, which are piecewise constant: 0 almost everywhere.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg, tracegrad.numpy as tnp
    >>> tg.hessian(lambda x: tnp.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    _check_callable(fun, "hessian")
    return _jacfwd(_jacrev(fun, argnums, has_aux, "hessian", holomorphic), argnums, has_aux,
                   "hessian", holomorphic)


def hvp(fun, primals, tangents):
    """Hessian-vector product of a scalar ``fun``: ``H(primals) @ tangents``,
    by forward-over-reverse mode, without forming the Hessian.

    Parameters
    ----------
    fun : callable
        Real scalar-valued function of the positional arguments ``primals``.
    primals : tuple or list
        The point: one entry (a pytree of float arrays) per argument of
        ``fun``.
    tangents : tuple or list
        The vector: same structure, shapes and dtypes as ``primals``.

    Returns
    -------
    pytree
        ``jvp(grad(fun, argnums=all), primals, tangents)``'s tangent: with
        one argument, the structure of ``primals[0]``; with several, a tuple
        with one entry per argument.  Costs about one gradient plus one
        forward pass over it (no ``n x n`` Hessian).

    Raises
    ------
    TypeError
        If ``fun`` is not callable, ``primals``/``tangents`` are not
        tuples/lists of the same structure, or ``fun``'s output is not a
        real scalar.

    Examples
    --------
    >>> import numpy as np, tracegrad as tg, tracegrad.numpy as tnp
    >>> tg.hvp(lambda x: tnp.sum(x ** 3), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
    array([6., 0.])
    """
    _check_callable(fun, "hvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "hvp expects primals and tangents as tuples (one entry per argument of fun); "
            f"got {type(primals).__name__} and {type(tangents).__name__}."
        )
    _check_integer_tangents(primals, tangents, "hvp")
    n = len(primals)
    argnums = 0 if n == 1 else tuple(range(n))
    return _jvp(_value_and_grad_only(fun, argnums), tuple(primals), tuple(tangents), False,
                "hvp")[1]


def _value_and_grad_only(fun, argnums):
    g = _value_and_grad(fun, argnums, False, "hvp")
    return lambda *args: g(*args)[1]
