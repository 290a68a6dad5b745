"""Batching: the vmap interpreter.

A :class:`BatchTracer` stands for a stack of values, one per example: it
holds ``val``, an array (or a tracer of the parent trace) with one extra
axis, the *batch dim* ``bdim``, of length ``trace.axis_size``.  Its
``shape`` and ``dtype`` are those of one example, so code written for one
example runs unchanged.  Values that do not vary over the batch (plain
arrays, closed-over outer tracers) are not wrapped: they are this
interpreter's unbatched values and cost nothing.

``process_primitive`` is op-agnostic: it unwraps this trace's tracers into
``(value, bdim)`` pairs (``bdim`` None for unbatched arguments), and runs
the primitive's batching rule with the parent trace current.  A rule
``prim.batch(args, bdims, **params) -> (out, out_bdim)`` computes the whole
batch at once with primitives, so batching composes with every other
interpreter in both orders (``vmap(grad(f))``, ``grad(vmap(f))``).

A batched value has no single concrete value: Python control flow on it
(``if x > 0``), ``int(x)``, ``x.item()`` raise a clear error.
"""
import numpy as np

from ..core import ArrayTracer, Trace, Tracer, _ctx

__all__ = [
    "BatchTrace", "BatchTracer", "BatchedValueError", "varies", "has_values", "example_values",
]


class BatchedValueError(TypeError):
    """A per-example concrete value was needed of a value that varies over a
    ``vmap``'d axis (``if x > 0``, ``int(x)``, ``x.item()``)."""


class BatchTracer(ArrayTracer):
    """One example's view of a batch: ``val`` has the batch at axis ``bdim``."""

    __slots__ = ("val", "bdim")
    single_value = False  # one value per example

    def __init__(self, trace, val, bdim):
        self._trace = trace
        self.val = val
        self.bdim = bdim

    @property
    def shape(self):
        s = tuple(self.val.shape)
        return s[: self.bdim] + s[self.bdim + 1:]

    @property
    def dtype(self):
        return self.val.dtype

    @property
    def primal(self):
        raise BatchedValueError(
            f"This value (shape {self.shape}, dtype {self.dtype}) varies over an axis "
            "mapped by vmap, so it has no single concrete value: Python control flow "
            "on it (if/while), int(), item(), tolist() and using it as a static "
            "argument (an axis, a shape) are not possible inside vmap. Use "
            "tracegrad.numpy.where for data-dependent choices, or move the vmap "
            "inside the branch."
        )

    def __repr__(self):
        return (f"BatchTracer(shape={self.shape}, dtype={self.dtype}, bdim={self.bdim}, "
                f"batch size={self._trace.axis_size})")



# --------------------------------------------------------------------------
# reading batched values from outside this interpreter (the NumPy layer)


def varies(x):
    """Whether ``x`` varies over an axis mapped by an enclosing ``vmap``.

    Looks through the tracers of other interpreters (a JVP or VJP tracer
    of a batched value varies too).

    Parameters
    ----------
    x : object
        Any value.

    Returns
    -------
    bool
        True if ``x`` has no single concrete value because some ``vmap``
        maps it; False for plain arrays and for tracers whose primals are
        unbatched.
    """
    while isinstance(x, Tracer):
        if type(x) is BatchTracer:
            return True
        if not getattr(x, "single_value", True):
            return False  # a staged value: no value, and no vmap below it
        x = x.primal
    return False


def has_values(x):
    """True if :func:`example_values` can read ``x``: its chain of tracers
    ends in arrays (per example under ``vmap``), not in a staged value."""
    while isinstance(x, Tracer):
        if type(x) is BatchTracer:
            x = x.val
        elif not getattr(x, "single_value", True):
            return False  # a staged value
        else:
            x = x.primal
    return True


def example_values(x):
    """The concrete values of ``x`` for every example of every enclosing ``vmap``.

    Meant for checks whose answer is the same for the whole batch (bounds,
    whether some example repeats a position): a result must never depend
    on it.

    Parameters
    ----------
    x : object
        An array or a tracer of any interpreter.

    Returns
    -------
    values : ndarray
        Leading axes are the batch axes (outermost ``vmap`` first), followed
        by ``x.shape``.
    n : int
        The number of those batch axes (0 for an unbatched value).
    """
    bdims = []
    while isinstance(x, Tracer):
        if type(x) is BatchTracer:
            bdims.append(x.bdim)
            x = x.val
        else:
            x = x.primal
    vals = np.asarray(x)
    for k, d in enumerate(reversed(bdims)):
        vals = np.moveaxis(vals, k + d, k)
    return vals, len(bdims)


class BatchTrace(Trace):
    """The vmap interpreter; see the module docstring.

    Parameters
    ----------
    parent : Trace
    axis_size : int
        The length of the mapped axis.
    """

    __slots__ = ("axis_size",)

    def __init__(self, parent, axis_size):
        super().__init__(parent)
        self.axis_size = int(axis_size)

    def new_arg(self, val, bdim):
        """Wrap an input: ``val`` mapped over axis ``bdim`` (None: unbatched)."""
        if bdim is None:
            return val
        return BatchTracer(self, val, bdim)

    def process_primitive(self, prim, args, params):
        vals = list(args)
        bdims = [None] * len(args)
        batched = False
        for i, a in enumerate(args):
            if type(a) is BatchTracer and a._trace is self:
                vals[i] = a.val
                bdims[i] = a.bdim
                batched = True
            elif isinstance(a, Tracer) and not a._trace.alive:
                raise self.leaked(a)
        parent = self.parent
        if not batched:
            return parent.process_primitive(prim, vals, params)
        rule = prim.batch
        if rule is None:
            raise NotImplementedError(
                f"vmap of primitive '{prim.name}' is not implemented (it has no "
                "batching rule)."
            )
        prev = _ctx.trace
        _ctx.trace = parent
        try:
            out, out_bdim = rule(vals, bdims, **params)
        finally:
            _ctx.trace = prev
        if prim.multiple_results:
            if not isinstance(out_bdim, (list, tuple)):
                out_bdim = [out_bdim] * len(out)
            return [self._wrap(prim, o, d) for o, d in zip(out, out_bdim)]
        return self._wrap(prim, out, out_bdim)

    def _wrap(self, prim, val, bdim):
        if bdim is None:
            return val
        if np.shape(val)[bdim] != self.axis_size:
            raise AssertionError(
                f"batching rule of primitive '{prim.name}' returned a value of shape "
                f"{np.shape(val)} with batch dim {bdim}, not of length {self.axis_size}."
            )
        return BatchTracer(self, val, bdim)
