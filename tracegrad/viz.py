"""Pictures of computation graphs, as Graphviz DOT.

:func:`make_dot` traces a function with tracegrad's reverse mode (through
:func:`tracegrad.transforms.record_vjp`, reverse mode's entry point for
tools) and draws the graph of primitives it recorded: the inputs (blue),
one box per primitive application, the outputs (green) and, on request,
the values each application keeps for its VJP rules (orange).  ``tracegrad.torch.viz``
draws a tensor's ``grad_fn`` graph with the same look; the drawing code
both use (:class:`DotGraph`, and the node, edge and label helpers) lives
here.

The look follows the conventions of the ``torchviz`` package, which most
pictures of PyTorch's autograd graph are made with: boxes in a monospace
font, light blue for the leaves being differentiated, grey for operations,
orange for saved values, green for outputs, arrows pointing from inputs to
the operations that use them.

Node ids are numbered in the order the graph is walked (``n0``, ``n1``,
...), so the DOT text of a graph is the same on every run.  With the
``graphviz`` Python package importable, drawings are returned as a
``graphviz.Digraph`` (``.source`` is the DOT text; ``.render()`` and the
notebook display need Graphviz's ``dot`` program); without it, as a
:class:`DotGraph` holding the identical text.
"""
import collections
import inspect
import os
import re

import numpy as np

from .core import Tracer
from .transforms import record_vjp
from .tree_util import tree_flatten

__all__ = ["make_dot", "DotGraph"]

#: Attributes every box shares (a small monospace label in a filled box).
NODE_ATTR = {
    "align": "left",
    "fontname": "monospace",
    "fontsize": "10",
    "height": "0.2",
    "shape": "box",
    "style": "filled",
}

#: Fill colours by kind of node; operations keep Graphviz's default (grey).
FILL = {
    "leaf": "lightblue",
    "saved": "orange",
    "output": "darkolivegreen1",
    "base": "darkolivegreen3",
}

_INSTALL_HINT = (
    "Rendering a graph needs the graphviz Python package (pip install graphviz) "
    "and Graphviz's 'dot' program (https://graphviz.org/download/). Without them, "
    ".source holds the DOT text and .save('graph.dot') writes it, for "
    "'dot -Tpng graph.dot -o graph.png'."
)


def _graphviz():
    """The ``graphviz`` module, or None when it is not installed."""
    try:
        # lazy: graphviz is an optional dependency (drawings fall back to DotGraph)
        import graphviz
    except ImportError:
        return None
    return graphviz


class DotGraph:
    """The DOT text of a drawing, returned when ``graphviz`` is not installed.

    It offers the part of ``graphviz.Digraph``'s interface that needs no
    Graphviz: ``.source``, ``str()`` and ``.save()``.  ``render``, ``pipe``
    and ``view`` raise ImportError saying what to install.

    Parameters
    ----------
    source : str
        The DOT text.

    Attributes
    ----------
    source : str
        The DOT text (``digraph { ... }``).
    """

    def __init__(self, source):
        self.source = source

    def __str__(self):
        return self.source

    def __repr__(self):
        lines = self.source.count("\n")
        return f"<DotGraph: {lines} lines of DOT; .source holds the text>"

    def save(self, filename="graph.dot", directory=None):
        """Write the DOT text to a file.

        Parameters
        ----------
        filename : str or os.PathLike, optional
            File name (default ``graph.dot``).
        directory : str or os.PathLike, optional
            Directory to write into (default: ``filename`` as given).

        Returns
        -------
        str
            The path written.
        """
        path = os.fspath(filename) if directory is None else os.path.join(directory, filename)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.source)
        return path

    def render(self, *args, **kwargs):
        """Not available without ``graphviz``.

        Parameters
        ----------
        *args, **kwargs
            ``graphviz.Digraph.render``'s arguments.

        Returns
        -------
        None
            Never returns.

        Raises
        ------
        ImportError
            Always; the message says what to install.
        """
        raise ImportError(_INSTALL_HINT)

    pipe = view = render


# --------------------------------------------------------------------------
# DOT text (written exactly as the graphviz package writes it, so that a
# drawing has the same .source with and without the package)

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}


def _quote(s):
    if _ID.fullmatch(s) and s.lower() not in _KEYWORDS:
        return s
    return '"' + s.replace('"', '\\"') + '"'


def _attr_list(label, attrs):
    items = [] if label is None else [f"label={_quote(label)}"]
    items += [f"{_quote(k)}={_quote(v)}" for k, v in sorted(attrs.items())]
    return f" [{' '.join(items)}]" if items else ""


class Drawing:
    """Collects the boxes and arrows of one picture, then builds it.

    Objects are identified by a hashable ``key`` (usually ``(kind,
    id(obj))``); the object is kept alive until the picture is built so
    that ids are not reused.  Each key gets one node id, in order of first
    mention.
    """

    def __init__(self):
        self._ids = {}
        self._declared = set()
        self._alive = []
        self._statements = []  # ("node", id, label, attrs) or ("edge", tail, head, attrs)

    def id(self, key, obj=None):
        """The node id of ``key`` (assigned on first mention)."""
        nid = self._ids.get(key)
        if nid is None:
            nid = self._ids[key] = f"n{len(self._ids)}"
            if obj is not None:
                self._alive.append(obj)
        return nid

    def node(self, key, label, kind=None, obj=None):
        """Declare the box of ``key``; returns ``(node id, first time?)``."""
        nid = self.id(key, obj)
        if nid in self._declared:
            return nid, False
        self._declared.add(nid)
        attrs = {} if kind is None else {"fillcolor": FILL[kind]}
        self._statements.append(("node", nid, label.replace("\\", "\\\\"), attrs))
        return nid, True

    def edge(self, tail, head, **attrs):
        """An arrow between two node ids."""
        self._statements.append(("edge", tail, head, attrs))

    def walk(self, root, key, describe):
        """Draw ``root`` and everything reachable from it; return root's id.

        ``key(obj)`` identifies an object; ``describe(obj)`` (called once per
        object) returns ``(label, kind, inputs, saved)``: ``inputs`` are the
        objects it is computed from (an arrow from each, in order, repeats
        kept), ``saved`` a list of ``(key, label, value)`` boxes linked to
        it by plain lines.  The walk is iterative (no recursion limit).
        """
        root_id = self.id(key(root), root)
        stack = [root]
        while stack:
            obj = stack.pop()
            k = key(obj)
            if self.id(k, obj) in self._declared:
                continue
            label, kind, inputs, saved = describe(obj)
            nid, _ = self.node(k, label, kind, obj)
            for skey, slabel, value in saved:
                sid, _ = self.node(skey, slabel, "saved", value)
                self.edge(nid, sid, dir="none")
            for inp in inputs:
                self.edge(self.id(key(inp), inp), nid)
            stack.extend(reversed(inputs))
        return root_id

    def source(self):
        """The DOT text of the picture."""
        lines = ["digraph {", f"\tgraph [size={_quote(self._size())}]",
                 f"\tnode{_attr_list(None, NODE_ATTR)}"]
        for st in self._statements:
            if st[0] == "node":
                _, nid, label, attrs = st
                lines.append(f"\t{nid}{_attr_list(label, attrs)}")
            else:
                _, tail, head, attrs = st
                attrs = dict(attrs)
                label = attrs.pop("label", None)
                lines.append(f"\t{tail} -> {head}{_attr_list(label, attrs)}")
        return "\n".join(lines) + "\n}\n"

    def _size(self):
        # grow the page with the graph, as torchviz does (12 inches at least)
        size = max(12.0, 0.15 * len(self._statements))
        return f"{size:g},{size:g}"

    def build(self):
        """A ``graphviz.Digraph`` if ``graphviz`` is importable, else a :class:`DotGraph`."""
        graphviz = _graphviz()
        if graphviz is None:
            return DotGraph(self.source())
        dot = graphviz.Digraph(node_attr=dict(NODE_ATTR), graph_attr={"size": self._size()})
        nohtml = getattr(graphviz, "nohtml", str)  # labels are never HTML-like strings
        for st in self._statements:
            if st[0] == "node":
                _, nid, label, attrs = st
                dot.node(nid, nohtml(label), **attrs)
            else:
                _, tail, head, attrs = st
                dot.edge(tail, head, **attrs)
        return dot


# --------------------------------------------------------------------------
# labels


def shape_text(shape):
    """``(2, 3)``, ``(3,)``, ``()``: a shape as a Python tuple."""
    return str(tuple(int(d) for d in shape))


def value_label(name, shape):
    """A value's box: its name (if any) above its shape."""
    return f"{name}\n{shape_text(shape)}" if name else shape_text(shape)


def op_label(name, attrs=(), show_attrs=False, max_attr_chars=50):
    """An operation's box: its name, and with ``show_attrs`` a table of attributes.

    ``attrs`` is a sequence of ``(name, text)``, shown sorted by name (as
    torchviz lists PyTorch's ``_saved_*`` fields); texts longer than
    ``max_attr_chars`` (at least 3) are cut and end in ``...``.
    """
    if not show_attrs or not attrs:
        return name
    width = max(int(max_attr_chars), 3)
    rows = [(k, v if len(v) <= width else v[: width - 3] + "...") for k, v in sorted(attrs)]
    kw = max(len(k) for k, _ in rows)
    lines = [f"{k.ljust(kw)}: {v}" for k, v in rows]
    rule = "-" * max(len(name), *(len(line) for line in lines))
    return "\n".join([name, rule, *lines])


def short_text(value):
    """A static attribute as short text (NumPy dtypes by name, scalars as numbers)."""
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        return repr(value.item())
    if isinstance(value, np.ndarray):
        return f"array of shape {shape_text(value.shape)}"
    return str(value)


# --------------------------------------------------------------------------
# the functional picture


def _child_keys(td):
    """Path suffixes of a pytree node's children (``['w']``, ``[0]``, ``.field``)."""
    kind, n = td.kind, len(td.children())
    if kind is not None and issubclass(kind, dict):
        keys = td.aux[1] if issubclass(kind, collections.defaultdict) else td.aux
        if isinstance(keys, tuple) and len(keys) == n:
            return [f"[{k!r}]" for k in keys]
    fields = getattr(kind, "_fields", None)
    if isinstance(fields, tuple) and len(fields) == n:
        return [f".{f}" for f in fields]
    return [f"[{i}]" for i in range(n)]


def _leaf_paths(treedef, root):
    """The name of every leaf of a pytree, in flattening order."""
    out = []
    stack = [(treedef, root)]
    while stack:
        td, path = stack.pop()
        if td.kind is None:
            out.append(path)
            continue
        pairs = list(zip(_child_keys(td), td.children()))
        stack.extend((child, path + k) for k, child in reversed(pairs))
    return out


def _arg_names(fun, nargs):
    """Names of the positional arguments, from ``fun``'s signature."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(nargs):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                                   params[i].POSITIONAL_OR_KEYWORD):
            names.append(params[i].name)
            continue
        var = next((p for p in params[:i + 1] if p.kind is p.VAR_POSITIONAL), None)
        if var is not None:
            names.append(f"{var.name}[{i - params.index(var)}]")
        else:
            names.append(f"arg{i}")
    return names


def _shape(x):
    return x.shape if isinstance(x, (np.ndarray, np.generic, Tracer)) else np.shape(x)


def _is_saved_array(x):
    return isinstance(x, (np.ndarray, np.generic, Tracer))


def make_dot(fun, *args, show_attrs=False, show_saved=False, max_attr_chars=50):
    """Draw the primitive graph that reverse mode records for ``fun(*args)``.

    ``fun`` runs once under tracegrad's reverse-mode interpreter (as in
    :func:`tracegrad.vjp`); every primitive applied to a value that depends
    on a floating-point input is drawn as a box named after the primitive
    (``mul``, ``reduce_sum``, ...), with an arrow from each of its traced
    operands.  Inputs are light blue boxes named after ``fun``'s parameters
    (pytree leaves get their path, e.g. ``params['w']``) with their shape;
    outputs are green boxes with their shape.  Only what the outputs depend
    on is drawn.

    Parameters
    ----------
    fun : callable
        Function of ``len(args)`` positional pytree arguments returning an
        array or a pytree of arrays.
    *args : pytrees of arrays or scalars
        Where to evaluate ``fun``.  Floating-point leaves are traced;
        integer and bool leaves are constants.
    show_attrs : bool, optional
        Add to each primitive's box a table of its static parameters
        (``axes``, ``shape``, ...) and non-array operands (``arg1: 2.0``).
    show_saved : bool, optional
        Draw the values each recorded application keeps for its VJP rules,
        as orange boxes tied to it by plain lines: its array operands
        (``arg0``, ``arg1``, ...) and its result (``result``).  One array
        kept by several applications is one box.
    max_attr_chars : int, optional
        Longest attribute text shown with ``show_attrs`` (at least 3);
        longer texts are cut and end in ``...``.

    Returns
    -------
    graphviz.Digraph or DotGraph
        A ``graphviz.Digraph`` when the ``graphviz`` package is importable
        (``.render(format="png")``, notebook display), else a
        :class:`DotGraph`; both have the DOT text as ``.source``, identical
        in both cases.

    Raises
    ------
    TypeError
        If ``fun`` is not callable, or an argument leaf is not numeric or
        is complex.

    See Also
    --------
    tracegrad.torch.viz.make_dot : the same picture of a tensor's ``grad_fn`` graph.

    Examples
    --------
    >>> import numpy as np
    >>> import tracegrad.numpy as tnp
    >>> from tracegrad.viz import make_dot
    >>> def f(x, w):
    ...     return tnp.sum(tnp.sin(x) * w)
    >>> dot = make_dot(f, np.ones(3), np.ones(3))
    >>> print(dot.source)  # doctest: +NORMALIZE_WHITESPACE
    digraph {
        graph [size="12,12"]
        node [align=left fontname=monospace fontsize=10 height=0.2 shape=box style=filled]
        n0 [label="()" fillcolor=darkolivegreen1]
        n1 [label=reduce_sum]
        n2 -> n1
        n2 [label=mul]
        n3 -> n2
        n4 -> n2
        n3 [label=sin]
        n5 -> n3
        n5 [label="x
    (3,)" fillcolor=lightblue]
        n4 [label="w
    (3,)" fillcolor=lightblue]
        n1 -> n0
    }
    """
    names = []
    for name, arg in zip(_arg_names(fun, len(args)), args):
        names += _leaf_paths(tree_flatten(arg)[1], name)
    rec = record_vjp(fun, args, name="make_dot")
    input_names = {id(node): name for node, name in zip(rec.input_nodes, names)
                   if node is not None}
    out_tree = rec.out_tree
    out_names = _leaf_paths(out_tree, "out") if out_tree.kind is not None else [""]

    def describe(node):
        if node.prim is None:
            return value_label(input_names.get(id(node), ""), _shape(node.ans)), "leaf", [], []
        traced = {i for i, _, _ in node.parents}
        attrs = [(k, short_text(v)) for k, v in (node.params or {}).items()]
        attrs += [(f"arg{i}", short_text(p)) for i, p in enumerate(node.primals)
                  if i not in traced and not isinstance(p, (np.ndarray, Tracer))]
        label = op_label(node.prim.name, attrs, show_attrs, max_attr_chars)
        saved = []
        if show_saved:
            kept = [(f"arg{i}", p) for i, p in enumerate(node.primals) if _is_saved_array(p)]
            results = node.ans if node.prim.multiple_results else [node.ans]
            kept += [("result" if len(results) == 1 else f"result{k}", r)
                     for k, r in enumerate(results)]
            saved = [(("saved", id(v)), value_label(n, _shape(v)), v) for n, v in kept]
        return label, None, [parent for _, parent, _ in node.parents], saved

    drawing = Drawing()
    for j, ((primal, node, _), name) in enumerate(zip(rec.outputs, out_names)):
        oid, _ = drawing.node(("output", j), value_label(name, _shape(primal)), "output")
        if node is not None:
            drawing.edge(drawing.walk(node, lambda n: ("node", id(n)), describe), oid)
    return drawing.build()
