"""Graph pictures: ``tracegrad.torch.viz.make_dot`` and ``tracegrad.viz.make_dot``.

The DOT text is parsed back into boxes and arrows and checked against the
graphs it must show (PyTorch's ``grad_fn`` names and ``next_functions``,
leaf names from ``params``, shapes, saved values), the same drawing code run
on real PyTorch tensors must give the identical text (when torch is
installed), and one graph is rendered to PNG when Graphviz is available.
"""
import collections
import re
import shutil

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.torch as torch
import tracegrad.viz
from tracegrad.transforms import record_vjp
from tracegrad.torch.viz import make_dot
from tracegrad.viz import DotGraph
from tracegrad.viz import make_dot as make_dot_fn

# --------------------------------------------------------------------------
# reading DOT text back

_NODE = re.compile(r'(n\d+) \[label=("(?:[^"\\]|\\.)*"|[^ \]]+)(.*)\]', re.S)
_EDGE = re.compile(r"(n\d+) -> (n\d+)(?: \[(.*)\])?", re.S)


def _unquote(s):
    if s.startswith('"'):
        s = s[1:-1]
    return re.sub(r"\\(.)", r"\1", s)


class Graph:
    """Boxes (id -> label, fill colour) and arrows of a DOT text."""

    def __init__(self, source):
        assert source.startswith("digraph {\n") and source.endswith("\n}\n")
        self.nodes, self.fill, self.edges = {}, {}, []
        for st in source[len("digraph {\n\t"):-len("\n}\n")].split("\n\t"):
            if st.startswith(("graph ", "node ")):
                continue
            m = _EDGE.fullmatch(st)
            if m:
                self.edges.append((m.group(1), m.group(2), m.group(3) or ""))
                continue
            m = _NODE.fullmatch(st)
            assert m, f"unparsed DOT statement {st!r}"
            self.nodes[m.group(1)] = _unquote(m.group(2))
            fill = re.search(r"fillcolor=(\w+)", m.group(3))
            self.fill[m.group(1)] = fill.group(1) if fill else None
        for tail, head, _ in self.edges:
            assert tail in self.nodes and head in self.nodes

    def labels(self, fill="any"):
        return sorted(v for k, v in self.nodes.items() if fill == "any" or self.fill[k] == fill)

    def arrows(self, style=""):
        """Multiset of (tail label, head label) for arrows with these attributes."""
        return collections.Counter(
            (self.nodes[t].split("\n")[0], self.nodes[h].split("\n")[0])
            for t, h, attrs in self.edges if attrs == style
        )


def graph_of(dot):
    return Graph(dot.source)


@pytest.fixture
def no_graphviz(monkeypatch):
    """Draw as if the graphviz package were not installed."""
    monkeypatch.setattr(tracegrad.viz, "_graphviz", lambda: None)


# --------------------------------------------------------------------------
# the tutorial graph


def tutorial():
    x = torch.tensor([2.0], requires_grad=True)
    w = torch.tensor([1.0], requires_grad=True)
    y = (x + w) * (w + 1)
    return x, w, y


def test_tutorial_graph_boxes_arrows_and_names():
    assert torch.viz.make_dot is make_dot  # the lazy submodule
    x, w, y = tutorial()
    g = graph_of(make_dot(y, params={"x": x, "w": w}))
    assert g.labels() == sorted([
        "(1,)", "MulBackward0", "AddBackward0", "AddBackward0", "AccumulateGrad",
        "AccumulateGrad", "x\n(1,)", "w\n(1,)",
    ])
    assert g.labels("lightblue") == ["w\n(1,)", "x\n(1,)"]
    assert g.labels("darkolivegreen1") == ["(1,)"]
    assert g.labels(None) == sorted(["MulBackward0", "AddBackward0", "AddBackward0",
                                     "AccumulateGrad", "AccumulateGrad"])
    assert len(g.edges) == 8
    assert g.arrows() == collections.Counter({
        ("x", "AccumulateGrad"): 1, ("w", "AccumulateGrad"): 1,
        ("AccumulateGrad", "AddBackward0"): 3,  # x + w uses both leaves, w + 1 one
        ("AddBackward0", "MulBackward0"): 2, ("MulBackward0", "(1,)"): 1,
    })
    # w's AccumulateGrad feeds both additions: one box, shared
    (acc_w,) = [t for t, h, _ in g.edges if g.nodes[t] == "w\n(1,)"]
    (acc_w,) = [h for t, h, _ in g.edges if t == acc_w]
    assert sum(1 for t, _, _ in g.edges if t == acc_w) == 2
    y.backward()
    assert w.grad.item() == 5.0  # the tutorial's value; drawing changed nothing


def test_graph_is_the_same_after_backward_and_on_every_call():
    x, w, y = tutorial()
    before = make_dot(y, params={"x": x, "w": w}).source
    assert make_dot(y, params={"x": x, "w": w}).source == before
    y.backward()
    assert make_dot(y, params={"x": x, "w": w}).source == before


def test_unnamed_leaves_show_only_their_shape():
    x = torch.ones(2, 2, requires_grad=True)
    out = (3 * (x + 2) ** 2).mean()
    g = graph_of(make_dot(out))
    assert g.labels("lightblue") == ["(2, 2)"]
    assert g.labels("darkolivegreen1") == ["()"]
    assert g.arrows() == collections.Counter({
        ("(2, 2)", "AccumulateGrad"): 1, ("AccumulateGrad", "AddBackward0"): 1,
        ("AddBackward0", "PowBackward0"): 1, ("PowBackward0", "MulBackward0"): 1,
        ("MulBackward0", "MeanBackward0"): 1, ("MeanBackward0", "()"): 1,
    })


def test_module_parameters_named_from_named_parameters():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    loss = model(torch.ones(5, 4)).sum()
    for params in (dict(model.named_parameters()), model.named_parameters()):
        g = graph_of(make_dot(loss, params=params))
        assert g.labels("lightblue") == ["0.bias\n(3,)", "0.weight\n(3, 4)",
                                         "2.bias\n(1,)", "2.weight\n(1, 3)"]
    assert g.arrows()[("ReluBackward0", "AddmmBackward0")] == 1
    assert g.arrows()[("TBackward0", "AddmmBackward0")] == 2


def test_repeated_input_keeps_both_arrows_and_outputs_share_the_graph():
    x = torch.ones(3, requires_grad=True)
    sq = x * x
    g = graph_of(make_dot(sq))
    assert g.arrows()[("AccumulateGrad", "MulBackward0")] == 2
    a, b = sq.sum(), sq.exp()
    g = graph_of(make_dot((a, b), params={"x": x}))
    assert g.labels("darkolivegreen1") == ["()", "(3,)"]
    assert g.labels().count("MulBackward0") == 1  # drawn once, used by both outputs
    assert g.arrows()[("MulBackward0", "SumBackward0")] == 1
    assert g.arrows()[("MulBackward0", "ExpBackward0")] == 1


def test_leaf_and_constant_outputs_are_lone_boxes():
    x = torch.ones(2, requires_grad=True)
    g = graph_of(make_dot(x, params={"x": x}))
    assert g.labels() == ["x\n(2,)"] and g.edges == []
    g = graph_of(make_dot(torch.zeros(4, 1)))
    assert g.labels() == ["(4, 1)"] and g.edges == []


def test_view_output_has_a_dotted_arrow_from_its_base():
    x = torch.ones(2, 3, requires_grad=True)
    h = x * 2
    v = h.view(6)
    g = graph_of(make_dot(v))
    assert g.labels("darkolivegreen1") == ["(6,)"]
    assert g.labels("darkolivegreen3") == ["(2, 3)"]
    assert g.arrows("style=dotted") == collections.Counter({("(2, 3)", "(6,)"): 1})
    assert g.arrows()[("MulBackward0", "(2, 3)")] == 1
    assert g.arrows()[("MulBackward0", "ViewBackward0")] == 1
    # detach() shares storage but is no view in PyTorch's sense
    g = graph_of(make_dot(x.detach()))
    assert g.labels() == ["(2, 3)"] and g.edges == []


def test_show_saved_draws_saved_values_with_names_and_shapes():
    x = torch.ones(3, requires_grad=True)
    w = torch.ones(3, requires_grad=True)
    e = (x * w).exp()
    g = graph_of(make_dot(e, params={"x": x, "w": w}, show_saved=True))
    assert g.labels("orange") == ["other\n(3,)", "result\n(3,)", "self\n(3,)"]
    assert g.arrows("dir=none") == collections.Counter({
        ("MulBackward0", "self"): 1, ("MulBackward0", "other"): 1,
        ("ExpBackward0", "result"): 1,
    })
    e.sum().backward()  # frees the saved values
    g = graph_of(make_dot(e, show_saved=True))
    assert g.labels("orange") == []
    assert g.labels(None) == ["AccumulateGrad", "AccumulateGrad", "ExpBackward0", "MulBackward0"]


def test_show_saved_one_tensor_saved_twice_is_one_box():
    x = torch.ones(3, requires_grad=True)
    g = graph_of(make_dot(x * x, show_saved=True))
    assert len(g.labels("orange")) == 1
    assert g.arrows("dir=none") == collections.Counter({("MulBackward0", "other"): 2})


def test_show_saved_of_a_custom_function_shows_ctx_saved_tensors():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.ones(2, 5, requires_grad=True)
    g = graph_of(make_dot(Square.apply(x), show_saved=True))
    assert "SquareBackward" in g.labels(None)
    assert g.labels("orange") == ["saved_tensors[0]\n(2, 5)"]


def test_show_attrs_table_and_truncation():
    x = torch.ones(2, 3, requires_grad=True)
    s = x.sum(0)
    g = graph_of(make_dot(s, show_attrs=True))
    assert "SumBackward1\n------------\naxes: (0,)" in g.labels(None)
    y = x * 2.5
    g = graph_of(make_dot(y, show_attrs=True))
    label = [v for v in g.labels(None) if v.startswith("MulBackward0")][0]
    # x * 2.5 saves nothing of x (PyTorch's _saved_self is None there too)
    assert label == "MulBackward0\n------------\nother: 2.5"
    r = x.reshape(1, 1, 1, 1, 1, 1, 6)
    g = graph_of(make_dot(r, show_attrs=True, max_attr_chars=10))
    assert "ViewBackward0\n-----------------\nshape: (1, 1, ..." in g.labels(None)
    g = graph_of(make_dot(r, show_attrs=True, max_attr_chars=0))  # at least 3 characters
    assert "ViewBackward0\n-------------\nshape: ..." in g.labels(None)


def test_long_chain_draws_without_recursion():
    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    g = graph_of(make_dot(y))
    assert g.labels().count("MulBackward0") == 3000
    assert len(g.edges) == 3000 + 2


@pytest.mark.parametrize("bad", [[1.0], "x", np.ones(2)])
def test_non_tensor_output_is_a_type_error(bad):
    with pytest.raises(TypeError, match="make_dot expects a tensor or a tuple of tensors"):
        make_dot(bad)


def test_params_that_are_not_tensors_are_a_type_error():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"params\['x'\] is of type ndarray, not a tensor"):
        make_dot(x * 2, params={"x": np.ones(2)})
    with pytest.raises(TypeError, match="params must map names to tensors"):
        make_dot(x * 2, params=[x])


# --------------------------------------------------------------------------
# graphviz objects, the fallback, rendering


def test_with_graphviz_the_result_is_a_digraph_with_the_same_text(monkeypatch):
    graphviz = pytest.importorskip("graphviz")
    x, w, y = tutorial()
    # names needing quotes and escapes, to pin that both writers quote alike
    params = {'x "quoted"': x, "w\\back": w}
    dot = make_dot(y, params=params, show_saved=True, show_attrs=True)
    assert isinstance(dot, graphviz.Digraph)
    monkeypatch.setattr(tracegrad.viz, "_graphviz", lambda: None)
    fallback = make_dot(y, params=params, show_saved=True, show_attrs=True)
    assert isinstance(fallback, DotGraph)
    assert dot.source == fallback.source
    assert 'x \\"quoted\\"' in dot.source and "w\\\\back" in dot.source
    assert Graph(dot.source).labels("lightblue") == ['w\\back\n(1,)', 'x "quoted"\n(1,)']


def test_without_graphviz_source_and_save_work_and_render_says_what_to_install(
        no_graphviz, tmp_path):
    x, w, y = tutorial()
    dot = make_dot(y)
    assert isinstance(dot, DotGraph)
    assert str(dot) == dot.source and dot.source.startswith("digraph {")
    assert "DotGraph" in repr(dot)
    path = dot.save("g.dot", directory=tmp_path)
    assert open(path).read() == dot.source
    for method in (dot.render, dot.pipe, dot.view):
        with pytest.raises(ImportError, match="pip install graphviz"):
            method(format="png")


def test_render_png(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    pytest.importorskip("graphviz")
    x, w, y = tutorial()
    dot = make_dot(y, params={"x": x, "w": w}, show_saved=True, show_attrs=True)
    path = dot.render(filename="tutorial", directory=tmp_path, format="png", cleanup=True)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------
# the same drawing code on real PyTorch gives the same picture


def _programs(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x + w) * (w + 1)
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Tanh(), lib.nn.Linear(3, 1))
    return [
        (y, {"x": x, "w": w}),
        ((3 * (x + 2) ** 2).mean(), None),
        (lib.cat([y, x], 0).exp().sum(), {"x": x}),
        ((x * 2).view(4)[1:].exp().sum(), None),
        ((x * 2).view(4), {"x": x}),
        ((y.sum(), y.max()), None),
        (lib.softmax(x, 1).log().sum(0), None),
        (lib.where(x > 2, x, w).t().matmul(x), None),
        (model(x).pow(2).mean(), dict(model.named_parameters())),
        (x, {"x": x}),
    ]


def test_same_picture_as_for_real_pytorch():
    real = pytest.importorskip("torch")
    for (a, pa), (b, pb) in zip(_programs(real), _programs(torch)):
        assert make_dot(a, pa).source == make_dot(b, pb).source


def test_same_saved_values_as_real_pytorch_for_one_primitive_nodes():
    real = pytest.importorskip("torch")

    def program(lib):
        x = lib.ones(3, requires_grad=True)
        w = lib.full((3,), 2.0, requires_grad=True)
        e = (x * w).exp().tanh()
        return e, {"x": x, "w": w}

    (a, pa), (b, pb) = program(real), program(torch)
    assert make_dot(a, pa, show_saved=True).source == make_dot(b, pb, show_saved=True).source


# --------------------------------------------------------------------------
# the functional picture


def test_functional_graph_of_primitives():
    def f(x, w):
        return tnp.sum(tnp.sin(x) * w)

    g = graph_of(make_dot_fn(f, np.ones(3), np.ones(3)))
    assert g.labels("lightblue") == ["w\n(3,)", "x\n(3,)"]
    assert g.labels("darkolivegreen1") == ["()"]
    assert g.arrows() == collections.Counter({
        ("x", "sin"): 1, ("sin", "mul"): 1, ("w", "mul"): 1,
        ("mul", "reduce_sum"): 1, ("reduce_sum", "()"): 1,
    })


def test_functional_tutorial_graph_same_shape_as_the_torch_one():
    g = graph_of(make_dot_fn(lambda x, w: (x + w) * (w + 1), np.array([2.0]), np.array([1.0])))
    assert g.labels() == sorted(["(1,)", "mul", "add", "add", "x\n(1,)", "w\n(1,)"])
    assert g.arrows() == collections.Counter({
        ("x", "add"): 1, ("w", "add"): 2, ("add", "mul"): 2, ("mul", "(1,)"): 1,
    })


def test_functional_pytree_names_constants_and_unused_inputs():
    def loss(params, xs, n, *rest):
        h = tnp.tanh(xs[0] @ params["w"] + params["b"])
        return {"loss": tnp.mean(h ** 2) * n, "h": h, "const": tnp.ones(2)}

    params = {"w": np.ones((3, 2)), "b": np.zeros(2)}
    xs = [np.ones((4, 3)), np.ones(5)]  # xs[1] is unused
    g = graph_of(make_dot_fn(loss, params, xs, 3, np.ones(7)))
    assert g.labels("lightblue") == ["params['b']\n(2,)", "params['w']\n(3, 2)", "xs[0]\n(4, 3)"]
    assert g.labels("darkolivegreen1") == ["out['const']\n(2,)", "out['h']\n(4, 2)",
                                           "out['loss']\n()"]
    assert g.arrows()[("xs[0]", "matmul")] == 1
    (const,) = [k for k, v in g.nodes.items() if v.startswith("out['const']")]
    assert not any(head == const for _, head, _ in g.edges)  # depends on no input
    assert g.arrows()[("tanh", "out['h']")] == 1


def test_functional_varargs_and_unnamed_callables():
    g = graph_of(make_dot_fn(lambda *xs: xs[0] * xs[1], np.ones(2), np.ones(2)))
    assert g.labels("lightblue") == ["xs[0]\n(2,)", "xs[1]\n(2,)"]
    g = graph_of(make_dot_fn(tnp.multiply, np.ones(2), np.ones(2)))
    assert len(g.labels("lightblue")) == 2


def test_functional_show_attrs_and_saved():
    def f(x):
        return tnp.sum(x * 2.0, axis=0)

    g = graph_of(make_dot_fn(f, np.ones((2, 3)), show_attrs=True, show_saved=True))
    assert "reduce_sum\n----------\naxes: (0,)" in g.labels(None)
    assert "mul\n---------\narg1: 2.0" in g.labels(None)
    # mul keeps x and its result; reduce_sum keeps that same result (one box) and its own
    assert g.labels("orange") == ["arg0\n(2, 3)", "arg0\n(2, 3)", "result\n(3,)"]
    assert len(g.arrows("dir=none")) == 3 and sum(g.arrows("dir=none").values()) == 4


def test_functional_long_chain_and_errors():
    def chain(x):
        for _ in range(3000):
            x = tnp.sin(x)
        return x

    g = graph_of(make_dot_fn(chain, 1.0))
    assert g.labels().count("sin") == 3000
    with pytest.raises(TypeError, match="make_dot requires a callable"):
        make_dot_fn(np.ones(2))
    with pytest.raises(ZeroDivisionError):
        make_dot_fn(lambda x: 1 / 0, 1.0)  # the trace is closed again (conftest checks)


def test_record_vjp_is_the_graph_reverse_mode_differentiates():
    """``make_dot`` reads the graph through ``record_vjp``, the entry point
    ``vjp`` is built on: the nodes it returns are the ones ``vjp`` pulls
    cotangents back through."""
    x, n = np.array([1.0, 2.0]), np.array(3)

    def f(x, n):
        return (tnp.sin(x) * n, tnp.ones(1)), {"x": x}

    rec = record_vjp(f, (x, n), has_aux=True, name="make_dot")
    node_x, node_n = rec.input_nodes
    assert node_n is None  # an integer leaf is a constant
    assert node_x.prim is None and node_x.ans is rec.inputs[0]
    (y, mul, k), (c, const, _) = rec.outputs
    assert const is None and np.array_equal(c, np.ones(1))
    assert mul.prim.name == "mul" and k == 0 and mul.ans is y
    ((i, sin, _),) = mul.parents  # n is not traced: one parent
    assert i == 0 and sin.prim.name == "sin" and sin.parents == ((0, node_x, 0),)
    assert rec.aux["x"] is x  # aux stripped of the run's tracers
    assert tg.tree_util.tree_unflatten(rec.out_tree, ["a", "b"]) == ("a", "b")
    out, pull = tg.vjp(lambda x: f(x, n)[0][0], x)
    np.testing.assert_array_equal(out, y)
    np.testing.assert_allclose(pull(np.ones(2))[0], np.cos(x) * 3)
    with pytest.raises(TypeError, match="make_dot requires a callable"):
        record_vjp(x, (x,), name="make_dot")
    with pytest.raises(TypeError, match="make_dot with has_aux=True requires"):
        record_vjp(lambda x: x, (x,), has_aux=True, name="make_dot")


def test_functional_result_type_follows_graphviz(no_graphviz):
    dot = make_dot_fn(lambda x: x * x, np.ones(2))
    assert isinstance(dot, DotGraph)
    with pytest.raises(ImportError, match="pip install graphviz"):
        dot.render()
