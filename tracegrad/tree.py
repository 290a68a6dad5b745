"""``tracegrad.tree``: the pytree functions under short names, as ``jax.tree``.

``tracegrad.tree.map`` is :func:`tracegrad.tree_util.tree_map`, ``leaves``
is ``tree_leaves``, and so on; see :mod:`tracegrad.tree_util` for the
semantics (``None`` is a container with no children, dict children in
sorted key order, ``is_leaf`` stops the recursion).

>>> import tracegrad as tg
>>> tg.tree.map(lambda x: 2 * x, {"a": 1, "b": (2, None)})
{'a': 2, 'b': (4, None)}
>>> tg.tree.leaves([1, {"c": 3, "b": 2}])
[1, 2, 3]
"""
from .tree_util import (
    tree_all as all,  # noqa: A004  (jax.tree's name)
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,  # noqa: A004
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)

__all__ = [
    "all",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "structure",
    "transpose",
    "unflatten",
]
