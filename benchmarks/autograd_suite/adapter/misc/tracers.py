"""``const_graph``: autograd caches the traced graph of ``fun`` and replays it;
tracegrad has no replayable eager graph, so this calls ``fun`` each time (the
same values, without the caching)."""
import functools


def const_graph(fun, *args, **kwargs):
    partial_fun = functools.partial(fun, *args, **kwargs)

    @functools.wraps(fun)
    def wrapped(*a):
        return partial_fun(*a)

    return wrapped
