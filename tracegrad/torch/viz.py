"""``tracegrad.torch.viz``: pictures of a tensor's autograd graph (Graphviz DOT).

:func:`make_dot` draws what ``backward`` would walk: the output tensor(s),
the ``grad_fn`` nodes named as PyTorch names them (``MulBackward0``), the
``next_functions`` edges between them, the ``AccumulateGrad`` node of every
leaf that requires grad with the leaf itself (named from ``params``), and on
request the values each node saved for its backward.  It follows the
conventions of the ``torchviz`` package (colours, layout, arguments), so the
pictures look like the ones in PyTorch's autograd tutorials.  The drawing
code is shared with the functional :func:`tracegrad.viz.make_dot`.
"""
import numpy as np

from ..viz import Drawing, op_label, short_text, value_label
from ._autograd import GradFn
from ._tensor import Tensor

__all__ = ["make_dot"]


def _is_tensor(x):
    """A tracegrad tensor, or anything with PyTorch's tensor autograd attributes."""
    return isinstance(x, Tensor) or all(
        hasattr(x, a) for a in ("grad_fn", "requires_grad", "shape"))


def _fn_name(fn):
    """``MulBackward0``; ``AccumulateGrad`` without PyTorch's C++ namespace."""
    name = fn.name() if callable(getattr(fn, "name", None)) else type(fn).__name__
    return name.rsplit("::", 1)[-1]


def _operand_name(i):
    # PyTorch's names for the operands of a node's saved values
    return ("self", "other")[i] if i < 2 else f"arg{i}"


def _recorded_details(node):
    """Attributes and saved values of a node tracegrad recorded."""
    attrs = [(k, short_text(v)) for k, v in (node.params or {}).items()]
    primals = node.primals
    if primals is None:  # released by a backward pass without retain_graph
        return attrs, []
    attrs += [(_operand_name(i), short_text(p)) for i, p in enumerate(primals)
              if not isinstance(p, (Tensor, np.ndarray))]
    meta = node.meta
    # (a saved number is already listed with the attributes)
    saved = [(_operand_name(entry[0]), primals[entry[0]]) for entry in meta.saved
             if isinstance(primals[entry[0]], (Tensor, np.ndarray))]
    if meta.reads_output:
        results = node.ans if node.prim.multiple_results else [node.ans]
        saved += [("result" if len(results) == 1 else f"result{k}", r)
                  for k, r in enumerate(results)]
    return attrs + [(name, "[saved tensor]") for name, _ in saved], saved


def _fn_details(fn):
    """``(attrs, saved)`` of a ``grad_fn``.

    ``attrs`` is a list of ``(name, text)``, ``saved`` of ``(name, value)``
    with ``value`` a tensor or an array.  A custom Function's node shows
    ``ctx.saved_tensors``; a node tracegrad recorded shows the static
    parameters of its primitive, its scalar operands and the values its VJP
    rules read; any other object (a real PyTorch node) shows its
    ``_saved_*`` attributes, as torchviz does.
    """
    if hasattr(type(fn), "saved_tensors"):
        try:
            tensors = fn.saved_tensors
        except RuntimeError:  # already freed
            tensors = ()
        saved = [(f"saved_tensors[{i}]", t) for i, t in enumerate(tensors) if t is not None]
        return [], saved
    node = getattr(fn, "_node", None) if isinstance(fn, GradFn) else None
    if node is not None and node.prim is not None:
        return _recorded_details(node)
    attrs, saved = [], []
    for attr in dir(fn):
        if not attr.startswith("_saved_"):
            continue
        name = attr[len("_saved_"):]
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # freed by backward
            continue
        if _is_tensor(value):
            saved.append((name, value))
            attrs.append((name, "[saved tensor]"))
        elif isinstance(value, tuple) and any(_is_tensor(v) for v in value):
            saved += [(f"{name}[{i}]", v) for i, v in enumerate(value) if _is_tensor(v)]
            attrs.append((name, "[saved tensors]"))
        else:
            attrs.append((name, str(value)))
    return attrs, saved


def _view_base(t):
    """The tensor ``t`` is a view of, or None."""
    is_view = getattr(t, "_is_view", None)
    if callable(is_view):
        return t._base if is_view() else None
    # tracegrad also sets _base for detach() and .data, which do not require grad
    base = getattr(t, "_base", None)
    return base if base is not None and t.requires_grad else None


def _param_names(params):
    """``id(tensor) -> name`` from a dict or an iterable of ``(name, tensor)``."""
    if params is None:
        return {}
    items = params.items() if hasattr(params, "items") else params
    names = {}
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(
                "make_dot: params must map names to tensors, e.g. "
                f"dict(model.named_parameters()); got the entry {item!r}."
            )
        name, value = item
        if not _is_tensor(value):
            raise TypeError(
                f"make_dot: params[{name!r}] is of type {type(value).__name__}, not a tensor; "
                "params maps names to the tensors to label, e.g. "
                "dict(model.named_parameters())."
            )
        names[id(value)] = str(name)
    return names


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """Draw the autograd graph behind ``var`` as Graphviz DOT (torchviz-style).

    Boxes, with arrows in the direction of the forward computation:

    * each output tensor: green, showing its shape;
    * each node of ``grad_fn``'s graph: grey, named as PyTorch names it
      (``grad_fn.name()``: ``MulBackward0``, ``AccumulateGrad``, ...), with
      an arrow from every entry of its ``next_functions`` (repeats kept:
      ``x * x`` has two arrows from ``x``'s ``AccumulateGrad``);
    * each leaf that requires grad: light blue, named from ``params`` and
      showing its shape, with an arrow to its ``AccumulateGrad``;
    * with ``show_saved``, the values each node keeps for its backward:
      orange, named (``self``, ``other``, ``result``, ...) and showing
      their shape, tied to the node by plain lines;
    * an output that is a view of another tensor: a dotted arrow from that
      tensor (drawn dark green if it is not already in the picture).

    Parameters
    ----------
    var : Tensor or tuple or list of Tensor
        The output(s) whose graph is drawn.  Only what they depend on is
        drawn; a tensor without ``grad_fn`` is a lone box.
    params : dict or iterable of (str, Tensor), optional
        Names for tensors, e.g. ``dict(model.named_parameters())`` or
        ``{"x": x, "w": w}``.  Unnamed tensors show only their shape.
    show_attrs : bool, optional
        Add to each node a table of its attributes: the static parameters
        and scalar operands of the recorded operation (``axes: (0,)``,
        ``other: 2.0``), ``[saved tensor]`` for saved values.
    show_saved : bool, optional
        Draw the saved values (see above).  A graph whose saved values were
        freed by ``backward()`` shows none.
    max_attr_chars : int, optional
        Longest attribute text shown with ``show_attrs`` (at least 3).

    Returns
    -------
    graphviz.Digraph or tracegrad.viz.DotGraph
        A ``graphviz.Digraph`` when the ``graphviz`` package is importable:
        ``.source`` is the DOT text, ``.render(format="png")`` (needs the
        ``dot`` program) writes a picture, notebooks display it.  Otherwise
        a :class:`tracegrad.viz.DotGraph` with the same ``.source`` (and
        ``.save()``), whose ``render`` raises ImportError naming
        ``pip install graphviz``.  Node ids (``n0``, ``n1``, ...) follow
        the walk, so equal graphs give equal text.

    Raises
    ------
    TypeError
        If ``var`` is not a tensor or a sequence of tensors, or ``params``
        is not a mapping of names to tensors.

    Notes
    -----
    The attributes and saved values of tracegrad's nodes are tracegrad's:
    the parameters of the primitive a node records and the values its VJP
    rules read.  They agree with PyTorch's ``_saved_*`` fields for many
    one-primitive operations (``MulBackward0`` saves ``self`` and
    ``other``, ``ExpBackward0`` its ``result``) but not for all: a node
    that PyTorch computes as one kernel may be several primitives here,
    and only the last one's values are shown.  The graph structure (names
    and edges) is PyTorch's.

    Examples
    --------
    >>> import tracegrad.torch as torch
    >>> from tracegrad.torch.viz import make_dot
    >>> x = torch.ones(2, requires_grad=True)
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (x + w) * (w + 1)
    >>> dot = make_dot(y, params={"x": x, "w": w})
    >>> print(dot.source)  # doctest: +NORMALIZE_WHITESPACE
    digraph {
        graph [size="12,12"]
        node [align=left fontname=monospace fontsize=10 height=0.2 shape=box style=filled]
        n0 [label="(2,)" fillcolor=darkolivegreen1]
        n1 [label=MulBackward0]
        n2 -> n1
        n3 -> n1
        n2 [label=AddBackward0]
        n4 -> n2
        n5 -> n2
        n4 [label=AccumulateGrad]
        n6 -> n4
        n6 [label="x
    (2,)" fillcolor=lightblue]
        n5 [label=AccumulateGrad]
        n7 -> n5
        n7 [label="w
    (2,)" fillcolor=lightblue]
        n3 [label=AddBackward0]
        n5 -> n3
        n1 -> n0
    }
    """
    outputs = tuple(var) if isinstance(var, (tuple, list)) else (var,)
    for t in outputs:
        if not _is_tensor(t):
            raise TypeError(
                f"make_dot expects a tensor or a tuple of tensors, got {type(t).__name__}."
            )
    names = _param_names(params)

    def key(obj):
        return ("tensor", id(obj)) if _is_tensor(obj) else ("fn", id(obj))

    def describe(obj):
        if _is_tensor(obj):  # a leaf, reached from its AccumulateGrad
            return value_label(names.get(id(obj), ""), obj.shape), "leaf", [], []
        name = _fn_name(obj)
        attrs, saved = _fn_details(obj) if (show_attrs or show_saved) else ([], [])
        inputs = [fn for fn, _ in obj.next_functions if fn is not None]
        if name == "AccumulateGrad" and getattr(obj, "variable", None) is not None:
            inputs.insert(0, obj.variable)
        boxes = [(("saved", id(v)), value_label(n, v.shape), v)
                 for n, v in sorted(saved, key=lambda s: s[0])] if show_saved else []
        return op_label(name, attrs, show_attrs, max_attr_chars), None, inputs, boxes

    drawing = Drawing()
    for out in outputs:
        t, kind, below = out, "output", None
        while t is not None:  # the output, then the tensor it is a view of
            tid, first = drawing.node(key(t), value_label(names.get(id(t), ""), t.shape), kind, t)
            if below is not None:
                drawing.edge(tid, below, style="dotted")
            if not first:
                break
            if t.grad_fn is not None:
                drawing.edge(drawing.walk(t.grad_fn, key, describe), tid)
            t, kind, below = _view_base(t), "base", tid
    return drawing.build()
