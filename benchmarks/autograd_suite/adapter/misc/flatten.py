"""``flatten(value) -> (vector, unflatten)`` over tracegrad pytrees."""
import tracegrad.numpy as tnp
from tracegrad.tree_util import tree_flatten, tree_unflatten


def flatten(value):
    leaves, tree = tree_flatten(value)
    shapes = [tnp.shape(v) for v in leaves]
    sizes = [int(tnp.size(v)) for v in leaves]
    flat = tnp.concatenate([tnp.ravel(v) for v in leaves]) if leaves else tnp.zeros(0)

    def unflatten(vector):
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(tnp.reshape(vector[start:start + size], shape))
            start += size
        return tree_unflatten(tree, parts)

    return flat, unflatten
