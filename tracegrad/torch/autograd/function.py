"""``torch.autograd.function``: custom autograd operations (``Function``).

A subclass defines its forward in one of PyTorch's two styles, chosen the way
PyTorch chooses: if the class overrides ``setup_context`` the forward takes no
``ctx`` (``forward(*args)``, then ``setup_context(ctx, inputs, output)``),
otherwise it is ``forward(ctx, *args)``.  ``backward(ctx, *grad_outputs)``
(or its alias ``vjp``) returns one gradient per ``forward`` argument.

``ctx`` is, as in PyTorch, the ``grad_fn`` object of the result: an instance
of the per-class ``<Name>Backward`` class (a :class:`BackwardCFunction`).
The recorded node is an ordinary :class:`~tracegrad.torch._autograd.TorchNode`
whose "primitive" (:class:`_FunctionPrimitive`) holds the user's backward as
its VJP rule, so the same engine runs it (and records it, under
``create_graph``).  This is the one place of tracegrad.torch where a
derivative is written by hand: by the user.
"""
import functools
import inspect
import warnings

import numpy as np

from ...primitives import ops
from .. import _grad_mode
from .._autograd import GradFn, TorchNode, extras, version_error
from .._tensor import Tensor, VersionCounter

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function",
           "once_differentiable", "InplaceFunction"]

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


_RELEASED = ()  # ctx._saved once the backward pass released it (live ones are lists)


def _typename(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class FunctionCtx:
    """The ``ctx`` of a custom Function: what ``forward`` leaves for ``backward``.

    Arbitrary non-tensor values can be stored as attributes; tensors should
    go through :meth:`save_for_backward` (then they are checked for in-place
    modification and freed after the backward pass, as in PyTorch).

    Attributes
    ----------
    needs_input_grad : tuple of bool
        One per ``forward`` argument: True for a tensor that requires grad.
    saved_tensors : tuple
        The tensors given to :meth:`save_for_backward`.
    """

    to_save = ()
    dirty_tensors = ()
    non_differentiable = ()
    materialize_grads = True
    _saved = None  # (tensor, counter, version, is_output) per saved value, set by apply

    @property
    def _freed(self):
        return self._saved is _RELEASED

    @_freed.setter
    def _freed(self, value):
        # set by the backward pass (``_autograd._releasable``) once it is done
        # with the node: the saved tensors are dropped, as PyTorch frees them
        if value:
            self._saved = _RELEASED

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (Tensors or None) for ``backward``; call at most once.

        Their versions are recorded when ``apply`` finishes, so ``backward``
        raises if one was modified in place after the Function ran.
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep ``tensors`` for a forward-mode ``jvp`` (stored only)."""
        for t in tensors:
            if not (t is None or isinstance(t, Tensor)):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should "
                    "save non-tensors as attributes on ctx."
                )
        self.saved_for_forward = tensors

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:  # still inside forward / setup_context
            return tuple(self.to_save)
        if saved is _RELEASED:
            raise RuntimeError(_FREED)
        out = []
        for t, counter, version, is_output in saved:
            if t is not None and counter.value != version:
                producer = type(self).__name__ if is_output else (
                    t.grad_fn.name() if t._node is not None else None)
                raise version_error(t, counter.value, version, producer)
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs ``forward`` modified in place (they must be returned).

        The returned tensor is then the input itself, its version bumped and
        its ``grad_fn`` this Function's node.
        """
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that carry no gradient (``backward`` gets zeros for them)."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, ``backward`` gets None (not zeros) for outputs without a gradient."""
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs):
        """Deprecated no-op (PyTorch tracks shared storage automatically)."""
        warnings.warn(
            "`mark_shared_storage` is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked",
            FutureWarning, stacklevel=2,
        )


class BackwardCFunction(GradFn, FunctionCtx):
    """Base of the ``<Name>Backward`` classes: a custom Function's ``grad_fn`` and ``ctx``.

    ``name()`` is the class name (``SquareBackward``); the repr is PyTorch's,
    ``<torch.autograd.function.SquareBackward object at 0x...>``.
    """

    _forward_cls = None

    def __init__(self):
        self._node = None

    def name(self):
        return type(self).__name__

    def apply(self, *grad_outputs):
        """Call the Function's ``backward`` (or ``vjp``) with this ctx."""
        return self._forward_cls._user_backward()(self, *grad_outputs)

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"


class FunctionMeta(type):
    """Metaclass of :class:`Function`: gives each class its ``_backward_cls``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {
            "_forward_cls": cls, "__module__": __name__,
            "__qualname__": name + "Backward",
        })
        super().__init__(name, bases, attrs)


@functools.lru_cache(maxsize=256)
def _signature(fn):
    """``(signature, n)``: n > 0 if ``fn`` takes exactly n plain positional parameters."""
    sig = inspect.signature(fn)
    kinds = [p.kind for p in sig.parameters.values()]
    plain = all(k == inspect.Parameter.POSITIONAL_OR_KEYWORD for k in kinds)
    return sig, len(kinds) if plain else 0


def _bind_default_args(fn, args, kwargs):
    """``args`` and ``kwargs`` completed with ``fn``'s defaults (as PyTorch's ``apply``)."""
    sig, n = _signature(fn)
    if not kwargs and len(args) == n:  # nothing to fill in (the common case, fast)
        return args, kwargs
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args, bound.kwargs


class Function(metaclass=FunctionMeta):
    """Base class of custom autograd operations (PyTorch's ``torch.autograd.Function``).

    Define, as static methods, either ``forward(ctx, *args, **kwargs)``, or
    ``forward(*args, **kwargs)`` together with
    ``setup_context(ctx, inputs, output)``; and ``backward(ctx, *grad_outputs)``
    (or ``vjp``), which returns one gradient per ``forward`` argument (None
    for non-tensors and inputs without a gradient; extra trailing Nones are
    ignored).  Call the operation as ``MyFn.apply(*args)``; ``forward`` runs
    with grad mode off.

    Raises
    ------
    RuntimeError
        From the backward pass, with PyTorch's messages: a wrong number of
        gradients, a non-tensor gradient, a gradient for a non-tensor input,
        a gradient whose shape does not broadcast from the input's, a saved
        tensor modified in place, saved tensors already freed.
    """

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself. Instantiating "
            "an autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD.")

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap "
            "staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def _user_backward(cls):
        bw, vjp = cls.backward, cls.vjp
        if bw is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not "
                "allowed. You should only implement one of them.")
        return vjp if vjp is not Function.vjp else bw

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` (grad mode off) and record ``backward`` as the result's gradient.

        Returns
        -------
        What ``forward`` returned, with each floating-point tensor output
        requiring grad (unless marked non-differentiable) when grad mode is on
        and a tensor argument requires grad.  An input returned as is comes
        back as a new tensor sharing its data (a view), unless marked dirty.
        """
        separate = cls.setup_context is not Function.setup_context
        if separate:  # PyTorch binds the defaults, so ``inputs`` has every argument
            args, kwargs = _bind_default_args(cls.forward, args, kwargs)
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        with _grad_mode.no_grad():
            if separate:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        return _wrap_outputs(ctx, args, output)


class InplaceFunction(Function):
    """Legacy base kept for compatibility; use :class:`Function`."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# --------------------------------------------------------------------------
# apply: outputs and the recorded node


def _alias(t):
    """A new tensor viewing ``t``'s data (same version counter), not requiring grad."""
    v = Tensor._wrap(t._data)
    v._vc = t._vc
    v._base = t._base if t._base is not None else t
    return v


def _mark_dirty(ctx, args, outs, tracking):
    """Check ``ctx.mark_dirty`` as PyTorch does and bump the dirty inputs' versions."""
    dirty = []
    for t in ctx.dirty_tensors:
        if any(t is a for a in args):
            dirty.append(t)
        else:
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().",
                UserWarning, stacklevel=4,
            )
    if any(not any(t is o for o in outs) for t in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )
    for t in dirty:
        if tracking and t._requires_grad:
            if t._node is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation.")
            if t._base is not None:
                raise RuntimeError(
                    "tracegrad.torch does not support ctx.mark_dirty() on a view of a tensor "
                    "that requires grad (PyTorch rebases the view's graph; tracegrad does not). "
                    "Pass the base tensor to the Function, or .clone() the view first."
                )
        t._vc.value += 1
    return dirty


def _wrap_outputs(ctx, args, output):
    tracking = _grad_mode._state.enabled and any(ctx.needs_input_grad)
    multiple = isinstance(output, tuple)
    if not multiple and not isinstance(output, Tensor):
        return output  # not a tensor: passed through, nothing recorded
    originals = list(output) if multiple else [output]
    dirty = _mark_dirty(ctx, args, originals, tracking)
    outs = []
    for o in originals:
        if isinstance(o, Tensor) and not any(o is d for d in dirty) and (
                any(o is a for a in args) or any(o is p for p in outs) or o._requires_grad):
            o = _alias(o)  # an input (or other graph tensor) returned as is: a new view
        outs.append(o)
    if not tracking:
        return tuple(outs) if multiple else outs[0]

    # the node: edges and parents are read before dirty inputs are rebased onto it
    edges = [a._edge() for a in args if isinstance(a, Tensor)]
    parents = tuple((i, *a._engine_edge()) for i, a in enumerate(args)
                    if isinstance(a, Tensor) and a._requires_grad)
    out_info, ans, versions = [], [], []
    for o in outs:
        if isinstance(o, Tensor):
            out_info.append((o._data.shape, o._data.dtype))
            ans.append(o._data)
            versions.append((o._vc, o._vc.value))
        else:  # a non-tensor output: a slot that never receives a gradient
            out_info.append(None)
            ans.append(np.zeros(()))
            versions.append((VersionCounter(), 0))
    prim = _FunctionPrimitive(ctx, args, parents, multiple, out_info)
    node = TorchNode(prim, {}, list(args), ans if multiple else ans[0], parents, ctx.name(),
                     edges, [], versions, False)
    extras(node).facade = ctx
    ctx._node = node
    non_diff = ctx.non_differentiable
    for k, (orig, o) in enumerate(zip(originals, outs)):
        if not isinstance(o, Tensor) or o._data.dtype.kind != "f" or any(
                orig is t for t in non_diff):
            continue
        o._requires_grad = True
        o._node = node
        o._out_index = k

    saved = []
    for i, t in enumerate(ctx.to_save):
        if t is None:
            saved.append((None, None, None, False))
        elif not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                            f"is of type {_typename(t)}")
        else:
            saved.append((t, t._vc, t._vc.value, t._node is node))
    ctx._saved = saved
    ctx.to_save = ()
    return tuple(outs) if multiple else outs[0]


class _FunctionPrimitive:
    """Duck-typed primitive of one ``apply``: its VJP rules run the user's backward.

    The engine calls one rule per argument that requires grad, in argument
    order, with the same cotangent object: the first call runs ``backward``
    (once), each call checks and returns its argument's gradient, the last
    drops the cached result.
    """

    differentiable = True

    def __init__(self, ctx, args, parents, multiple, out_info):
        self.ctx = ctx
        self.name = ctx.name()
        self.multiple_results = multiple
        self.out_info = out_info
        self.n_inputs = len(args)
        self.is_tensor = [isinstance(a, Tensor) for a in args]
        self.tensor_index = [int(k) for k in np.cumsum(self.is_tensor) - 1]
        self.last = parents[-1][0]
        self._cache = None
        self.vjp = tuple(functools.partial(self._rule, i) for i in range(len(args)))

    def _grad_outputs(self, ct):
        materialize = self.ctx.materialize_grads
        out = []
        for c, info in zip(ct if self.multiple_results else [ct], self.out_info):
            if info is None:
                out.append(None)
            elif c is None:
                out.append(Tensor._wrap(np.zeros(*info)) if materialize else None)
            else:
                out.append(c if isinstance(c, Tensor) else Tensor._wrap(c))
        return out

    def _run_backward(self, ct):
        grads = self.ctx._forward_cls._user_backward()(self.ctx, *self._grad_outputs(ct))
        if not isinstance(grads, tuple):
            grads = (grads,)
        n = self.n_inputs
        if len(grads) > n and all(g is None for g in grads[n:]):
            grads = grads[:n]
        if len(grads) != n:
            raise RuntimeError(f"function {self.name} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(grads)})")
        for i, g in enumerate(grads):
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {_typename(g)})")
            if not self.is_tensor[i]:
                raise RuntimeError(
                    f"function {self.name} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable")
        return grads

    def _rule(self, i, ct, ans, *primals):
        cache = self._cache
        if cache is None or cache[0] is not ct:
            self._cache = None
            cache = self._cache = (ct, self._run_backward(ct))
        if i == self.last:
            self._cache = None
        g = cache[1][i]
        if g is None:
            return None
        p = primals[i]
        like = p._data if isinstance(p, Tensor) else p
        value = g if _grad_mode._state.enabled else g._data  # create_graph: stay a tensor
        shape = tuple(g._data.shape)
        if shape != like.shape:
            try:
                ok = np.broadcast_shapes(like.shape, shape) == shape
            except ValueError:
                ok = False
            if not ok:
                self._cache = None
                raise RuntimeError(
                    f"Function {self.name} returned an invalid gradient at index "
                    f"{self.tensor_index[i]} - got {list(shape)} but expected shape compatible "
                    f"with {list(like.shape)}")
            value = ops.sum_to_shape(value, like.shape)
        if g._data.dtype != like.dtype:
            value = ops.convert_element_type(value, like.dtype)
        return value


# --------------------------------------------------------------------------
# once_differentiable


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _OnceDifferentiableLeaf(Tensor):
    """The stand-in input of a ``once_differentiable`` error node.

    Nothing outside the error node refers to it, so ``autograd.grad`` never
    asks for its gradient (and PyTorch then never runs the node either); a
    ``backward()`` accumulating into every leaf reaches it and raises.
    """

    __slots__ = ()

    def _accumulate(self, g, create_graph=False):
        raise RuntimeError(_TWICE)


class _ErrorFn(GradFn):
    """``grad_fn`` of the error node: ``<Error object at ...>``."""

    __slots__ = ()

    def __repr__(self):
        return f"<Error object at {hex(id(self))}>"


class _ErrorPrimitive:
    """Identity on each of its inputs, towards the stand-in leaves."""

    name = "once_differentiable_error"
    differentiable = True
    multiple_results = True

    def __init__(self, n):
        self.vjp = tuple(functools.partial(self._rule, j) for j in range(n))

    @staticmethod
    def _rule(j, ct, ans, *primals):
        return ct[j]


def _delayed_error(values):
    """PyTorch's ``DelayedError``: outputs whose backward raises ``_TWICE``."""
    idx = [j for j, v in enumerate(values) if isinstance(v, Tensor) and v._data.dtype.kind == "f"]
    leaves = []
    for j in idx:
        leaf = object.__new__(_OnceDifferentiableLeaf)
        leaf._init(values[j]._data, requires_grad=True, version=values[j]._vc)
        leaves.append(leaf)
    counters = [VersionCounter() for _ in leaves]
    node = TorchNode(_ErrorPrimitive(len(leaves)), {}, leaves, [t._data for t in leaves],
                     tuple((j, t._leaf_engine_node(), 0) for j, t in enumerate(leaves)),
                     "torch::autograd::Error", list(leaves), [], [(c, 0) for c in counters],
                     False)
    extras(node).facade = _ErrorFn(node)
    out = list(values)
    for k, (j, t, c) in enumerate(zip(idx, leaves, counters)):
        out[j] = Tensor._from_node(t._data, node, k, c)
    return tuple(out)


def once_differentiable(fn):
    """Decorator for ``backward``: it runs without recording, and cannot be differentiated.

    As in PyTorch: under ``create_graph``, if a gradient passed in requires
    grad, the returned gradients are attached to an error node, so that a
    ``backward()`` through them raises ``RuntimeError`` ("trying to
    differentiate twice a function that was marked with @once_differentiable").
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with _grad_mode.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _grad_mode._state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        if isinstance(outputs, tuple):
            return _delayed_error(outputs)
        return _delayed_error((outputs,))[0]

    return wrapper
