"""Staging transforms: ``make_jaxpr`` and ``eval_shape`` (JAX's signatures).

Both trace a function with abstract inputs under
:class:`tracegrad.interpreters.staging.StagingTrace`; pytrees are flattened
here, at the edge.  ``static_argnums`` arguments are passed to the function
as they are (Python values, known while tracing) and are not inputs of the IR.
"""
import functools

import numpy as np

from ..core import ShapedArray, new_trace
from ..interpreters.staging import ClosedJaxpr, StagingTrace, aval_of, check_jaxpr
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["make_jaxpr", "eval_shape", "ShapeDtypeStruct"]


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array (``jax.ShapeDtypeStruct``).

    Parameters
    ----------
    shape : tuple of int
    dtype : numpy dtype or anything ``np.dtype`` accepts

    Accepted by :func:`eval_shape` and :func:`make_jaxpr` in place of
    arrays, and returned by :func:`eval_shape`.  Equal when shape and dtype are.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"


def _normalize_argnums(static_argnums, nargs):
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    out = set()
    for i in static_argnums:
        if not isinstance(i, int):
            raise TypeError(f"static_argnums must be ints, got {i!r}")
        j = i + nargs if i < 0 else i
        if not 0 <= j < nargs:
            raise ValueError(
                f"static_argnums {i} is out of range for a call with {nargs} positional "
                "arguments")
        out.add(j)
    return out


def _is_python_scalar(x):
    # (np.float64 subclasses float, but NumPy 2 promotes it as an array)
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _leaf_aval(x):
    if _is_python_scalar(x):
        return aval_of(np.asarray(x))
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return ShapedArray(x.shape, x.dtype)
    return aval_of(x)


def _stage(fun, args, kwargs, static_argnums):
    """Trace ``fun(*args, **kwargs)`` into a ClosedJaxpr; also the output tree."""
    static = _normalize_argnums(static_argnums, len(args))
    dyn_idx = [i for i in range(len(args)) if i not in static]
    flat, in_tree = tree_flatten(tuple(args[i] for i in dyn_idx))
    avals = [_leaf_aval(x) for x in flat]
    weak = [_is_python_scalar(x) for x in flat]
    with new_trace(StagingTrace) as trace:
        tracers = [trace.new_arg(a, w) for a, w in zip(avals, weak)]
        dyn = tree_unflatten(in_tree, tracers)
        full = list(args)
        for i, v in zip(dyn_idx, dyn):
            full[i] = v
        out = fun(*full, **kwargs)
        out_flat, out_tree = tree_flatten(out)
        for k, leaf in enumerate(out_flat):
            if isinstance(leaf, (str, bytes)) or not (
                    hasattr(leaf, "dtype") or isinstance(leaf, (bool, int, float, complex))):
                raise TypeError(
                    f"output leaf {k} of the traced function is a {type(leaf).__name__} "
                    f"({leaf!r:.40}), not an array or a number; return it outside the "
                    "traced function (or as a static value) instead")
        closed = trace.to_jaxpr(out_flat)
    check_jaxpr(closed.jaxpr)
    return closed, out_tree


def make_jaxpr(fun, static_argnums=(), return_shape=False):
    """A function returning the typed IR of ``fun`` for given arguments.

    Parameters
    ----------
    fun : callable
        A function of arrays (pytrees of arrays, scalars or
        :class:`ShapeDtypeStruct`), written with ``tracegrad.numpy`` and the
        transforms (which stage too: ``make_jaxpr(grad(f))``).  A Python
        scalar argument is a weakly typed input (typed as NumPy's default
        dtype of its kind, and promoting as the Python number does:
        ``x * y`` with float32 ``x`` and ``y = 2.0`` is float32).
    static_argnums : int or tuple of int
        Positional arguments passed to ``fun`` as they are, not staged
        (Python control flow may depend on them).
    return_shape : bool
        Also return the output's pytree of :class:`ShapeDtypeStruct`.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> ClosedJaxpr`` (and the output shapes with
        ``return_shape``).  ``str()`` of the result prints one equation
        per line; arrays ``fun`` closes over are its constants.

    Raises
    ------
    tracegrad.errors.ConcretizationTypeError
        If ``fun`` needs the value of a staged input (Python control flow,
        ``int()``, ``np.asarray``): the message names the line and the fixes.
    """

    @functools.wraps(fun)
    def make(*args, **kwargs):
        closed, out_tree = _stage(fun, args, kwargs, static_argnums)
        if return_shape:
            shapes = tree_unflatten(out_tree, [ShapeDtypeStruct(*a) for a in closed.out_avals])
            return closed, shapes
        return closed

    make.__name__ = f"make_jaxpr({getattr(fun, '__name__', 'fun')})"
    return make


def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes of ``fun(*args, **kwargs)`` without computing it.

    Parameters
    ----------
    fun : callable
    *args, **kwargs
        Pytrees of arrays, scalars or anything with ``shape`` and ``dtype``
        (:class:`ShapeDtypeStruct`); only their shapes and dtypes are read.
        Keyword arguments are passed to ``fun`` as they are (not staged).

    Returns
    -------
    pytree of ShapeDtypeStruct
        Structured as ``fun``'s output.

    Raises
    ------
    tracegrad.errors.ConcretizationTypeError
        If ``fun`` needs a concrete value of its inputs.
    """
    closed, out_tree = _stage(fun, args, kwargs, ())
    return tree_unflatten(out_tree, [ShapeDtypeStruct(*a) for a in closed.out_avals])

