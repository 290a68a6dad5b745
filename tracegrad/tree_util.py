"""Pytrees: nested containers of arrays that transforms flatten at their edge.

A pytree is a leaf (anything not registered as a container) or a registered
container of pytrees.  Registered by default: ``tuple``, ``list``, ``dict``
(children in sorted key order), ``collections.OrderedDict`` (insertion
order), ``collections.defaultdict``, namedtuples, and ``None`` (a container
with no children, so ``None`` is never a leaf).  Register your own classes
with :func:`register_pytree_node`.

The names and semantics follow ``jax.tree_util``.
"""
import collections

__all__ = [
    "PyTreeDef",
    "register_pytree_node",
    "register_pytree_node_class",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "all_leaves",
]

_registry = {}


class _Node(collections.namedtuple("_Node", "to_iterable from_iterable")):
    pass


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
    arrays.
    """
    if nodetype in _registry:
        raise ValueError(f"{nodetype!r} is already registered as a pytree node")
    _registry[nodetype] = _Node(flatten_func, unflatten_func)
    return nodetype


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


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda l: (l, None), lambda _, c: list(c))
register_pytree_node(
    dict,
    lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
    lambda keys, c: dict(zip(keys, c)),
)
register_pytree_node(
    collections.OrderedDict,
    lambda d: (tuple(d.values()), tuple(d.keys())),
    lambda keys, c: collections.OrderedDict(zip(keys, c)),
)
register_pytree_node(
    collections.defaultdict,
    lambda d: (tuple(d[k] for k in sorted(d)), (d.default_factory, tuple(sorted(d)))),
    lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c)),
)
register_pytree_node(type(None), lambda n: ((), None), lambda _, c: None)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields") and type(x) is not tuple


def _node_of(x):
    t = type(x)
    node = _registry.get(t)
    if node is None and _is_namedtuple(x):
        node = _Node(lambda nt: (tuple(nt), None), lambda _, c, t=t: t(*c))
    return node


class PyTreeDef:
    """The structure of a pytree (its containers, with leaves elided).

    Attributes
    ----------
    num_leaves : int
    num_nodes : int
    """

    __slots__ = ("kind", "aux", "children", "num_leaves", "num_nodes", "_node")

    def __init__(self, kind, aux, children, node=None):
        self.kind = kind  # None for a leaf, else the container type
        self.aux = aux
        self.children = children
        self._node = node
        if kind is None:
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in children)
            self.num_nodes = 1 + sum(c.num_nodes for c in children)

    def _key(self):
        return (self.kind, _hashable(self.aux), tuple(c._key() for c in self.children))

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def unflatten(self, leaves):
        """Rebuild a pytree of this structure from an iterable of leaves."""
        return tree_unflatten(self, leaves)

    def __repr__(self):
        return f"PyTreeDef({_structure_repr(self)})"


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
    inner = ", ".join(_structure_repr(c) for c in td.children)
    if td.kind is tuple:
        return f"({inner}{',' if len(td.children) == 1 else ''})"
    if td.kind is list:
        return f"[{inner}]"
    if td.kind is dict:
        return "{" + ", ".join(f"{k!r}: {_structure_repr(c)}" for k, c in zip(td.aux, td.children)) + "}"
    return f"{td.kind.__name__}({inner})"


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
    return td._node.from_iterable(td.aux, [_unflatten(c, it) for c in td.children])


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


def all_leaves(iterable):
    """True if every element of ``iterable`` is a leaf.

    Parameters
    ----------
    iterable : iterable
        Objects to test; each is tested itself, not recursed into.

    Returns
    -------
    bool
        False if some element is a registered container (tuple, list, dict,
        namedtuple, ``None``, a registered class); True for an empty
        iterable.
    """
    return all(_node_of(x) is None for x in iterable)


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leafwise: ``f(leaf, *matching leaves of rest)``.

    Parameters
    ----------
    f : callable
        Called once per leaf of ``tree`` with that leaf and the leaves at
        the same position in each tree of ``rest``.
    tree : pytree
    *rest : pytrees
        Each with exactly the structure of ``tree`` (JAX also accepts trees
        that merely have ``tree`` as a prefix; tracegrad does not).
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``; True stops the recursion at ``x``.

    Returns
    -------
    pytree
        The structure of ``tree`` with ``f``'s results as leaves.

    Raises
    ------
    ValueError
        If a tree in ``rest`` does not have the structure of ``tree``.

    Examples
    --------
    >>> from tracegrad.tree_util import tree_map
    >>> tree_map(lambda a, b: a + b, {"x": 1, "y": (2, None)}, {"x": 10, "y": (20, None)})
    {'x': 11, 'y': (22, None)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for r in rest:
        r_leaves, r_def = tree_flatten(r, is_leaf)
        if r_def != treedef:
            raise ValueError(
                f"tree_map: structures differ: {treedef} and {r_def}"
            )
        others.append(r_leaves)
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))

