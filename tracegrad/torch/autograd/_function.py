"""Custom autograd operations: ``torch.autograd.Function``.

A subclass defines ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
as static methods and is used through ``apply``.  The recorded node is an
ordinary :class:`~tracegrad.interpreters.vjp.VJPNode` whose "primitive" is a
per-class object holding the user's backward as its VJP rule, so the same
engine runs it (and records it, under ``create_graph``).
"""
import functools

import numpy as np

from .. import _grad_mode
from .._autograd import NodeMeta
from .._tensor import Tensor, VersionCounter

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` of a custom Function: a place to keep values for ``backward``.

    Attributes
    ----------
    needs_input_grad : tuple of bool
        One per ``forward`` argument.
    """

    def save_for_backward(self, *tensors):
        """Keep tensors for ``backward`` (checked for in-place changes when read)."""
        self._saved = [(t, t._vc, t._vc.value) if isinstance(t, Tensor) else (t, None, None)
                       for t in tensors]

    @property
    def saved_tensors(self):
        out = []
        for t, counter, version in getattr(self, "_saved", ()):
            if self._freed:
                raise RuntimeError(
                    "Trying to backward through the graph a second time (or directly access "
                    "saved tensors after they have already been freed). Saved intermediate "
                    "values of the graph are freed when you call .backward() or "
                    "autograd.grad(). Specify retain_graph=True if you need to backward "
                    "through the graph a second time or if you need to access saved tensors "
                    "after calling backward."
                )
            if counter is not None and counter.value != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [torch.Tensor {list(t.shape)}] is at version "
                    f"{counter.value}; expected version {version} instead."
                )
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def mark_dirty(self, *tensors):
        """Declare inputs modified in place by ``forward`` (accepted)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that carry no gradient."""
        self._non_diff = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        """With False, ``backward`` receives None for outputs without a gradient."""
        self._materialize = bool(value)

    _freed = False
    _materialize = True
    _non_diff = frozenset()


class _FunctionPrimitive:
    """Duck-typed primitive for one ``apply`` call: its VJP runs the user's backward."""

    differentiable = True

    def __init__(self, cls, ctx, n_inputs, multiple_results, out_shapes):
        self.name = cls.__name__ + "Backward"
        self.cls = cls
        self.ctx = ctx
        self.multiple_results = multiple_results
        self.out_shapes = out_shapes
        self._cache = None
        self.vjp = tuple(functools.partial(self._rule, i) for i in range(n_inputs))

    def _rule(self, i, ct, ans, *primals):
        cache = self._cache
        if cache is None or cache[0] is not ct:
            cts = list(ct) if self.multiple_results else [ct]
            args = []
            for c, (shape, dt) in zip(cts, self.out_shapes):
                if c is None:
                    args.append(Tensor._wrap(np.zeros(shape, dt)) if self.ctx._materialize else None)
                else:
                    args.append(c if isinstance(c, Tensor) else Tensor._wrap(c))
            grads = self.cls.backward(self.ctx, *args)
            if not isinstance(grads, tuple):
                grads = (grads,)
            cache = self._cache = (ct, grads)
        grads = cache[1]
        if i >= len(grads):
            raise RuntimeError(
                f"function {self.name} returned an incorrect number of gradients "
                f"(expected at least {i + 1}, got {len(grads)})"
            )
        g = grads[i]
        if g is None:
            return None
        p = primals[i]
        if isinstance(g, Tensor):
            if _grad_mode._state.enabled:  # create_graph: keep it a tensor
                return g if g._data.shape == _shape(p) else g.expand(_shape(p))
            g = g._data
        g = np.asarray(g)
        if g.shape != _shape(p):
            try:
                g = np.broadcast_to(g, _shape(p)).copy()
            except ValueError:
                raise RuntimeError(
                    f"Function {self.name} returned an invalid gradient at index {i} - got "
                    f"{list(g.shape)} but expected shape compatible with {list(_shape(p))}"
                ) from None
        return g.astype(np.asarray(p._data if isinstance(p, Tensor) else p).dtype, copy=False)


def _shape(p):
    return tuple(p.shape) if hasattr(p, "shape") else ()


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """Base class of custom autograd operations (PyTorch's ``torch.autograd.Function``).

    Subclasses define ``forward(ctx, *args, **kwargs)`` and
    ``backward(ctx, *grad_outputs)`` (one gradient per ``forward``
    argument, None for non-tensors) and are called as ``MyFn.apply(*args)``.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record ``backward`` as the gradient of the result."""
        from ...interpreters.vjp import VJPNode

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        with _grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        tracking = _grad_mode._state.enabled and any(ctx.needs_input_grad)
        multiple = isinstance(out, tuple)
        outs = list(out) if multiple else [out]
        if not tracking:
            return out
        for k, o in enumerate(outs):
            if not isinstance(o, Tensor):
                raise TypeError(f"{cls.__name__}.forward must return tensors, got {type(o).__name__}")
            if any(o is a for a in args):  # an input returned as is: a new tensor object
                outs[k] = Tensor._wrap(o._data)
        shapes = [(o._data.shape, o._data.dtype) for o in outs]
        prim = _FunctionPrimitive(cls, ctx, len(args), multiple, shapes)
        parents = tuple((i, *a._engine_edge()) for i, a in enumerate(args)
                        if isinstance(a, Tensor) and a._requires_grad)
        counters = [VersionCounter() for _ in outs]
        meta = NodeMeta(cls.__name__ + "Backward",
                        [a._edge() for a in args if isinstance(a, Tensor)],
                        [], [(c, 0) for c in counters], False)
        ans = [o._data for o in outs] if multiple else outs[0]._data
        node = VJPNode(prim, {}, list(args), ans, parents, meta)
        for k, (o, c) in enumerate(zip(outs, counters)):
            if id(o) in ctx._non_diff or o._data.dtype.kind not in "fc":
                continue
            o._requires_grad = True
            o._node = node
            o._out_index = k
            o._vc = c
        return tuple(outs) if multiple else outs[0]


def once_differentiable(fn):
    """Decorator for ``backward``: accepted (the backward runs without recording)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _grad_mode.no_grad():
            return fn(ctx, *args)

    return wrapper
