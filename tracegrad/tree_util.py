"""Pytrees: nested containers of arrays that transforms flatten at their edge.

A pytree is a leaf (anything not registered as a container) or a registered
container of pytrees.  Registered by default: ``tuple``, ``list``, ``dict``
(children in sorted key order), ``collections.OrderedDict`` (insertion
order), ``collections.defaultdict``, namedtuples, :class:`Partial`, and
``None`` (a container with no children, so ``None`` is never a leaf).
Register your own classes with :func:`register_pytree_node`,
:func:`register_pytree_with_keys` or :func:`register_dataclass`.

Every child has a *key* naming where it sits in its container
(:class:`SequenceKey`, :class:`DictKey`, :class:`GetAttrKey`,
:class:`FlattenedIndexKey`); a leaf's *key path* is the tuple of keys from
the root (:func:`tree_flatten_with_path`, :func:`keystr`).

The names and semantics follow ``jax.tree_util``; :mod:`tracegrad.tree`
offers the short names of ``jax.tree``.
"""
import collections
import dataclasses
import functools

__all__ = [
    "PyTreeDef",
    "SequenceKey",
    "DictKey",
    "GetAttrKey",
    "FlattenedIndexKey",
    "Partial",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_dataclass",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_unflatten",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_structure",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_all",
    "tree_transpose",
    "treedef_is_leaf",
    "treedef_children",
    "treedef_tuple",
    "build_tree",
    "keystr",
    "all_leaves",
]

_registry = {}


# --------------------------------------------------------------------------
# key path entries


class SequenceKey(collections.namedtuple("SequenceKey", "idx")):
    """Key of a child of a tuple or list: its position ``idx`` (``str``: ``[0]``)."""

    __slots__ = ()

    def __str__(self):
        return f"[{self.idx!r}]"


class DictKey(collections.namedtuple("DictKey", "key")):
    """Key of a value of a dict, OrderedDict or defaultdict (``str``: ``['a']``)."""

    __slots__ = ()

    def __str__(self):
        return f"[{self.key!r}]"


class GetAttrKey(collections.namedtuple("GetAttrKey", "name")):
    """Key of a namedtuple field or dataclass attribute (``str``: ``.name``)."""

    __slots__ = ()

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(collections.namedtuple("FlattenedIndexKey", "key")):
    """Key of the ``key``-th child of a node registered without keys
    (:func:`register_pytree_node`); ``str``: ``[<flat index 0>]``."""

    __slots__ = ()

    def __str__(self):
        return f"[<flat index {self.key}>]"


def _simple(k):
    if isinstance(k, SequenceKey):
        return str(k.idx)
    if isinstance(k, DictKey):
        return str(k.key)
    if isinstance(k, GetAttrKey):
        return str(k.name)
    if isinstance(k, FlattenedIndexKey):
        return str(k.key)
    return str(k)


def keystr(keys, *, simple=False, separator=""):
    """A key path as a string.

    Parameters
    ----------
    keys : tuple of key entries
        A key path, as returned by :func:`tree_flatten_with_path`.
    simple : bool, optional
        False (default): each entry's ``str`` (``['a'][0].x``); True: the
        bare key, index or name of each entry (``a``, ``0``, ``x``).
    separator : str, optional
        Put between the entries (default none).

    Returns
    -------
    str
        ``""`` for the empty path (the root).

    Examples
    --------
    >>> from tracegrad.tree_util import keystr, tree_leaves_with_path
    >>> [keystr(p) for p, _ in tree_leaves_with_path({"a": [1, 2]})]
    ["['a'][0]", "['a'][1]"]
    >>> keystr(tree_leaves_with_path({"a": [1, 2]})[1][0], simple=True, separator="/")
    'a/1'
    """
    return separator.join(_simple(k) if simple else str(k) for k in keys)


# --------------------------------------------------------------------------
# registration


class _Node(collections.namedtuple("_Node", "to_iterable from_iterable with_keys")):
    pass


def _indexed_keys(flatten_func):
    def with_keys(x):
        children, aux = flatten_func(x)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux

    return with_keys


def _register(nodetype, node):
    if nodetype in _registry:
        raise ValueError(f"{nodetype!r} is already registered as a pytree node")
    _registry[nodetype] = node
    return nodetype


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Register a class as a pytree container.

    Parameters
    ----------
    nodetype : type
        The class to register.
    flatten_func : callable
        ``flatten_func(obj) -> (children, aux_data)``: ``children`` an iterable
        of pytrees, ``aux_data`` hashable static data.
    unflatten_func : callable
        ``unflatten_func(aux_data, children) -> obj``; ``children`` is a list
        with the (possibly transformed) children in ``flatten_func``'s order.

    Returns
    -------
    type
        ``nodetype`` itself.

    Raises
    ------
    ValueError
        If ``nodetype`` is already registered (the built-in containers
        included).

    Notes
    -----
    Registration is by exact type: subclasses of ``nodetype`` are not
    containers unless registered themselves.  ``aux_data`` takes part in
    structure comparisons (it is compared by value, or by ``repr`` when
    unhashable), so it should describe the structure only, never hold
    arrays.  The children's keys in key paths are
    :class:`FlattenedIndexKey` (register with
    :func:`register_pytree_with_keys` to name them).
    """
    return _register(nodetype, _Node(flatten_func, unflatten_func, _indexed_keys(flatten_func)))


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Register a class as a pytree container whose children have keys.

    Parameters
    ----------
    nodetype : type
        The class to register.
    flatten_with_keys : callable
        ``flatten_with_keys(obj) -> (key_children, aux_data)``:
        ``key_children`` an iterable of ``(key, child)`` pairs, the keys any
        hashable objects printed by :func:`keystr` (usually
        :class:`GetAttrKey`, :class:`DictKey` or :class:`SequenceKey`).
    unflatten_func : callable
        ``unflatten_func(aux_data, children) -> obj``.
    flatten_func : callable, optional
        ``flatten_func(obj) -> (children, aux_data)``, a faster flatten
        without keys (used by :func:`tree_flatten`); by default derived from
        ``flatten_with_keys``.  Both must give the same children in the
        same order.

    Returns
    -------
    type
        ``nodetype`` itself.

    Raises
    ------
    ValueError
        If ``nodetype`` is already registered.
    """
    if flatten_func is None:
        def flatten_func(x):
            kc, aux = flatten_with_keys(x)
            return [c for _, c in kc], aux

    def with_keys(x):
        kc, aux = flatten_with_keys(x)
        return list(kc), aux

    return _register(nodetype, _Node(flatten_func, unflatten_func, with_keys))


def register_pytree_node_class(cls):
    """Class decorator registering ``cls`` as a pytree container.

    Parameters
    ----------
    cls : type
        A class with a method ``tree_flatten(self) -> (children, aux_data)``
        and a classmethod ``tree_unflatten(cls, aux_data, children)``, with
        the meanings of :func:`register_pytree_node`'s functions.

    Returns
    -------
    type
        ``cls`` itself, so the function works as a decorator.

    Raises
    ------
    ValueError
        If ``cls`` is already registered.

    Examples
    --------
    >>> import tracegrad as tg
    >>> @tg.tree_util.register_pytree_node_class
    ... class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    ...     def tree_flatten(self):
    ...         return (self.a, self.b), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux_data, children):
    ...         return cls(*children)
    >>> float(tg.grad(lambda p: p.a * p.b)(Pair(2.0, 3.0)).a)
    3.0
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator: :func:`register_pytree_with_keys` from methods.

    Parameters
    ----------
    cls : type
        A class with a method ``tree_flatten_with_keys(self) ->
        (key_children, aux_data)`` and a classmethod ``tree_unflatten(cls,
        aux_data, children)``; a method ``tree_flatten(self)``, if defined,
        is used as the flatten without keys.

    Returns
    -------
    type
        ``cls`` itself.

    Raises
    ------
    ValueError
        If ``cls`` is already registered.
    """
    flat = getattr(cls, "tree_flatten", None)
    register_pytree_with_keys(
        cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
        (lambda x: x.tree_flatten()) if flat is not None else None,
    )
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Register a dataclass (or any class) as a pytree container of its fields.

    Parameters
    ----------
    nodetype : type
        The class; usable as a decorator on a ``@dataclasses.dataclass``.
    data_fields : sequence of str, optional
        The attributes that are children (arrays, pytrees).  With
        ``meta_fields``, required unless ``nodetype`` is a dataclass; for a
        dataclass, by default every ``init`` field not marked
        ``dataclasses.field(metadata=dict(static=True))``.
    meta_fields : sequence of str, optional
        The attributes that are static structure (hashable, part of the
        treedef); for a dataclass, by default the fields marked static.
    drop_fields : sequence of str, optional
        ``init`` fields of a dataclass that are neither (they get their
        defaults when the object is rebuilt).

    Returns
    -------
    type
        ``nodetype`` itself.

    Raises
    ------
    TypeError
        If ``nodetype`` is not a dataclass and the fields are not given.
    ValueError
        If the fields of a dataclass are not exactly its ``init`` fields
        (less ``drop_fields``), or ``nodetype`` is already registered.

    Notes
    -----
    The object is rebuilt by ``nodetype(**fields)``; the children's keys
    are :class:`GetAttrKey` of the field names, in ``data_fields`` order.
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: give both data_fields and meta_fields, or neither "
                f"(for a dataclass); got data_fields={data_fields!r}, meta_fields={meta_fields!r}."
            )
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required when nodetype "
                f"is not a dataclass; got nodetype={nodetype!r}."
            )
        data_fields, meta_fields = [], []
        for f in dataclasses.fields(nodetype):
            if f.init and f.name not in drop_fields:
                (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_fields) | set(meta_fields)
        if init != given:
            raise ValueError(
                "register_dataclass: data_fields and meta_fields must name every dataclass "
                f"field with init=True, and only those; missing {sorted(init - given)}, "
                f"unknown {sorted(given - init)}. Add fields to drop_fields to leave them out."
            )

    def flatten(x):
        return [getattr(x, n) for n in data_fields], tuple(getattr(x, n) for n in meta_fields)

    def with_keys(x):
        return ([(GetAttrKey(n), getattr(x, n)) for n in data_fields],
                tuple(getattr(x, n) for n in meta_fields))

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))

    _register(nodetype, _Node(flatten, unflatten, with_keys))
    return nodetype


def _seq_keys(t):
    return [(SequenceKey(i), c) for i, c in enumerate(t)], None


def _sorted_dict_keys(d):
    keys = sorted(d)
    return [(DictKey(k), d[k]) for k in keys], tuple(keys)


_register(tuple, _Node(lambda t: (t, None), lambda _, c: tuple(c), _seq_keys))
_register(list, _Node(lambda l: (l, None), lambda _, c: list(c), _seq_keys))
_register(dict, _Node(
    lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
    lambda keys, c: dict(zip(keys, c)),
    _sorted_dict_keys,
))
_register(collections.OrderedDict, _Node(
    lambda d: (tuple(d.values()), tuple(d.keys())),
    lambda keys, c: collections.OrderedDict(zip(keys, c)),
    lambda d: ([(DictKey(k), v) for k, v in d.items()], tuple(d.keys())),
))
_register(collections.defaultdict, _Node(
    lambda d: (tuple(d[k] for k in sorted(d)), (d.default_factory, tuple(sorted(d)))),
    lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c)),
    lambda d: (_sorted_dict_keys(d)[0], (d.default_factory, tuple(sorted(d)))),
))
_register(type(None), _Node(lambda n: ((), None), lambda _, c: None, lambda n: ([], None)))


class Partial(functools.partial):
    """``functools.partial`` that is a pytree: the bound arguments are children.

    ``Partial(f, *args, **kwargs)`` calls like ``functools.partial``; as a
    pytree its children are ``args`` (a tuple) and ``kwargs`` (a dict) and
    ``f`` is static structure, so a ``Partial`` can be passed to and
    returned from transformed functions, its bound arrays traced.

    Examples
    --------
    >>> from tracegrad.tree_util import Partial, tree_leaves
    >>> p = Partial(lambda a, b, c=0: a + b + c, 1, c=10)
    >>> p(2), tree_leaves(p)
    (13, [1, 10])

    Notes
    -----
    As in JAX, a ``Partial`` of a ``Partial`` is not merged: the inner one
    becomes the outer one's (static) function, so only the outer one's
    arguments are children.
    """

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            # keep the inner partial whole (functools would merge it)
            inner = func
            func = functools.wraps(inner)(lambda *a, **k: inner(*a, **k))
            func.__wrapped_partial__ = inner
        return super().__new__(cls, func, *args, **kwargs)


_register(Partial, _Node(
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, c: Partial(func, *c[0], **c[1]),
    lambda p: ([(FlattenedIndexKey(0), p.args), (FlattenedIndexKey(1), p.keywords)], p.func),
))


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields") and type(x) is not tuple


def _namedtuple_node(t):
    return _Node(
        lambda nt: (tuple(nt), None),
        lambda _, c, t=t: t(*c),
        lambda nt: ([(GetAttrKey(f), v) for f, v in zip(type(nt)._fields, nt)], None),
    )


def _node_of(x):
    t = type(x)
    node = _registry.get(t)
    if node is None and _is_namedtuple(x):
        node = _namedtuple_node(t)
    return node


# --------------------------------------------------------------------------
# structures


class PyTreeDef:
    """The structure of a pytree (its containers, with leaves elided).

    Compared with ``==`` (same container types, keys and static data) and
    hashable.  Built by :func:`tree_flatten` / :func:`tree_structure`.

    Attributes
    ----------
    num_leaves : int
        Number of leaves.
    num_nodes : int
        Number of nodes, leaves and containers (``None`` included).
    """

    __slots__ = ("kind", "aux", "_children", "num_leaves", "num_nodes", "_node")

    def __init__(self, kind, aux, children, node=None):
        self.kind = kind  # None for a leaf, else the container type
        self.aux = aux
        self._children = children
        self._node = node
        if kind is None:
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in children)
            self.num_nodes = 1 + sum(c.num_nodes for c in children)

    def _key(self):
        return (self.kind, _hashable(self.aux), tuple(c._key() for c in self._children))

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def unflatten(self, leaves):
        """Rebuild a pytree of this structure from an iterable of leaves."""
        return tree_unflatten(self, leaves)

    def children(self):
        """The structures of the root's children, a list (empty for a leaf or ``None``)."""
        return list(self._children)

    def node_data(self):
        """``(container type, static data)`` of the root, or None for a leaf."""
        if self.kind is None:
            return None
        return (self.kind, self.aux)

    def flatten_up_to(self, xs):
        """The subtrees of ``xs`` at this structure's leaves.

        Parameters
        ----------
        xs : pytree
            A tree that has this structure as a prefix.

        Returns
        -------
        list
            One subtree of ``xs`` per leaf of this structure, left to right.

        Raises
        ------
        ValueError
            If ``xs`` does not have this structure as a prefix; the message
            names the key path where they differ.
        """
        out = []
        _up_to(self, xs, out, ())
        return out

    def compose(self, inner):
        """The structure of this tree with every leaf replaced by ``inner``'s structure."""
        return _compose(self, inner)

    def __repr__(self):
        return f"PyTreeDef({_structure_repr(self)})"


def _up_to(td, x, out, path):
    if td.kind is None:
        out.append(x)
        return
    where = keystr(path) or "the root"
    node = _node_of(x)
    if type(x) is not td.kind or node is None:
        raise ValueError(
            f"pytree structure mismatch at key path {where}: expected a "
            f"{td.kind.__name__}, got {type(x).__name__} {x!r}."
        )
    kc, aux = node.with_keys(x)
    if len(kc) != len(td._children):
        raise ValueError(
            f"pytree structure mismatch at key path {where}: a {td.kind.__name__} with "
            f"{len(td._children)} children was expected, got one with {len(kc)}: {x!r}."
        )
    if _hashable(aux) != _hashable(td.aux):
        raise ValueError(
            f"pytree structure mismatch at key path {where}: the {td.kind.__name__}'s "
            f"static data (keys) {aux!r} differ from the expected {td.aux!r}."
        )
    for (k, c), ctd in zip(kc, td._children):
        _up_to(ctd, c, out, path + (k,))


def _compose(td, inner):
    if td.kind is None:
        return inner
    return PyTreeDef(td.kind, td.aux, tuple(_compose(c, inner) for c in td._children), td._node)


def _hashable(aux):
    try:
        hash(aux)
        return aux
    except TypeError:
        return repr(aux)


def _structure_repr(td):
    if td.kind is None:
        return "*"
    if td.kind is type(None):
        return "None"
    inner = ", ".join(_structure_repr(c) for c in td._children)
    if td.kind is tuple:
        return f"({inner}{',' if len(td._children) == 1 else ''})"
    if td.kind is list:
        return f"[{inner}]"
    if td.kind is dict:
        return "{" + ", ".join(f"{k!r}: {_structure_repr(c)}" for k, c in zip(td.aux, td._children)) + "}"
    if issubclass(td.kind, tuple) and hasattr(td.kind, "_fields") and td.kind not in _registry:
        return f"CustomNode(namedtuple[{td.kind.__name__}], [{inner}])"
    return f"CustomNode({td.kind.__name__}[{td.aux}], [{inner}])"


_LEAF = PyTreeDef(None, None, ())


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    node = _node_of(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, aux = node.to_iterable(x)
    return PyTreeDef(
        type(x), aux, tuple(_flatten(c, leaves, is_leaf) for c in children), node
    )


def tree_flatten(tree, is_leaf=None):
    """Flatten a pytree.

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    leaves : list
        The leaves, left to right (dicts in sorted key order).
    treedef : PyTreeDef
        The structure, for :func:`tree_unflatten`.

    Raises
    ------
    TypeError
        If a dict's keys cannot be sorted (mixed ``int`` and ``str`` keys).

    Examples
    --------
    >>> from tracegrad.tree_util import tree_flatten
    >>> tree_flatten({"b": [1, (2, None)], "a": 3})
    ([3, 1, 2], PyTreeDef({'a': *, 'b': [*, (*, None)]}))
    """
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def tree_unflatten(treedef, leaves):
    """Rebuild the pytree described by ``treedef`` from ``leaves``.

    Parameters
    ----------
    treedef : PyTreeDef
        A structure, from :func:`tree_flatten` or :func:`tree_structure`.
    leaves : iterable
        The new leaves, left to right (dicts in sorted key order); any
        objects (they are not inspected).

    Returns
    -------
    pytree
        Containers of the types, keys and auxiliary data recorded in
        ``treedef``, holding ``leaves``.

    Raises
    ------
    ValueError
        If the number of leaves does not match ``treedef.num_leaves``.
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(
            f"Too {'few' if len(leaves) < treedef.num_leaves else 'many'} leaves for "
            f"PyTreeDef; expected {treedef.num_leaves}, got {len(leaves)}."
        )
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(td, it):
    if td.kind is None:
        return next(it)
    return td._node.from_iterable(td.aux, [_unflatten(c, it) for c in td._children])


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree`` as a list.

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    list
        The leaves, left to right (dicts in sorted key order); ``None`` is
        a container, not a leaf, so it contributes nothing.

    Raises
    ------
    TypeError
        If a dict's keys cannot be sorted (mixed ``int`` and ``str`` keys).
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The structure of ``tree``, with the leaves elided.

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    PyTreeDef
        Hashable and comparable with ``==``; rebuild a tree with
        ``treedef.unflatten(leaves)``.

    Raises
    ------
    TypeError
        If a dict's keys cannot be sorted (mixed ``int`` and ``str`` keys).
    """
    return tree_flatten(tree, is_leaf)[1]


def all_leaves(iterable, is_leaf=None):
    """True if every element of ``iterable`` is a leaf.

    Parameters
    ----------
    iterable : iterable
        Objects to test; each is tested itself, not recursed into.
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``: also counts ``x`` as a leaf (as in
        :func:`tree_leaves`).

    Returns
    -------
    bool
        False if some element is a registered container (tuple, list, dict,
        namedtuple, ``None``, a registered class); True for an empty
        iterable.
    """
    if is_leaf is None:
        return all(_node_of(x) is None for x in iterable)
    items = list(iterable)
    flat = tree_leaves(items, is_leaf)
    return len(flat) == len(items) and all(a is b for a, b in zip(flat, items))


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leafwise: ``f(leaf, *matching subtrees of rest)``.

    Parameters
    ----------
    f : callable
        Called once per leaf of ``tree`` with that leaf and the subtrees at
        the same position in each tree of ``rest``.
    tree : pytree
    *rest : pytrees
        Each with ``tree``'s structure as a prefix (where ``tree`` has a
        leaf, ``rest`` may have a whole subtree, passed to ``f`` as it is).
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    pytree
        The structure of ``tree`` with ``f``'s results as leaves.

    Raises
    ------
    ValueError
        If a tree in ``rest`` does not have ``tree``'s structure as a prefix
        (the message names the key path where they differ).

    Examples
    --------
    >>> from tracegrad.tree_util import tree_map
    >>> tree_map(lambda a, b: a + b, {"x": 1, "y": (2, None)}, {"x": 10, "y": (20, None)})
    {'x': 11, 'y': (22, None)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_leaves_up_to(treedef, r, is_leaf) for r in rest]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def _leaves_up_to(treedef, r, is_leaf):
    """``treedef.flatten_up_to(r)``, by one plain flatten when ``r`` has the same structure."""
    r_leaves, r_def = tree_flatten(r, is_leaf)
    return r_leaves if r_def == treedef else treedef.flatten_up_to(r)


# --------------------------------------------------------------------------
# key paths


def _flatten_with_path(x, path, out, is_leaf, takes_path):
    if is_leaf is not None and (is_leaf(path, x) if takes_path else is_leaf(x)):
        out.append((path, x))
        return _LEAF
    node = _node_of(x)
    if node is None:
        out.append((path, x))
        return _LEAF
    kc, aux = node.with_keys(x)
    return PyTreeDef(type(x), aux, tuple(
        _flatten_with_path(c, path + (k,), out, is_leaf, takes_path) for k, c in kc), node)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Flatten a pytree, with the key path of every leaf.

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool`` (or ``is_leaf(path, x)`` with
        ``is_leaf_takes_path=True``); True stops the recursion at ``x``.
    is_leaf_takes_path : bool, optional
        Pass the key path to ``is_leaf`` too.

    Returns
    -------
    path_leaves : list of (tuple, leaf)
        ``(key path, leaf)`` pairs in :func:`tree_flatten`'s order; a key
        path is a tuple of :class:`SequenceKey`, :class:`DictKey`,
        :class:`GetAttrKey`, :class:`FlattenedIndexKey` (or a registered
        class's own keys), ``()`` for a tree that is a single leaf.
    treedef : PyTreeDef

    Raises
    ------
    TypeError
        If a dict's keys cannot be sorted.

    Examples
    --------
    >>> from tracegrad.tree_util import tree_flatten_with_path
    >>> tree_flatten_with_path({"a": [5, 6]})[0]
    [((DictKey(key='a'), SequenceKey(idx=0)), 5), ((DictKey(key='a'), SequenceKey(idx=1)), 6)]
    """
    out = []
    treedef = _flatten_with_path(tree, (), out, is_leaf, is_leaf_takes_path)
    return out, treedef


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """The ``(key path, leaf)`` pairs of ``tree``.

    Parameters
    ----------
    tree : pytree
    is_leaf, is_leaf_takes_path
        As in :func:`tree_flatten_with_path`.

    Returns
    -------
    list of (tuple, leaf)
        :func:`tree_flatten_with_path`'s first result.
    """
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Apply ``f(path, leaf, *matching subtrees of rest)`` leafwise.

    Parameters
    ----------
    f : callable
        Called with the key path of each leaf of ``tree`` (see
        :func:`tree_flatten_with_path`), the leaf, and the subtrees at the
        same position in ``rest``.
    tree : pytree
    *rest : pytrees
        Each with ``tree``'s structure as a prefix.
    is_leaf, is_leaf_takes_path
        As in :func:`tree_flatten_with_path`.

    Returns
    -------
    pytree
        ``tree``'s structure with ``f``'s results as leaves.

    Raises
    ------
    ValueError
        If a tree in ``rest`` does not have ``tree``'s structure as a prefix.

    Examples
    --------
    >>> from tracegrad.tree_util import keystr, tree_map_with_path
    >>> tree_map_with_path(lambda p, x: keystr(p), {"w": [1, 2]})
    {'w': ["['w'][0]", "['w'][1]"]}
    """
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(
        f(pl[0], pl[1], *xs) for pl, *xs in zip(path_leaves, *others))


# --------------------------------------------------------------------------
# reductions and restructuring


_NO_INITIAL = object()


def tree_reduce(function, tree, initializer=_NO_INITIAL, is_leaf=None):
    """Fold ``function`` over the leaves of ``tree``, left to right.

    Parameters
    ----------
    function : callable
        ``function(accumulated, leaf) -> accumulated``.
    tree : pytree
    initializer : optional
        The starting value; without it the first leaf is.
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    object
        ``functools.reduce(function, tree_leaves(tree), initializer)``.

    Raises
    ------
    TypeError
        If ``tree`` has no leaves and no ``initializer`` is given.

    Examples
    --------
    >>> from tracegrad.tree_util import tree_reduce
    >>> tree_reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]})
    6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIAL:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree, *, is_leaf=None):
    """True if every leaf of ``tree`` is truthy (``all(tree_leaves(tree))``; True with no leaves).

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If a leaf is an array of more than one element (its truth value is
        ambiguous), as ``bool(array)`` raises.
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """Swap the outer and inner levels of a tree of trees.

    Parameters
    ----------
    outer_treedef : PyTreeDef
        The structure of the outer level.
    inner_treedef : PyTreeDef or None
        The structure of each inner tree; None: inferred from the first one.
    pytree_to_transpose : pytree
        An ``outer_treedef`` tree whose leaves are ``inner_treedef`` trees.

    Returns
    -------
    pytree
        An ``inner_treedef`` tree whose leaves are ``outer_treedef`` trees.

    Raises
    ------
    TypeError
        If the tree's structure is not ``outer_treedef`` composed with
        ``inner_treedef``.

    Examples
    --------
    >>> from tracegrad.tree_util import tree_structure, tree_transpose
    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    flat, treedef = tree_flatten(pytree_to_transpose)
    expected = outer_treedef.compose(inner_treedef)
    if treedef != expected:
        raise TypeError(
            f"tree_transpose: the tree has structure {treedef}, not the composition of the "
            f"outer and inner structures {expected}."
        )
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    columns = [outer_treedef.unflatten(flat[j * n_in + i] for j in range(n_out))
               for i in range(n_in)]
    return inner_treedef.unflatten(columns)


def treedef_is_leaf(treedef):
    """True if ``treedef`` has a single node.

    Parameters
    ----------
    treedef : PyTreeDef

    Returns
    -------
    bool
        True for a leaf and for a container without children (``None``,
        ``()``, ``{}``), as in JAX.
    """
    return treedef.num_nodes == 1


def treedef_children(treedef):
    """The structures of the root's children.

    Parameters
    ----------
    treedef : PyTreeDef

    Returns
    -------
    list of PyTreeDef
        ``treedef.children()``; empty for a leaf.
    """
    return treedef.children()


def treedef_tuple(treedefs):
    """The structure of a tuple of trees.

    Parameters
    ----------
    treedefs : iterable of PyTreeDef
        The structures of the tuple's entries.

    Returns
    -------
    PyTreeDef
        ``tree_structure(tuple(trees))`` for trees of those structures.
    """
    children = tuple(treedefs)
    return PyTreeDef(tuple, None, children, _registry[tuple])


def build_tree(treedef, xs):
    """Build a tree of ``treedef``'s containers from nested children ``xs``.

    Parameters
    ----------
    treedef : PyTreeDef
    xs : object
        For a leaf of ``treedef``, the leaf itself; for a container, an
        iterable with one entry per child (each built recursively).

    Returns
    -------
    pytree

    Raises
    ------
    ValueError
        If a container's entry has the wrong number of children.

    Examples
    --------
    >>> from tracegrad.tree_util import build_tree, tree_structure
    >>> build_tree(tree_structure({"a": 0, "b": [0, 0]}), [1, [2, 3]])
    {'a': 1, 'b': [2, 3]}
    """
    if treedef.kind is None:
        return xs
    xs = list(xs)
    if len(xs) != len(treedef._children):
        raise ValueError(
            f"build_tree: {treedef} has {len(treedef._children)} children at the root, "
            f"got {len(xs)} entries."
        )
    return treedef._node.from_iterable(
        treedef.aux, [build_tree(c, x) for c, x in zip(treedef._children, xs)])
