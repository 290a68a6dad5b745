"""``tracegrad.tree_util`` and ``tracegrad.tree`` against ``jax.tree_util`` / ``jax.tree``.

Every check runs the same call on both libraries and compares what comes
back: leaves, key paths (as ``keystr`` strings and as key entries), the
structure's ``repr``, ``num_leaves``/``num_nodes``, and rebuilt trees.
"""
import collections
import dataclasses
import functools

import numpy as np
import pytest

import tracegrad as tg
from tracegrad import tree_util as tu

jax = pytest.importorskip("jax")
jtu = jax.tree_util

Point = collections.namedtuple("Point", "x y")


def _trees():
    return [
        1.0,
        None,
        (),
        [],
        {},
        (1,),
        {"b": [1, (2, None)], "a": 3},
        [None, (None,), {"k": None}],
        {"c": Point(4, 5), "d": collections.OrderedDict([("z", 6), ("y", 7)])},
        collections.defaultdict(list, {"q": 1, "p": [2, 3]}),
        {1: "x", 0: ("y", {"w": 2})},
        [Point(Point(1, 2), [3]), ((), [()]), 4],
    ]


TREES = _trees()


def _jkey(k):
    """A JAX key entry as (kind, value), to compare with tracegrad's."""
    for cls, attr in ((jtu.SequenceKey, "idx"), (jtu.DictKey, "key"), (jtu.GetAttrKey, "name"),
                      (jtu.FlattenedIndexKey, "key")):
        if isinstance(k, cls):
            return (cls.__name__, getattr(k, attr))
    raise AssertionError(k)


def _tkey(k):
    for cls, attr in ((tu.SequenceKey, "idx"), (tu.DictKey, "key"), (tu.GetAttrKey, "name"),
                      (tu.FlattenedIndexKey, "key")):
        if isinstance(k, cls):
            return (cls.__name__, getattr(k, attr))
    raise AssertionError(k)


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_structure_and_paths_match_jax(tree):
    leaves, td = tu.tree_flatten(tree)
    jleaves, jtd = jtu.tree_flatten(tree)
    assert leaves == jleaves
    assert (td.num_leaves, td.num_nodes) == (jtd.num_leaves, jtd.num_nodes)
    assert tu.treedef_is_leaf(td) == jtu.treedef_is_leaf(jtd)
    assert len(td.children()) == len(jtd.children())
    assert [repr(c) for c in td.children()] == [repr(c) for c in jtd.children()]
    assert repr(td) == repr(jtd)
    assert tu.tree_unflatten(td, leaves) == tree
    pl, td2 = tu.tree_flatten_with_path(tree)
    jpl, _ = jtu.tree_flatten_with_path(tree)
    assert td2 == td
    assert [tu.keystr(p) for p, _ in pl] == [jtu.keystr(p) for p, _ in jpl]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in pl] == [
        jtu.keystr(p, simple=True, separator="/") for p, _ in jpl]
    assert [[_tkey(k) for k in p] for p, _ in pl] == [[_jkey(k) for k in p] for p, _ in jpl]
    assert [v for _, v in pl] == [v for _, v in jpl]
    assert tu.tree_leaves_with_path(tree) == pl
    assert tg.tree.flatten_with_path(tree)[0] == pl and tg.tree.leaves_with_path(tree) == pl


def test_key_entry_repr_and_str_match_jax():
    pairs = [(tu.SequenceKey(0), jtu.SequenceKey(0)), (tu.DictKey("a"), jtu.DictKey("a")),
             (tu.GetAttrKey("x"), jtu.GetAttrKey("x")),
             (tu.FlattenedIndexKey(1), jtu.FlattenedIndexKey(1))]
    for t, j in pairs:
        assert (repr(t), str(t)) == (repr(j), str(j))
    assert tu.keystr(()) == jtu.keystr(()) == ""
    assert tu.SequenceKey(0) == tu.SequenceKey(0) and hash(tu.DictKey("a")) == hash(tu.DictKey("a"))


def test_treedef_equality_hash_and_methods():
    a = tu.tree_structure([1, {"a": 2}])
    b = tu.tree_structure([3, {"a": 4}])
    assert a == b and hash(a) == hash(b)
    assert a != tu.tree_structure([1, {"b": 2}]) and a != tu.tree_structure((1, {"a": 2}))
    assert a.node_data() == (list, None) and tu.tree_structure(1).node_data() is None
    outer, inner = tu.tree_structure((1, 2)), tu.tree_structure([1, None])
    assert repr(outer.compose(inner)) == repr(
        jtu.tree_structure((1, 2)).compose(jtu.tree_structure([1, None])))
    assert outer.compose(inner).num_leaves == 2
    xs = [{"a": 1}, (2, [3, 4])]
    assert tu.tree_structure([1, (2, 3)]).flatten_up_to(xs) == \
        jtu.tree_structure([1, (2, 3)]).flatten_up_to(xs)
    with pytest.raises(ValueError, match=r"\[1\]"):
        tu.tree_structure([1, (2, 3)]).flatten_up_to([1, 2])
    with pytest.raises(ValueError, match="children"):
        tu.tree_structure([1, 2]).flatten_up_to([1, 2, 3])
    with pytest.raises(ValueError, match="keys"):
        tu.tree_structure({"a": 1}).flatten_up_to({"b": 1})
    assert repr(tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1])])) == repr(
        jtu.treedef_tuple([jtu.tree_structure(1), jtu.tree_structure([1])]))
    assert tu.treedef_children(a) == a.children()
    assert tu.build_tree(tu.tree_structure({"a": 0, "b": [0, 0]}), [1, [2, 3]]) == \
        {"a": 1, "b": [2, 3]}
    with pytest.raises(ValueError, match="children"):
        tu.build_tree(tu.tree_structure([0, 0]), [1])


def test_all_leaves_matches_jax():
    isnone = lambda x: x is None  # noqa: E731
    for xs in ([1, 2], [None], [(1,)], [], [np.ones(2), "s"], [None, 1], [(None,)]):
        assert tu.all_leaves(xs) == jtu.all_leaves(xs)
        assert tu.all_leaves(xs, is_leaf=isnone) == jtu.all_leaves(xs, is_leaf=isnone)


@pytest.mark.parametrize("tree, rest", [
    ([1, 2], [(3, 4), {"x": 5}]),
    ((1, None), (2, None)),
    ({"a": 1, "b": [2]}, {"a": (10, 11), "b": [20]}),
])
def test_tree_map_prefix_semantics_match_jax(tree, rest):
    f = lambda a, b: (a, b)  # noqa: E731
    assert tu.tree_map(f, tree, rest) == jtu.tree_map(f, tree, rest)
    assert tg.tree.map(f, tree, rest) == jax.tree.map(f, tree, rest)
    g = lambda p, a, b: (tu.keystr(p), a, b)  # noqa: E731
    jg = lambda p, a, b: (jtu.keystr(p), a, b)  # noqa: E731
    assert tu.tree_map_with_path(g, tree, rest) == jtu.tree_map_with_path(jg, tree, rest)
    assert tg.tree.map_with_path(g, tree, rest) == jax.tree.map_with_path(jg, tree, rest)


@pytest.mark.parametrize("tree, rest", [([1, 2], [1, 2, 3]), ({"a": 1}, {"b": 1}),
                                        ((1, 2), [1, 2]), ([1, None], [1, 2])])
def test_tree_map_mismatch_raises_like_jax(tree, rest):
    with pytest.raises(ValueError):
        jtu.tree_map(lambda a, b: a, tree, rest)
    with pytest.raises(ValueError, match="key path"):
        tu.tree_map(lambda a, b: a, tree, rest)


def test_is_leaf_and_is_leaf_takes_path():
    tree = [1, None, (2, 3)]
    isnone = lambda x: x is None  # noqa: E731
    assert tu.tree_leaves(tree, is_leaf=isnone) == jtu.tree_leaves(tree, is_leaf=isnone)
    by_path = lambda p, x: len(p) == 1  # noqa: E731
    got = tu.tree_flatten_with_path(tree, is_leaf=by_path, is_leaf_takes_path=True)
    want = jtu.tree_flatten_with_path(tree, is_leaf=by_path, is_leaf_takes_path=True)
    assert [(tu.keystr(p), v) for p, v in got[0]] == [(jtu.keystr(p), v) for p, v in want[0]]
    assert repr(got[1]) == repr(want[1])
    m = tu.tree_map_with_path(lambda p, x: tu.keystr(p), tree, is_leaf=by_path,
                              is_leaf_takes_path=True)
    assert m == ["[0]", "[1]", "[2]"]


def test_reduce_all_transpose_match_jax():
    add = lambda a, b: a + b  # noqa: E731
    for tree in ([1, (2, 3)], {"b": 4, "a": [5]}):
        assert tu.tree_reduce(add, tree) == jtu.tree_reduce(add, tree)
        assert tg.tree.reduce(add, tree, 100) == jax.tree.reduce(add, tree, 100)
    assert tu.tree_reduce(add, [], 5) == 5
    with pytest.raises(TypeError):
        tu.tree_reduce(add, [])
    cat = lambda a, b: a + [b]  # noqa: E731
    assert tu.tree_reduce(cat, {"b": 1, "a": 2}, []) == [2, 1]
    for tree in ([1, (True, 0)], [], [None], [1, None], {"a": True}):
        assert tu.tree_all(tree) == jtu.tree_all(tree) == tg.tree.all(tree)
    cases = [
        ([0, 0], (0, 0), [(1, 2), (3, 4)]),
        ([0, 0], {"a": 0, "b": 0}, [{"a": 1, "b": 2}, {"a": 3, "b": 4}]),
        ({"x": 0}, [0, 0, 0], {"x": [1, 2, 3]}),
    ]
    for outer, inner, tree in cases:
        want = jtu.tree_transpose(jtu.tree_structure(outer), jtu.tree_structure(inner), tree)
        assert tu.tree_transpose(tu.tree_structure(outer), tu.tree_structure(inner), tree) == want
        assert tg.tree.transpose(tu.tree_structure(outer), None, tree) == want
    with pytest.raises(TypeError):
        jtu.tree_transpose(jtu.tree_structure([0, 0]), jtu.tree_structure((0, 0)), [(1, 2), (3,)])
    with pytest.raises(TypeError, match="structure"):
        tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)), [(1, 2), (3,)])


def test_tree_namespace_is_tree_util():
    tree = {"b": [1, (2, None)], "a": 3}
    assert tg.tree.leaves(tree) == tu.tree_leaves(tree) == jax.tree.leaves(tree)
    leaves, td = tg.tree.flatten(tree)
    assert tg.tree.unflatten(td, leaves) == tree
    assert tg.tree.structure(tree) == td
    assert repr(tg.tree.structure(tree)) == repr(jax.tree.structure(tree))
    assert set(tg.tree.__all__) <= set(dir(jax.tree))


# --------------------------------------------------------------------------
# registering classes


class _Pt:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is type(self) and (self.x, self.y) == (other.x, other.y)


class _JPt(_Pt):
    pass


tu.register_pytree_node(_Pt, lambda p: ((p.x, p.y), "aux"), lambda a, c: _Pt(*c))
jtu.register_pytree_node(_JPt, lambda p: ((p.x, p.y), "aux"), lambda a, c: _JPt(*c))


class _Keyed:
    def __init__(self, w, b):
        self.w, self.b = w, b


class _JKeyed(_Keyed):
    pass


tu.register_pytree_with_keys(
    _Keyed, lambda k: ([(tu.GetAttrKey("w"), k.w), (tu.DictKey("bias"), k.b)], None),
    lambda _, c: _Keyed(*c))
jtu.register_pytree_with_keys(
    _JKeyed, lambda k: ([(jtu.GetAttrKey("w"), k.w), (jtu.DictKey("bias"), k.b)], None),
    lambda _, c: _JKeyed(*c))


@tu.register_pytree_with_keys_class
class _KeyedCls:
    def __init__(self, a):
        self.a = a

    def tree_flatten_with_keys(self):
        return [(tu.GetAttrKey("a"), self.a)], None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_registered_node_paths_match_jax():
    t = [_Pt(1, [2])]
    j = [_JPt(1, [2])]
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(t)] == \
        [jtu.keystr(p) for p, _ in jtu.tree_leaves_with_path(j)]
    assert repr(tu.tree_structure(t)) == repr(jtu.tree_structure(j)).replace("_JPt", "_Pt")
    assert tu.tree_map(lambda v: v * 2, t) == [_Pt(2, [4])]
    kt, kj = _Keyed(1.0, [2.0]), _JKeyed(1.0, [2.0])
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(kt)] == \
        [jtu.keystr(p) for p, _ in jtu.tree_leaves_with_path(kj)] == [".w", "['bias'][0]"]
    assert tu.tree_leaves(kt) == [1.0, 2.0]
    m = tu.tree_map(lambda v: v + 1, kt)
    assert (m.w, m.b) == (2.0, [3.0])
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(_KeyedCls(5))] == [".a"]
    assert tu.tree_map(lambda v: -v, _KeyedCls(5)).a == -5
    with pytest.raises(ValueError, match="already registered"):
        tu.register_pytree_node(_Pt, lambda p: ((), None), lambda a, c: None)


def test_grad_through_keyed_node():
    g = tg.grad(lambda k: k.w * k.b[0])(_Keyed(2.0, [3.0]))
    assert (float(g.w), float(g.b[0])) == (3.0, 2.0)


def _dataclass(name):
    return dataclasses.make_dataclass(
        name, [("x", float), ("y", float),
               ("n", int, dataclasses.field(default=3, metadata=dict(static=True)))])


def test_register_dataclass_matches_jax():
    D, JD = _dataclass("D"), _dataclass("D")
    assert tu.register_dataclass(D) is D
    jtu.register_dataclass(JD)
    d, jd = D(1.0, 2.0), JD(1.0, 2.0)
    assert tu.tree_leaves(d) == jtu.tree_leaves(jd)
    assert repr(tu.tree_structure(d)) == repr(jtu.tree_structure(jd))
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(d)] == \
        [jtu.keystr(p) for p, _ in jtu.tree_leaves_with_path(jd)]
    assert tu.tree_map(lambda a: a * 2, d) == D(2.0, 4.0, 3)
    assert tu.tree_structure(D(1.0, 2.0, 4)) != tu.tree_structure(d)  # static field
    g = tg.grad(lambda v: v.x * v.y * v.n)(D(2.0, 5.0))
    assert (float(g.x), float(g.y), g.n) == (15.0, 6.0, 3)

    E = dataclasses.make_dataclass("E", [("x", float), ("n", int)])
    tu.register_dataclass(E, data_fields=["x"], meta_fields=["n"])
    JE = dataclasses.make_dataclass("E", [("x", float), ("n", int)])
    jtu.register_dataclass(JE, data_fields=["x"], meta_fields=["n"])
    assert repr(tu.tree_structure(E(1.0, 5))) == repr(jtu.tree_structure(JE(1.0, 5)))
    F = dataclasses.make_dataclass("F", [("x", float), ("n", int)])
    with pytest.raises(ValueError, match="'n'"):
        tu.register_dataclass(F, data_fields=["x"], meta_fields=[])
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(type("G", (), {}))
    H = dataclasses.make_dataclass("H", [("x", float), ("cache", object, dataclasses.field(default=None))])
    tu.register_dataclass(H, data_fields=["x"], meta_fields=[], drop_fields=["cache"])
    assert tu.tree_map(lambda a: a + 1, H(1.0, cache="c")) == H(2.0)


def test_partial_is_a_pytree_like_jax():
    def f(a, b=0, c=0):
        return a + 2 * b + 3 * c

    p, jp = tu.Partial(f, 1.0, c=2.0), jtu.Partial(f, 1.0, c=2.0)
    assert p(b=1.0) == jp(b=1.0) == 9.0
    assert tu.tree_leaves(p) == jtu.tree_leaves(jp) == [1.0, 2.0]
    assert [tu.keystr(k) for k, _ in tu.tree_leaves_with_path(p)] == \
        [jtu.keystr(k) for k, _ in jtu.tree_leaves_with_path(jp)]
    assert repr(tu.tree_structure(p)) == repr(jtu.tree_structure(jp))
    q = tu.tree_map(lambda v: v * 10, p)
    assert isinstance(q, tu.Partial) and q(b=0.0) == 10.0 + 60.0
    assert tu.tree_structure(p) == tu.tree_structure(q)
    assert tu.tree_structure(p) != tu.tree_structure(tu.Partial(lambda a: a, 1.0, c=2.0))
    # the bound arguments are differentiable through a transform's boundary
    g = tg.grad(lambda part: part(b=1.0))(p)
    assert tu.tree_leaves(g) == [1.0, 3.0]
    # a Partial of a Partial is not merged: the inner one is static
    nested, jnested = tu.Partial(p, 4.0), jtu.Partial(jp, 4.0)
    assert tu.tree_leaves(nested) == jtu.tree_leaves(jnested) == [4.0]
    assert nested() == jnested() == f(1.0, 4.0, 2.0)
    assert isinstance(functools.partial(f, 1), functools.partial)
