"""The PyTorch layer's autograd: an eager reverse-mode trace over tensors.

A :class:`Tensor` is a tracer of :data:`TORCH`, an *eager* trace: it lives
for the whole program and records every primitive applied to a tensor that
requires grad, as the same :class:`~tracegrad.interpreters.vjp.VJPNode` the
functional reverse mode records.  Backward passes run the same engine,
:func:`~tracegrad.interpreters.vjp.backward_pass`, with the primitives' own
VJP rules: there is no second set of derivative rules.  What this module adds
is PyTorch's bookkeeping around that engine: ``grad_fn`` objects named like
PyTorch's (``MulBackward0``), version counters for in-place safety, hooks,
``retain_grad``, accumulation into ``.grad``, freeing of saved values after
``backward`` and ``create_graph`` (the backward pass itself recorded).

Several primitives can make up one PyTorch operation (``mean`` is a sum and
a division); :func:`group` names the last node after the operation, so
``grad_fn`` and ``next_functions`` show PyTorch's graph while the engine
works on the finer one.
"""
import os
import re
import sys
import traceback
import warnings

import numpy as np

from ..core import Primitive, Trace, Tracer, _ctx
from ..interpreters.vjp import VJPNode, backward_pass, node_sequence
from ..primitives.structural import reshape_p
from . import _grad_mode

_new = object.__new__
_grad_state = _grad_mode._state
_anomaly = _grad_mode.anomaly

__all__ = ["TORCH", "TorchTrace", "TorchNode", "apply", "GradFn", "AccumulateGrad", "run_backward", "grad"]



# --------------------------------------------------------------------------
# node metadata and PyTorch-facing node objects


class TorchNode(VJPNode):
    """A node the PyTorch layer records: the engine's :class:`VJPNode` with
    PyTorch's bookkeeping in its own slots (``meta`` is the node itself, so
    one object per operation instead of two).

    Attributes
    ----------
    name : str or None
        PyTorch's name for the node's ``grad_fn`` (None: derived from the
        primitive).
    edges : list or None
        Per PyTorch-level input: None (no gradient), a leaf tensor, or
        ``(node, out_index)``; ``next_functions`` is built from them.  None
        for a one-primitive operation: the edges are then read off the
        node's parents (plus ``scalar_slots`` None entries).
    saved : sequence of (int, VersionCounter, int)
        ``(argument index, counter, version at record time)`` of the saved
        tensors the VJP rules read; checked when the rules run.
    out_versions : VersionCounter or list of (VersionCounter, int)
        Version counters of the outputs, checked when a rule reads ``ans``:
        for the one output of :func:`apply` just its counter (version 0 at
        record time), else one ``(counter, version)`` per output
        (:func:`out_counters` reads either).
    reads_output : bool
    tensor_mask : int
        Bit ``i`` set if argument ``i`` is a tensor (so the edges of a
        one-primitive node can be derived after the backward pass freed
        ``primals``).
    extra : NodeExtras or None
        Hooks, retained gradients and the cached ``grad_fn`` object, if any.
    """

    __slots__ = ("name", "edges", "saved", "out_versions", "reads_output", "scalar_slots",
                 "tensor_mask", "extra")

    def __init__(self, prim, params, primals, ans, parents, name, edges, saved, out_versions,
                 reads_output, scalar_slots=0, tensor_mask=0):
        # (apply() fills these slots inline instead: the hot path of the layer)
        self.prim = prim
        self.params = params
        self.primals = primals
        self.ans = ans
        self.parents = parents
        self.seq = next(node_sequence)
        self.tensor_mask = tensor_mask
        self.name = name
        self.edges = edges
        self.scalar_slots = scalar_slots
        self.saved = saved
        self.out_versions = out_versions
        self.reads_output = reads_output
        self.extra = None

    @property
    def meta(self):
        """The node itself (PyTorch's bookkeeping is in its own slots).

        A property, not the engine's ``meta`` slot set to ``self``: that
        reference cycle kept every dropped graph, and its arrays, alive until
        Python's cycle collector ran (a fresh allocation, page faults
        included, for every intermediate of a training step).
        """
        return self


class NodeExtras:
    """What few nodes have: hooks, retained gradients, the ``grad_fn`` object.

    Kept apart from :class:`TorchNode` so a node costs fewer slots to fill and
    the backward pass tests one field (``extra is None``) per node.

    Attributes
    ----------
    hooks : dict or None
        ``out_index -> list of tensor hooks``.
    retained : dict or None
        ``out_index -> weak list of tensors`` that called ``retain_grad``.
    fn_hooks, prehooks : list or None
        Hooks registered on the ``grad_fn`` object.
    facade : GradFn or None
        The cached ``grad_fn`` object.
    metadata : dict or None
        ``grad_fn.metadata``.
    """

    __slots__ = ("hooks", "retained", "fn_hooks", "prehooks", "facade", "metadata",
                 "forward_trace")

    def __init__(self):
        self.forward_trace = None
        self.hooks = None
        self.retained = None
        self.fn_hooks = None
        self.prehooks = None
        self.facade = None
        self.metadata = None


def extras(meta):
    """The :class:`NodeExtras` of node ``meta``, created on first use."""
    x = meta.extra
    if x is None:
        x = meta.extra = NodeExtras()
    return x


def out_counters(node):
    """``[(counter, version at record time)]``, one per output of ``node``."""
    ov = node.out_versions
    if type(ov) is _tensor.VersionCounter:
        return [(ov, 0)]
    return ov


class _RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, container, item):
        self._container = container
        self._item = item

    def remove(self):
        try:
            self._container.remove(self._item)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _derived_edges(node):
    """A one-primitive node's edges: its tensor arguments, in order."""
    by_index = {i: (parent, k) for i, parent, k in node.parents}
    mask = node.meta.tensor_mask
    positions = [i for i in range(mask.bit_length()) if mask >> i & 1]
    edges = [by_index.get(i) for i in positions]
    edges += [None] * node.meta.scalar_slots
    return edges


class GradFn:
    """A ``grad_fn``: the PyTorch-facing view of one recorded operation.

    ``name()`` and ``repr`` follow PyTorch (``<MulBackward0 object at ...>``
    for the repr of the object itself, ``MulBackward0`` for ``name()``);
    ``next_functions`` lists ``(node, 0)`` per input: another ``grad_fn``,
    an :class:`AccumulateGrad` for a leaf that requires grad, or None.
    """

    __slots__ = ("_node", "__weakref__")

    def __init__(self, node):
        self._node = node

    def name(self):
        """PyTorch's name of this backward function, e.g. ``MulBackward0``."""
        meta = self._node.meta
        return meta.name if meta.name is not None else default_name(self._node.prim)

    @property
    def next_functions(self):
        node = self._node
        edges = node.meta.edges
        if edges is None:
            edges = _derived_edges(node)
        out = []
        for e in edges:
            if e is None:
                out.append((None, 0))
            elif isinstance(e, tuple):
                parent = e[0]
                if parent.prim is None:  # a leaf's node: its AccumulateGrad
                    out.append((parent.meta._accumulate_grad(), 0))
                else:
                    out.append((facade(parent), 0))
            else:
                out.append((e._accumulate_grad(), 0))
        return tuple(out)

    @property
    def metadata(self):
        x = extras(self._node.meta)
        if x.metadata is None:
            x.metadata = {}
        return x.metadata

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)``, called after this node's backward.

        tracegrad passes the output cotangents as ``grad_outputs`` and, as
        ``grad_inputs``, a tuple of None, one per ``next_functions`` entry (the
        per-input cotangents are summed inside the engine); a return value is
        ignored.
        """
        x = extras(self._node.meta)
        if x.fn_hooks is None:
            x.fn_hooks = []
        x.fn_hooks.append(fn)
        return _RemovableHandle(x.fn_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> grad_outputs or None``, called before this node's backward."""
        x = extras(self._node.meta)
        if x.prehooks is None:
            x.prehooks = []
        x.prehooks.append(fn)
        return _RemovableHandle(x.prehooks, fn)

    def __call__(self, *grads):
        raise NotImplementedError("calling a grad_fn directly is not supported; use autograd.grad")

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad:
    """The ``grad_fn``-like node of a leaf that requires grad (``.variable``)."""

    __slots__ = ("variable", "__weakref__")

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    next_functions = ()

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"


def facade(node):
    """The (cached) :class:`GradFn` of a recorded node."""
    x = node.meta.extra
    if x is None:
        x = node.meta.extra = NodeExtras()
    f = x.facade
    if f is None:
        f = x.facade = GradFn(node)
    return f


def default_name(prim):
    """PyTorch's name of a node recording ``prim`` alone (``Primitive.torch_name``,
    else derived from the primitive's name: ``log_sigmoid`` -> ``LogSigmoidBackward0``).

    Used for nodes no PyTorch-level operation names: the recorded backward pass
    of ``create_graph`` and the inside of composite operations.
    """
    name = prim.torch_name
    if name is None:
        name = "".join(p.capitalize() for p in prim.name.split("_")) + "Backward0"
    return name


# --------------------------------------------------------------------------
# the eager trace


class TorchTrace(Trace):
    """The eager trace of :class:`Tensor` values (see the module docstring).

    A primitive bound on tensors (by ``tracegrad.numpy``, the NumPy-style
    ``nn`` functions, or the rules of a ``create_graph`` backward pass) is
    handed here by the eval trace; ``tracegrad.torch``'s own operations call
    :func:`apply` directly, with PyTorch's name for the node.  Both run the
    same function.
    """

    __slots__ = ()
    eager = True

    def process_primitive(self, prim, args, params):
        return apply(prim, None, args, params)


TORCH = TorchTrace(None)
_EMPTY = {}


#: ``Primitive.reads`` functions' answers, per requires-grad mask of the
#: arguments and their count (``{reads: {mask | 1 << count: (argnums,
#: reads_output)}}``): the function is
#: a fact of the primitive, pure in the mask; asking it costs a call and a
#: list per operation.
_reads_memo = {}


def apply(prim, name, args, params=_EMPTY, scalar_slots=0):
    """``prim(*args, **params)`` on tensors, recorded if it needs a gradient.

    The one dispatch path of the PyTorch layer (the hot path: kept lean).

    Parameters
    ----------
    prim : Primitive
    name : str or None
        PyTorch's name of the recorded node (None: the primitive's own,
        :func:`default_name`).
    args : sequence
        Tensors and numbers.  A tensor whose data is a functional transform's
        tracer (inside ``tracegrad.torch.func``), or such a tracer itself,
        hands the operation to that transform (:func:`rebind`).
    params : dict
        The primitive's static parameters.
    scalar_slots : int
        ``next_functions`` entries (None) for wrapped Python scalars.

    Returns
    -------
    Tensor or list of Tensor
    """
    Tensor = _tensor.Tensor
    values = []
    needs = 0  # bit i: argument i is a tensor that requires grad
    bit = 1
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            if type(d) is not np.ndarray:  # inside a torch.func transform
                return rebind(prim, [b._data if isinstance(b, Tensor) else b for b in args],
                              params)
            values.append(d)
            if a._requires_grad:
                needs |= bit
        elif isinstance(a, Tracer):
            return rebind(prim, [b._data if isinstance(b, Tensor) else b for b in args], params)
        else:
            values.append(a)
        bit <<= 1
    out = prim.impl(*values, **params)
    if not (needs and prim.differentiable and _grad_state.enabled):
        if prim.multiple_results:
            return [Tensor._wrap(o) for o in out]
        return Tensor._wrap(out)
    multiple = prim.multiple_results
    if not multiple and out.dtype.kind != "f":
        return Tensor._wrap(out)  # an integer or bool result carries no gradient

    # record the node: its differentiated parents, and the saved values its
    # VJP rules read (Primitive.reads), with their versions
    reads = prim.reads
    by_parent = type(reads) is not tuple
    if by_parent:  # depends on which arguments are differentiated: memoized
        memo = _reads_memo.get(reads)
        if memo is None:
            memo = _reads_memo[reads] = {}
        r = memo.get(needs | bit)  # (bit = 1 << len(args): the count is in the key)
        if r is None:
            r = memo[needs | bit] = reads([bool(needs >> i & 1) for i in range(len(args))])
        idx, reads_out = r
    else:
        idx, reads_out = reads
    read_all = idx == "all"
    parents = []
    saved = []
    mask = 0
    i = -1
    for a in args:
        i += 1
        if not isinstance(a, Tensor):
            if by_parent and i in idx:
                # a number the rule reads: PyTorch saves it too (x * 2 cannot be
                # differentiated twice without retain_graph); it never changes
                saved.append((i, _CONSTANT, 0))
            continue
        mask |= 1 << i
        if a._requires_grad:
            node = a._node
            if node is None:
                node = a._leaf_node
                if node is None:
                    node = a._leaf_engine_node()
                parents.append((i, node, 0))
            else:
                parents.append((i, node, a._out_index))
        if read_all or i in idx:
            vc = a._vc
            if type(vc) is not _VersionCounter:
                _inference_saved()
            saved.append((i, vc, vc.value))
    # the node, its slots filled inline (TorchNode.__init__ costs a call per
    # operation); a node that saves nothing shares one empty tuple, and the
    # output's counter stands for itself at version 0: fewer objects for
    # Python's garbage collector to traverse while the graph grows
    node = _new(TorchNode)
    node.prim = prim
    node.params = params
    node.primals = args
    node.ans = out
    node.parents = tuple(parents)
    node.seq = next(node_sequence)
    node.name = name
    node.edges = None
    node.saved = saved or ()
    node.reads_output = reads_out
    node.scalar_slots = scalar_slots
    node.tensor_mask = mask
    node.extra = None
    if _anomaly.enabled:  # anomaly detection: keep the forward call's traceback
        extras(node).forward_trace = _user_frames()
    if multiple:
        counters = [_VersionCounter() for _ in out]
        node.out_versions = [(c, 0) for c in counters]
        return [Tensor._from_node(o, node, k, c) if o.dtype.kind == "f" else Tensor._wrap(o)
                for k, (o, c) in enumerate(zip(out, counters))]
    # the output tensor (Tensor._from_node, inlined)
    t = _new(Tensor)
    t._data = out if type(out) is np.ndarray else np.asarray(out)
    t._requires_grad = True
    t._grad = None
    t._node = node
    t._out_index = 0
    t._vc = node.out_versions = _VersionCounter()
    t._retains_grad = False
    t._leaf_node = None
    t._acc = None
    t._hooks = None
    t._base = None
    return t


def rebind(prim, values, params):
    """``prim`` applied to ``values`` (tensors' data, some of them tracers of a
    functional transform: ``tracegrad.torch.func``), as tensors.

    The current trace is the functional transform's (an eager trace is never
    current), so binding the unwrapped values hands the operation to it; the
    result is wrapped in tensors that are not recorded on the PyTorch graph
    (the transform differentiates them).
    """
    out = prim.bind(*values, **params)
    if prim.multiple_results:
        return [_tensor.Tensor._wrap(o) for o in out]
    return _tensor.Tensor._wrap(out)


class _Constant:
    """The version counter of a saved number: always 0."""

    __slots__ = ()
    value = 0


_CONSTANT = _Constant()


def _inference_saved():
    raise RuntimeError(
        "Inference tensors cannot be saved for backward. Please do not use Tensors "
        "created in inference mode in computation tracked by autograd. To work around "
        "this, you can make a clone to get a normal tensor and use it in autograd, or "
        "use `torch.no_grad()` instead of `torch.inference_mode()`."
    )


def group(out, name, inputs, scalar_slots=0):
    """Name the node that produced ``out`` after a PyTorch-level operation.

    ``inputs`` are that operation's tensor arguments (their ``next_functions``
    edges); ``scalar_slots`` appends None edges for wrapped Python scalars.
    If ``out`` is one of the inputs (the operation was an identity) a fresh
    node is recorded so the result still has its own ``grad_fn``.
    """

    if not isinstance(out, _tensor.Tensor) or out._node is None:
        return out
    x = out._node.meta.extra
    if any(out is t for t in inputs) or (x is not None and x.facade is not None):
        out = reshape_p.bind(out, shape=tuple(out._data.shape))
    meta = out._node.meta
    meta.name = name
    meta.edges = [t._edge() if isinstance(t, _tensor.Tensor) else None for t in inputs]
    meta.edges += [None] * scalar_slots
    return out


# --------------------------------------------------------------------------
# backward


def _check_saved(meta, node):
    for i, counter, version in meta.saved:
        if counter.value != version:
            value = node.primals[i]
            grad_fn = value.grad_fn if isinstance(value, _tensor.Tensor) else None
            raise version_error(value, counter.value, version,
                                None if grad_fn is None else grad_fn.name())
            # (PyTorch 2.13 says "output 0" here whatever the tensor's output_nr)
    if meta.reads_output:
        for k, (counter, version) in enumerate(out_counters(meta)):
            if counter.value != version:
                ans = node.ans[k] if node.prim.multiple_results else node.ans
                raise version_error(ans, counter.value, version, facade(node).name(), k)


def version_error(value, now, then, producer=None, output_index=0):
    """PyTorch's RuntimeError for a saved value modified in place after saving.

    ``producer`` is the name of the node the value is an output of (its
    ``grad_fn``; for a saved output, the node that saved it), shown as
    PyTorch shows it (``MulBackward0`` -> ``Mul``); None for leaves.
    """

    data = value._data if hasattr(value, "_data") else np.asarray(value)
    kind = {np.dtype(np.float32): "FloatTensor", np.dtype(np.float64): "DoubleTensor",
            np.dtype(np.float16): "HalfTensor", np.dtype(np.int64): "LongTensor",
            np.dtype(np.int32): "IntTensor", np.dtype(np.bool_): "BoolTensor"}.get(
        data.dtype, "Tensor")
    shape = list(data.shape)
    which = ""
    if producer is not None:
        which = (f", which is output {output_index} of "
                 f"{re.sub(r'Backward[0-9]*$', '', producer)},")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by "
        f"an inplace operation: [torch.{kind} {shape}]{which} is at version "
        f"{now}; expected version {then} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _unpack_tensors(node):

    meta = node.meta
    if node.primals is None:
        return None, None
    _check_saved(meta, node)
    if node.prim.multiple_results:
        counters = out_counters(meta)
        ans = [_tensor.Tensor._from_node(a, node, k, counters[k][0])
               for k, a in enumerate(node.ans)]
    else:
        ans = _tensor.Tensor._from_node(node.ans, node, 0, out_counters(meta)[0][0])
    return list(node.primals), ans


def _releasable(node):
    if node.saved or node.reads_output:  # (a recorded node is its own meta)
        release = True
    elif type(node.prim) is Primitive:
        release = False
    else:
        ctx = getattr(node.prim, "ctx", None)  # a custom Function that saved tensors
        release = ctx is not None and bool(getattr(ctx, "_saved", None))
        if release:
            ctx._freed = True
    return release  # (the edges stay derivable: TorchNode.tensor_mask)


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=True):
    """The engine behind ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad``.

    Returns
    -------
    list or None
        With ``accumulate=False`` (``autograd.grad``), the cotangent of each
        of ``inputs`` (a tensor, or None if unreached); otherwise None, after
        accumulating into the ``.grad`` of the leaves (or only ``inputs``).
    """

    if retain_graph is None:
        retain_graph = create_graph
    entries = []
    direct = []  # outputs that are themselves leaves
    handed = {}  # id -> every array/tensor given out as a gradient (see _finish)
    for k, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not isinstance(t, _tensor.Tensor):
            raise TypeError(f"expected a Tensor as output {k}, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"element {k} of tensors does not require grad and does not have a grad_fn"
            )
        g = _initial_cotangent(t, g, k, create_graph)
        handed[id(g)] = g  # the caller's gradient is never handed out as a .grad
        if t._node is None:
            direct.append((t, g))
        else:
            entries.append((t._node, t._out_index, g))
    wanted = None if inputs is None else list(inputs)
    captured = {}
    if wanted is not None:
        if accumulate and not wanted:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in wanted:
            if not isinstance(t, _tensor.Tensor):
                raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
            if not t._requires_grad:
                raise RuntimeError(
                    "can't retain_grad on Tensor that has requires_grad=False" if accumulate
                    else "One of the differentiated Tensors does not require grad")
    want_nodes = {}
    retained_before = {}  # non-leaf inputs: already retaining their grad?
    if wanted is not None:
        for i, t in enumerate(wanted):
            if t._node is not None:
                want_nodes.setdefault((id(t._node), t._out_index), []).append(i)
                retained_before[i] = t._retains_grad

    Tensor = _tensor.Tensor

    def prepare(node, ct):
        # the engine's one call per node (a recorded node is a TorchNode: its
        # own meta): hooks, then the saved values handed to the rules
        x = node.extra
        if x is not None:
            ct = _node_hooks(x, node, ct, create_graph, handed)
        if want_nodes:
            outs = ct if node.prim.multiple_results else [ct]
            for k, c in enumerate(outs):
                for i in want_nodes.get((id(node), k), ()):
                    captured[i] = c
        if x is not None and x.fn_hooks:
            # grad_inputs: one None per next_functions entry (the engine sums
            # per-input cotangents itself; a documented difference)
            no_inputs = (None,) * len(facade(node).next_functions)
            for h in list(x.fn_hooks):
                h(no_inputs, _as_tensor_tuple(ct, create_graph, node))
        primals = node.primals
        if primals is None:
            return ct, None, None
        if create_graph:
            return (ct, *_unpack_tensors(node))
        if node.saved or node.reads_output:
            _check_saved(node, node)
        # the arrays as they are now (a `.data =` assignment since recording
        # is seen, as in PyTorch); one- and two-operand nodes without a loop
        n = len(primals)
        if n == 1:
            a = primals[0]
            return ct, (a._data if isinstance(a, Tensor) else a,), node.ans
        if n == 2:
            a, b = primals
            return ct, (a._data if isinstance(a, Tensor) else a,
                        b._data if isinstance(b, Tensor) else b), node.ans
        return ct, [a._data if isinstance(a, Tensor) else a for a in primals], node.ans

    prev = _ctx.trace
    if create_graph:
        # rules then bind primitives on tensors, which the eval trace hands
        # to TORCH: the backward computation is itself recorded
        entries = [(n, k, _as_tensor(g)) for n, k, g in entries]
    else:
        entries = [(n, k, _as_array(g)) for n, k, g in entries]
    grad_state = _grad_mode._state.enabled
    _grad_mode._state.enabled = bool(create_graph)
    try:
        leaf_cts = backward_pass(
            entries, prepare=prepare, release=None if retain_graph else _releasable,
            check=_nan_check if _anomaly.enabled and _anomaly.check_nan else None,
        )
    finally:
        _grad_mode._state.enabled = grad_state
        _ctx.trace = prev
    for t, g in direct:
        node = t._leaf_engine_node()
        g = _as_tensor(g) if create_graph else _as_array(g)
        leaf_cts[node] = g if node not in leaf_cts else leaf_cts[node] + g

    if not accumulate:
        results = []
        for i, t in enumerate(wanted):
            if t._node is None:
                c = leaf_cts.get(t._leaf_node) if t._leaf_node is not None else None
            else:
                c = captured.get(i)
            if c is not None:
                c = _finish(c, t, create_graph, handed, layout=False)
            results.append(c)
        return results

    targets = None if wanted is None else {id(t) for t in wanted}
    with _grad_mode.set_grad_enabled(bool(create_graph)):
        for node, ct in leaf_cts.items():
            leaf = node.meta
            if targets is not None and id(leaf) not in targets:
                continue
            if not leaf._requires_grad:
                continue
            leaf._accumulate(_finish(ct, leaf, create_graph, handed), create_graph)
        for i, t in enumerate(wanted or ()):
            if t._node is not None and i in captured and not retained_before.get(i, True):
                # a non-leaf in inputs= gets its .grad (PyTorch calls retain_grad on it)
                t._accumulate(_finish(captured[i], t, create_graph, handed), create_graph)
        for i, t in enumerate(wanted or ()):
            if t._node is not None:
                t.retain_grad()
    return None


def _initial_cotangent(t, g, k, create_graph):

    if g is None:
        if t._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return np.ones(t._data.shape, t._data.dtype)
    if isinstance(g, _tensor.Tensor):
        gdata = g._data
    else:
        gdata = np.asarray(g, dtype=t._data.dtype)
    if gdata.shape != t._data.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{k}] has a shape of {_tensor.Size(gdata.shape)} and "
            f"output[{k}] has a shape of {_tensor.Size(t._data.shape)}."
        )
    if gdata.dtype != t._data.dtype:
        gdata = gdata.astype(t._data.dtype)
        if isinstance(g, _tensor.Tensor):
            g = g.to(t.dtype)
    return g if (create_graph and isinstance(g, _tensor.Tensor)) else gdata


def _as_array(g):

    return g._data if isinstance(g, _tensor.Tensor) else g


def _as_tensor(g):

    return g if isinstance(g, _tensor.Tensor) else _tensor.Tensor._wrap(np.asarray(g))


def _finish(ct, like, create_graph, handed=None, layout=True):
    """A cotangent as the tensor PyTorch would hand out (fresh, ``like``'s dtype).

    With ``layout`` (a ``.grad``), the result has ``like``'s strides when
    ``like`` is dense, as PyTorch's AccumulateGrad does; without it (what
    ``autograd.grad`` returns), a C-contiguous array.

    ``handed`` maps ``id`` to every array or tensor already handed out in this
    backward pass (and the caller's own gradient arguments): one cotangent
    can reach several leaves (``x + w``), and each ``.grad`` must own its
    memory, or accumulating into one would change the other.
    """

    if isinstance(ct, _tensor.Tensor):
        if create_graph:
            if handed is not None:
                if id(ct) in handed:
                    ct = ct.clone()
                handed[id(ct)] = ct
            return ct
        return _tensor.Tensor._wrap(np.array(ct._data))
    data = np.asarray(ct)
    lk = like._data
    fresh = None
    if not layout:
        if not data.flags.c_contiguous:
            fresh = np.ascontiguousarray(data)
    elif data.shape == lk.shape and data.strides != lk.strides and data.dtype == lk.dtype and (
            lk.flags.c_contiguous or lk.flags.f_contiguous):
        # PyTorch's layout contract: a dense leaf's .grad has the leaf's
        # strides (a Linear weight's gradient arrives as a transposed view)
        fresh = np.empty_like(lk)
        np.copyto(fresh, data)
    if fresh is not None:
        data = fresh
    elif (not (data.flags.owndata and data.flags.writeable) or data is lk
            or (handed is not None and id(data) in handed)):
        data = np.array(data)
    if handed is not None:
        handed[id(data)] = data
    return _tensor.Tensor._wrap(data.reshape(lk.shape))


def _as_tensor_tuple(ct, create_graph, node):
    cts = ct if node.prim.multiple_results else [ct]
    return tuple(None if c is None else _as_tensor(c) for c in cts)


def _from_tensor_tuple(r, node):
    vals = [_as_array(c) for c in r]
    return vals if node.prim.multiple_results else vals[0]


def _own_dirs():
    """The folders of tracegrad's own code (the package and its mapped subpackages)."""
    mods = (sys.modules[__name__.rsplit(".", 2)[0]], sys.modules[backward_pass.__module__],
            sys.modules[reshape_p.impl.__module__], sys.modules[Trace.__module__])
    return tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in mods)


_OWN_DIRS = None


def _user_frames():
    """The formatted stack of the caller, without tracegrad's own frames (as
    PyTorch's anomaly traceback shows the Python code, not the engine)."""
    global _OWN_DIRS
    if _OWN_DIRS is None:
        _OWN_DIRS = _own_dirs()
    frames = [f for f in traceback.extract_stack()
              if not os.path.abspath(f.filename).startswith(_OWN_DIRS)]
    return traceback.format_list(frames)


def _nan_check(node, i, c):
    """Anomaly detection: a backward function that returned NaN raises, after a
    warning with the traceback of the forward call that recorded it (PyTorch's
    messages; ``i`` is the argument, PyTorch's output index of the backward)."""
    data = c._data if isinstance(c, _tensor.Tensor) else c
    if not (np.issubdtype(np.asarray(data).dtype, np.inexact) and np.isnan(data).any()):
        return
    name = facade(node).name()
    x = node.extra
    trace = "".join(x.forward_trace) if x is not None and x.forward_trace else (
        "  (no traceback: the operation was recorded before anomaly detection was "
        "enabled)\n")
    warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the "
                  f"error:\n{trace}", UserWarning, stacklevel=2)
    raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def _node_hooks(x, node, ct, create_graph, handed):
    """Tensor hooks, ``grad_fn`` prehooks and ``retain_grad`` of one node
    (``x``: its :class:`NodeExtras`) on its output cotangent ``ct``."""
    if x.hooks:  # tensor hooks first; grad_fn prehooks see their result
        ct = _run_tensor_hooks(x, ct, node, create_graph)
    if x.prehooks:
        for h in list(x.prehooks):
            r = h(_as_tensor_tuple(ct, create_graph, node))
            if r is not None:
                ct = _from_tensor_tuple(r, node)
    if x.retained:
        _retain(x, ct, node, create_graph, handed)
    return ct


def _run_tensor_hooks(x, ct, node, create_graph):
    multi = node.prim.multiple_results
    cts = list(ct) if multi else [ct]
    for k, hooks in x.hooks.items():
        for h in list(hooks):
            if cts[k] is None:
                continue
            r = h(_as_tensor(cts[k]))
            if r is not None:
                cts[k] = r if create_graph else _as_array(r)
    return cts if multi else cts[0]


def _retain(x, ct, node, create_graph, handed):
    cts = ct if node.prim.multiple_results else [ct]
    for k, refs in x.retained.items():
        for ref in refs:
            t = ref()
            if t is not None and cts[k] is not None:
                with _grad_mode.set_grad_enabled(bool(create_graph)):
                    t._accumulate(_finish(cts[k], t, create_graph, handed), create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """Sum of gradients of ``outputs`` with respect to ``inputs`` (PyTorch's
    ``torch.autograd.grad``).

    Parameters
    ----------
    outputs : Tensor or sequence of Tensors
    inputs : Tensor or sequence of Tensors
        Leaf or non-leaf tensors that require grad.
    grad_outputs : sequence, optional
        One per output (None: ones, only for one-element outputs).
    retain_graph : bool, optional
        Keep saved values for another backward (default: ``create_graph``).
    create_graph : bool, optional
        Record the backward computation, for higher derivatives.
    allow_unused : bool, optional
        If False (default unless ``materialize_grads``), an input the outputs
        do not depend on raises; if True its gradient is None.
    materialize_grads : bool, optional
        Return zeros instead of None for unused inputs.

    Returns
    -------
    tuple of Tensor
        One per input; ``.grad`` attributes are not touched.

    Raises
    ------
    RuntimeError
        For an output or input that does not require grad, an unused input
        without ``allow_unused``, a non-scalar output without its
        ``grad_output``, or a backward through freed saved values.
    """

    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True needs vmap, which tracegrad.torch does not have yet")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    outs = (outputs,) if isinstance(outputs, _tensor.Tensor) else tuple(outputs)
    ins = (inputs,) if isinstance(inputs, _tensor.Tensor) else tuple(inputs)
    if grad_outputs is None:
        gos = (None,) * len(outs)
    elif isinstance(grad_outputs, _tensor.Tensor):
        gos = (grad_outputs,)
    else:
        gos = tuple(grad_outputs)
    if len(gos) != len(outs):
        raise RuntimeError(f"got {len(outs)} tensors and {len(gos)} gradients")
    res = run_backward(outs, gos, retain_graph, create_graph, inputs=ins,
                       accumulate=False)
    final = []
    for index, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been "
                    "used in the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = _tensor.Tensor._wrap(np.zeros_like(t._data))
        final.append(g)
    return tuple(final)


# Last: ._tensor builds Tensor on TORCH and this module's node types, and this
# module reads the tensor classes (``_tensor.Tensor``) only at call time
# (tracegrad.torch imports this module before ._tensor, so this line runs ._tensor).
from . import _tensor  # noqa: E402

_VersionCounter = _tensor.VersionCounter
