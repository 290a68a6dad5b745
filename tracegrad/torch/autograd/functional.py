"""``torch.autograd.functional``: Jacobians, Hessians and their products.

``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp`` and ``vhp`` take a
function of tensors and the tensors to differentiate at, with PyTorch's
signatures, argument handling, output structure and errors.

Two engines compute them:

* **the functional transforms** (the default).  The function runs once on
  fresh leaf tensors, which records its graph of tracegrad primitives.  That
  recording is *replayed* as a pure function of NumPy arrays (each node's
  primitive re-bound to the replayed values of its parents, everything else
  a constant) and handed to :func:`tracegrad.jacrev`, :func:`tracegrad.jacfwd`,
  :func:`tracegrad.vjp`, :func:`tracegrad.jvp` or :func:`tracegrad.grad`.  So
  ``jvp`` is true forward mode (PyTorch uses the double-backward trick),
  ``strategy="forward-mode"`` works without ``vectorize``, and ``hessian``
  with ``outer_jacobian_strategy="forward-mode"`` is forward-over-reverse.
  The replay is the computation at the point the function was called at, so
  Python control flow inside the function is fixed, which is exactly what a
  derivative at that point needs.
* **the torch graph**, with :func:`tracegrad.torch.autograd.grad`, PyTorch's
  own algorithm: one backward pass per Jacobian row, the double-backward
  trick for ``jvp`` and ``hvp``.  It is used when ``create_graph=True`` (the
  results must be tensors connected to the graph, for higher derivatives),
  when ``strict=True`` (whose errors are defined by that algorithm's
  structure), and as a fallback when a recording cannot be replayed: a custom
  :class:`~tracegrad.torch.autograd.Function`, hooks registered inside the
  function, or a constant modified in place after it was used (detected by
  comparing the replayed output with the recorded one).

The functional engine is always vectorized: :func:`tracegrad.jacrev` and
:func:`tracegrad.jacfwd` push the whole standard basis through one
:func:`tracegrad.vmap` of the VJP or JVP, so ``vectorize=True`` changes
nothing there.  The torch-graph engine (``create_graph=True`` or
``strict=True``) runs one backward pass per Jacobian row whatever
``vectorize`` says (PyTorch's ``is_grads_batched`` is not available).
"""
import numpy as np

from ... import transforms as _tf
from ...core import concrete_value
from ...primitives import Primitive, ops
from .. import _grad_mode, _ops
from .._autograd import grad as _autograd_grad_fn
from .._creation import zeros_like
from .._tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


# --------------------------------------------------------------------------
# argument handling (PyTorch's conventions and messages)


def _as_tuple(x, arg_name, fn_name):
    """``(was a tuple, tuple of tensors)``; TypeError for anything else."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {where} has type {type(el)}."
            )
    return is_tuple, items


def _unpack(res, is_tuple):
    return res if is_tuple else res[0]


def _unpack_blocks(blocks, outer_is_tuple, inner_is_tuple, forward=False):
    """Jacobian blocks ``[i][j]`` in PyTorch's output structure.

    PyTorch's forward-mode Jacobian builds lists where reverse mode builds
    tuples (a list of lists for tuple outputs and inputs, a list for a
    single output and tuple inputs, a tuple for tuple outputs and a single
    input); the same containers are returned here.
    """
    if forward:
        blocks = [list(row) for row in blocks]
    rows = blocks if inner_is_tuple else tuple(row[0] for row in blocks)
    return rows if outer_is_tuple else rows[0]


def _prepare(inputs, create_graph, need_graph):
    """Fresh tensor objects for the function (PyTorch's ``_grad_preprocess``).

    With ``create_graph`` an input that requires grad is aliased by a view,
    so gradients flow on to it; otherwise it is detached (and made a leaf
    that requires grad when ``need_graph``).
    """
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph):
    """Results as handed to the user: detached unless ``create_graph``."""
    if create_graph:
        return tuple(tensors)
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, False) for t in tensors)


def _pair(outputs, result, outputs_is_tuple, result_is_tuple, create_graph):
    """``(func_output, product)`` as ``vjp``, ``jvp``, ``hvp`` and ``vhp`` return them."""
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(result, create_graph), result_is_tuple))


def _check_v(v, others, others_is_tuple):
    if len(v) != len(others):
        if others_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(others)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, others)):
        if a.shape != b.shape:
            where = f"Entry {i} in " if others_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.shape} but got {a.shape}.")


def _get_v(v, others, others_is_tuple, fn_name, create_graph, single_message):
    """The vector ``v`` as a tuple of tensors matching ``others`` (checked)."""
    if v is None:
        if len(others) != 1 or others[0].numel() != 1:
            raise RuntimeError(single_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, others, others_is_tuple)
    return v


_V_OUTPUT = ("The vector v can only be None if the user-provided function returns a single "
             "Tensor with a single element.")
_V_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.")


def _call(func, inputs, fn_name, strict):
    """Run ``func`` with grad enabled; its outputs as ``(was a tuple, tuple)``."""
    with _grad_mode.enable_grad():
        out = func(*inputs)
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    if strict:
        _check_requires_grad(outs, "outputs")
    return is_tuple, outs


def _check_scalar_output(is_tuple, outputs, fn_name):
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single element"
        )


# strict mode: the checks and their messages

def _check_requires_grad(tensors, kind):
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."
            )
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The "
            "outputs must be computed in a differentiable manner from the input when running "
            "in strict mode."
        )


_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    """Replace unreached gradients (None) by zeros, or raise in strict mode."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_MESSAGES[stage].format(i=i))
            g = Tensor._wrap(np.zeros_like(ref._data))
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


# --------------------------------------------------------------------------
# engine 1: the torch graph (autograd.grad)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad; None for unreached inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
             if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _autograd_grad_fn(
        [o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
        create_graph=create_graph, allow_unused=True,
    )


def _graph_jacobian(inputs, outputs, create_graph, strict):
    """Rows of the Jacobian by one backward pass per output element."""
    blocks = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        flat = out.reshape(-1)
        for j in range(out.numel()):
            vj = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
            for k, (g, inp) in enumerate(zip(vj, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of "
                            f"input {k}. This is not allowed in strict mode."
                        )
                    g = Tensor._wrap(np.zeros_like(inp._data))
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(
                        "The jacobian of the user-provided function is independent of "
                        f"input {i}. This is not allowed in strict mode when create_graph=True."
                    )
                rows[k].append(g)
        row = []
        for r, inp in zip(rows, inputs):
            shape = tuple(out.shape) + tuple(inp.shape)
            if r:
                row.append(_ops.stack(r, 0).view(shape))
            else:  # an output without elements
                row.append(Tensor._wrap(np.zeros(shape, inp._data.dtype)))
        blocks.append(tuple(row))
    return tuple(_finish(b, create_graph) for b in blocks)


# --------------------------------------------------------------------------
# engine 2: the recording replayed under tracegrad's functional transforms


class _NotReplayable(Exception):
    """The recorded graph cannot stand for the function (use the torch graph)."""


class _Replay:
    """The recorded computation from ``inputs`` to ``outputs``, as a function of arrays.

    Calling it with one array per input re-binds every recorded primitive
    (in recording order) to the replayed values of its parents; every other
    operand (a constant tensor, a parameter the function closed over, an
    index) keeps its recorded value.  Under a transform the arrays are
    tracers, so the replay is differentiated by tracegrad's transforms.

    Raises
    ------
    _NotReplayable
        From the constructor for a node that is not a tracegrad primitive (a
        custom ``Function``) or carries hooks; from the first call if the
        replayed outputs differ from the recorded ones.
    """

    def __init__(self, inputs, outputs):
        self.inputs = {}
        for k, t in enumerate(inputs):
            if t._hooks:
                raise _NotReplayable("a hook on an input")
            if t._leaf_node is not None:
                self.inputs[id(t._leaf_node)] = k
        self.outputs = []
        stack = []
        for o in outputs:
            if o._node is not None:
                self.outputs.append(("node", o._node, o._out_index))
                stack.append(o._node)
            elif any(o is t for t in inputs):
                self.outputs.append(("input", next(k for k, t in enumerate(inputs) if t is o), 0))
            else:
                self.outputs.append(("const", o._data, 0))
        seen = {}
        while stack:
            node = stack.pop()
            if node.prim is None or id(node) in seen:
                continue
            meta = node.meta
            if not isinstance(node.prim, Primitive) or node.primals is None:
                raise _NotReplayable(f"node {node.prim.name}")
            x = None if meta is None else meta.extra
            if x is not None and (x.hooks or x.prehooks or x.fn_hooks):
                raise _NotReplayable("a hook inside the function")
            seen[id(node)] = node
            stack.extend(p for _, p, _ in node.parents)
        self.nodes = sorted(seen.values(), key=lambda n: n.seq)
        self.expected = [o._data for o in outputs]
        self.checked = False

    def __call__(self, *arrays):
        env = {}
        for node in self.nodes:
            args = [a._data if isinstance(a, Tensor) else a for a in node.primals]
            for i, parent, k in node.parents:
                if parent.prim is None:
                    idx = self.inputs.get(id(parent))
                    if idx is not None:  # otherwise a leaf outside the inputs: a constant
                        args[i] = arrays[idx]
                else:
                    value = env[id(parent)]
                    args[i] = value[k] if parent.prim.multiple_results else value
            env[id(node)] = node.prim.bind(*args, **node.params)
        outs = []
        for kind, ref, k in self.outputs:
            if kind == "node":
                value = env[id(ref)]
                outs.append(value[k] if ref.prim.multiple_results else value)
            elif kind == "input":
                outs.append(arrays[ref])
            else:
                outs.append(ref)
        if not self.checked:
            self._check(outs)
        return tuple(outs)

    def _check(self, outs):
        for got, want in zip(outs, self.expected):
            got = np.asarray(concrete_value(got))
            tol = 1e-5 if want.dtype.itemsize < 8 else 1e-12
            if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=0,
                                                          equal_nan=True):
                raise _NotReplayable("the replayed output differs from the recorded one")
        self.checked = True


def _replay(inputs, outputs):
    """A :class:`_Replay` of the recording, or None if it cannot be replayed
    or no output depends on the inputs (then the torch graph is as cheap)."""
    if not any(o.requires_grad for o in outputs):
        return None
    try:
        return _Replay(inputs, outputs)
    except _NotReplayable:
        return None


def _transformed(compute):
    """Run ``compute()`` (a transform over a replay); None if the replay fails."""
    try:
        return compute()
    except (_NotReplayable, NotImplementedError):
        return None


def _arrays(tensors, dtypes=None):
    """The tensors' data (cast to ``dtypes`` where given)."""
    if dtypes is None:
        return tuple(t._data for t in tensors)
    return tuple(t._data if t._data.dtype == d else t._data.astype(d)
                 for t, d in zip(tensors, dtypes))


def _tensors(values):
    """Fresh, writable tensors (no history) from transform results."""
    out = []
    for v in values:
        a = np.asarray(v)
        if not (a.flags.owndata and a.flags.writeable):
            a = np.array(a)
        out.append(Tensor._wrap(a))
    return tuple(out)


def _scalar_fn(replay):
    """The replay's single output as a 0-d value (``hessian``, ``hvp``, ``vhp``)."""

    def f(*arrays):
        return ops.reshape(replay(*arrays)[0], ())

    return f


def _all(n):
    return tuple(range(n))


# --------------------------------------------------------------------------
# public API


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Jacobian product of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
        Where to evaluate ``func`` (floating point).
    v : Tensor or tuple of Tensors, optional
        Shaped like ``func``'s output(s); may be omitted when the output is a
        single one-element tensor (then 1).
    create_graph : bool, optional
        Compute the results in a differentiable way (on the torch graph), so
        they can be differentiated again with respect to ``inputs`` that
        require grad.
    strict : bool, optional
        Raise if an input does not influence the outputs, instead of
        returning zeros for it.

    Returns
    -------
    func_output : Tensor or tuple of Tensors
        ``func(*inputs)`` (detached unless ``create_graph``).
    vjp : Tensor or tuple of Tensors
        ``v^T J``, one per input, shaped like it.

    Raises
    ------
    TypeError
        If ``inputs``, ``v`` or the output is not a Tensor or tuple of Tensors.
    RuntimeError
        If ``v`` is missing for an output that is not a single one-element
        tensor, or its length or a shape is wrong; in strict mode, for an
        output that does not require grad or an input it does not depend on.
    """
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    with _grad_mode.enable_grad():
        inputs = _prepare(inputs, create_graph, need_graph=True)
    is_out_tuple, outputs = _call(func, inputs, "vjp", strict)
    v = _get_v(v, outputs, is_out_tuple, "vjp", create_graph, _V_OUTPUT)
    result = None
    if not (create_graph or strict):
        replay = _replay(inputs, outputs)
        if replay is not None:
            vs = (np.ones(outputs[0].shape, outputs[0]._data.dtype),) if v is None else \
                _arrays(v, [o._data.dtype for o in outputs])

            def compute():
                _, vjp_fun = _tf.vjp(replay, *_arrays(inputs))
                return _tensors(vjp_fun(vs))

            result = _transformed(compute)
    if result is None:
        with _grad_mode.set_grad_enabled(create_graph or _grad_mode.is_grad_enabled()):
            grads = _grad(outputs, inputs, v, create_graph=create_graph)
            result = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    return _pair(outputs, result, is_out_tuple, is_in_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Jacobian-vector product of ``func`` at ``inputs``.

    Computed in forward mode by :func:`tracegrad.jvp` on the replayed
    recording; with ``create_graph`` or ``strict``, by PyTorch's
    double-backward trick on the torch graph.

    Parameters
    ----------
    func : callable
        Takes tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    v : Tensor or tuple of Tensors, optional
        Shaped like ``inputs``; may be omitted when the input is a single
        one-element tensor.
    create_graph, strict : bool, optional
        As in :func:`vjp`.

    Returns
    -------
    func_output : Tensor or tuple of Tensors
    jvp : Tensor or tuple of Tensors
        ``J v``, one per output, shaped like it.

    Raises
    ------
    TypeError, RuntimeError
        As :func:`vjp` (``v`` is checked against the inputs).
    """
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    with _grad_mode.enable_grad():
        inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _get_v(v, inputs, is_in_tuple, "jvp", create_graph, _V_INPUT)
    is_out_tuple, outputs = _call(func, inputs, "jvp", strict)
    result = None
    if not (create_graph or strict):
        replay = _replay(inputs, outputs)
        if replay is not None:
            dtypes = [t._data.dtype for t in inputs]
            vs = (np.ones(inputs[0].shape, dtypes[0]),) if v is None else _arrays(v, dtypes)

            def compute():
                return _tensors(_tf.jvp(replay, _arrays(inputs), vs)[1])

            result = _transformed(compute)
    if result is None:
        result = _backward_trick(outputs, inputs, outputs, v, create_graph, strict,
                                 "back_trick")
    return _pair(outputs, result, is_out_tuple, is_out_tuple, create_graph)


def _backward_trick(outputs, inputs, like, v, create_graph, strict, stage):
    """A forward-mode product by the double-backward trick on the torch graph.

    The VJP ``u -> J^T u`` of ``outputs`` is linear in ``u`` (zeros shaped
    like ``like``, requiring grad), so differentiating it with respect to
    ``u`` against ``v`` gives ``J v``: ``jvp`` when ``outputs`` are the
    function's outputs, ``hvp`` when they are its gradient.
    """
    with _grad_mode.enable_grad():
        u = tuple(zeros_like(t, requires_grad=True) for t in like)
        back = _grad(outputs, inputs, u, create_graph=True)
        if strict:
            if stage == "back_trick":
                _check_requires_grad(back, "grad_inputs")
            else:
                _check_requires_grad(outputs, "hessian")
    with _grad_mode.set_grad_enabled(create_graph or _grad_mode.is_grad_enabled()):
        res = _grad(back, u, v, create_graph=create_graph)
        return _zeros_for_none(res, like, strict, create_graph, stage)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """Jacobian of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    create_graph : bool, optional
        Differentiable result (computed on the torch graph).
    strict : bool, optional
        Raise for an output independent of an input instead of zeros.
    vectorize : bool, optional
        Accepted; the functional engine is always vectorized (vmap), the
        torch-graph engine never is (see the module notes).
    strategy : {"reverse-mode", "forward-mode"}, optional
        :func:`tracegrad.jacrev` (one backward pass per output element) or
        :func:`tracegrad.jacfwd` (one forward pass per input element).
        Unlike PyTorch, "forward-mode" does not need ``vectorize=True``.

    Returns
    -------
    Tensor, tuple of Tensors, or tuple of tuples of Tensors
        For output ``i`` of shape ``O_i`` and input ``j`` of shape ``I_j`` a
        block of shape ``O_i + I_j`` (the input's dtype in reverse mode);
        ``J[i][j]`` when both are tuples, ``J[i]`` or ``J[j]`` when one is.
        In forward mode the containers are PyTorch's: lists where reverse
        mode has tuples, except a tuple for tuple outputs of a single input.

    Raises
    ------
    AssertionError
        For an unknown ``strategy`` (PyTorch's exception type).
    NotImplementedError
        For ``strategy="forward-mode"`` with ``create_graph=True``.
    TypeError, RuntimeError
        As :func:`vjp`; ``strict=True`` with ``vectorize=True`` or with
        ``strategy="forward-mode"`` is refused, as in PyTorch.
    """
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `strict=False` or `strategy="reverse-mode"`.'
            )
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with _grad_mode.enable_grad():
        inputs = _prepare(inputs, create_graph, need_graph=True)
    is_out_tuple, outputs = _call(func, inputs, "jacobian", strict)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
            "not supported together. Please either set `strict=False` or `vectorize=False`."
        )
    jac = None
    if not (create_graph or strict):
        replay = _replay(inputs, outputs)
        if replay is not None:
            transform = _tf.jacfwd if strategy == "forward-mode" else _tf.jacrev

            def compute():
                blocks = transform(replay, argnums=_all(len(inputs)))(*_arrays(inputs))
                return tuple(_tensors(row) for row in blocks)

            jac = _transformed(compute)
    if jac is None:
        with _grad_mode.enable_grad():
            jac = _graph_jacobian(inputs, outputs, create_graph, strict)
    return _unpack_blocks(jac, is_out_tuple, is_in_tuple, strategy == "forward-mode")


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Hessian of a scalar function ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes tensors, returns a Tensor with a single element.
    inputs : Tensor or tuple of Tensors
    create_graph, strict : bool, optional
        As in :func:`jacobian`.
    vectorize : bool, optional
        As in :func:`jacobian`.
    outer_jacobian_strategy : {"reverse-mode", "forward-mode"}, optional
        The Jacobian of the gradient by reverse mode
        (``jacrev(jacrev(f))``) or forward mode (:func:`tracegrad.hessian`,
        forward-over-reverse; unlike PyTorch, no ``vectorize`` needed).

    Returns
    -------
    Tensor or tuple of tuples of Tensors
        For one input of shape ``I`` a tensor of shape ``I + I``; for a tuple
        ``H[i][j]`` of shape ``I_i + I_j`` (a list of lists with the
        forward-mode outer strategy, as PyTorch returns).  Without
        ``create_graph`` the results never require grad (PyTorch's
        forward-mode outer strategy leaves a ``grad_fn`` on them).

    Raises
    ------
    RuntimeError
        If ``func`` returns a tuple or a tensor with more than one element;
        in strict mode, for a Jacobian or Hessian independent of an input.
    TypeError, AssertionError, NotImplementedError
        As :func:`jacobian`.
    """
    is_in_tuple, tup = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if not (create_graph or strict):
        with _grad_mode.enable_grad():
            prepared = _prepare(tup, False, need_graph=True)
        is_out_tuple, outputs = _call(func, prepared, "hessian", False)
        _check_scalar_output(is_out_tuple, outputs, "hessian")
        replay = _replay(prepared, outputs)
        if replay is not None:
            outer = _tf.jacfwd if outer_jacobian_strategy == "forward-mode" else _tf.jacrev
            n = len(prepared)

            def compute():
                inner = _tf.jacrev(_scalar_fn(replay), argnums=_all(n))
                blocks = outer(inner, argnums=_all(n))(*_arrays(prepared))
                return tuple(_tensors(row) for row in blocks)

            res = _transformed(compute)
            if res is not None:
                return _unpack_blocks(res, is_in_tuple, is_in_tuple,
                                      outer_jacobian_strategy == "forward-mode")

    def single_output(*inp):
        is_tuple, outs = _call(func, inp, "hessian", strict)
        _check_scalar_output(is_tuple, outs, "hessian")
        return outs[0].squeeze()

    def gradient(*inp):
        g = jacobian(single_output, inp, create_graph=True)
        if strict:
            _check_requires_grad(g if isinstance(g, tuple) else (g,), "jacobian")
        return g

    res = jacobian(gradient, tup, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack_blocks(res, is_in_tuple, is_in_tuple)


def _replayed_product(inputs, outputs, v, forward):
    """``H v`` (forward over the gradient) or ``v^T H`` (reverse over it) by the
    transforms, or None when the recording cannot be replayed."""
    replay = _replay(inputs, outputs)
    if replay is None:
        return None
    dtypes = [t._data.dtype for t in inputs]
    vs = (np.ones(inputs[0].shape, dtypes[0]),) if v is None else _arrays(v, dtypes)
    gradient = _tf.grad(_scalar_fn(replay), argnums=_all(len(inputs)))

    def compute():
        if forward:
            return _tensors(_tf.jvp(gradient, _arrays(inputs), vs)[1])
        _, vjp_fun = _tf.vjp(gradient, *_arrays(inputs))
        return _tensors(vjp_fun(vs))

    return _transformed(compute)


def _hessian_product(func, inputs, v, create_graph, strict, fn_name, forward):
    """:func:`hvp` (``forward``: ``H v``) and :func:`vhp` (``v^T H``)."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    with _grad_mode.enable_grad():
        inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _get_v(v, inputs, is_in_tuple, fn_name, create_graph, _V_INPUT)
    is_out_tuple, outputs = _call(func, inputs, fn_name, strict)
    _check_scalar_output(is_out_tuple, outputs, fn_name)
    result = None
    if not (create_graph or strict):
        result = _replayed_product(inputs, outputs, v, forward)
    if result is None:
        with _grad_mode.enable_grad():
            jac = _grad(outputs, inputs, create_graph=True)
        if strict:
            _check_requires_grad(jac, "jacobian")
        if forward:
            result = _backward_trick(jac, inputs, inputs, v, create_graph, strict,
                                     "double_back_trick")
        else:
            with _grad_mode.set_grad_enabled(create_graph or _grad_mode.is_grad_enabled()):
                res = _grad(jac, inputs, v, create_graph=create_graph)
            result = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return _pair(outputs, result, is_out_tuple, is_in_tuple, create_graph)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Hessian product ``v^T H`` of a scalar function at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes tensors, returns a Tensor with a single element.
    inputs : Tensor or tuple of Tensors
    v : Tensor or tuple of Tensors, optional
        Shaped like ``inputs``; may be omitted for a single one-element input.
    create_graph, strict : bool, optional
        As in :func:`vjp`.

    Returns
    -------
    func_output : Tensor
    vhp : Tensor or tuple of Tensors
        Shaped like ``inputs``.

    Raises
    ------
    RuntimeError
        If ``func`` does not return a single one-element Tensor, ``v`` is
        missing or mis-shaped; in strict mode, for a gradient or Hessian
        independent of an input.
    TypeError
        As :func:`vjp`.
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp", forward=False)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Hessian-vector product ``H v`` of a scalar function at ``inputs``.

    Computed in forward-over-reverse mode (:func:`tracegrad.jvp` of
    :func:`tracegrad.grad`) on the replayed recording; with ``create_graph``
    or ``strict``, by PyTorch's double-backward trick on the torch graph.
    Equal to :func:`vhp` (transposed) for twice continuously differentiable
    functions.

    Parameters, Returns and Raises are as in :func:`vhp`.
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp", forward=True)
