"""Data-parallel gradients and batched sweeps on Dask (``dask.distributed``).

``value_and_grad(loss)(params, data)`` computes ``loss(params, shard)`` and
its gradient on the worker that holds each shard of ``data`` (a Dask
collection) and sums the results in a fixed binary tree in shard order, so
the result is the same bit for bit whatever the scheduling, the number of
workers or the retries after a lost worker.  ``map(fun, inputs)`` runs many
independent evaluations (a sweep of ``grad(f)`` or ``hessian(f)`` over
parameter sets) on the cluster and returns them in order.

Which cluster: the ``client=`` given, else the current ``distributed``
client, else the scheduler at ``TRACEGRAD_SCHEDULER`` (``tcp://host:port``;
``tls://host:port`` with ``security=`` or Dask's ``distributed.comm.tls``
configuration), else an embedded ``LocalCluster`` of one single-threaded
worker process per CPU, listening on 127.0.0.1 only, started once and reused
(:func:`shutdown` closes it; so does the end of the process).

Dask is an optional extra: ``pip install -e ".[distributed]"``.
"""
import functools
import operator
import os
import time

import numpy as np

from .. import _allocator
from ..errors import ConcretizationTypeError
from ..transforms.api import value_and_grad as _value_and_grad
from ..transforms.staging import eval_shape
from ..tree_util import tree_map
from ._cluster import get_client, import_distributed, local_cluster, shutdown
from ._shards import as_shards, check_specs, shard_size, to_arrays

__all__ = ["value_and_grad", "grad", "map", "get_client", "local_cluster", "shutdown"]


# --------------------------------------------------------------------------
# worker side (module-level functions: pickled by reference)


def _raise_with_label(e, label):
    """Raise ``e``'s type with ``label`` in front of its message (``e`` itself,
    with a note naming ``label``, if the type does not take one message)."""
    try:
        new = type(e)(f"{label}: {e}")
    except Exception:
        new = None
    if new is None:
        e.add_note(f"raised in {label}")
        raise e
    raise new from e


#: Dask's worker processes start with ``MALLOC_TRIM_THRESHOLD_=65536`` (its
#: nanny's default), under which tracegrad's import-time malloc tuning
#: stands aside, so glibc returns a gradient's freed temporaries to the system
#: and each call faults in fresh pages.  Under that default (not a user's own
#: setting) the first shard task applies the tuning itself, with the trim
#: threshold capped at a quarter of the worker's memory limit (see
#: :mod:`tracegrad._allocator`; ``TRACEGRAD_MALLOC_TUNING=0`` opts out).
DASK_TRIM_DEFAULT = "65536"
_worker_tuned = False


def _setup_worker():
    """Once per worker process: one kernel thread per task (Dask runs tasks in
    parallel; ``TRACEGRAD_NUM_THREADS`` unless set), and the malloc tuning."""
    global _worker_tuned
    if _worker_tuned:
        return
    _worker_tuned = True
    env = os.environ
    env.setdefault("TRACEGRAD_NUM_THREADS", "1")
    if (env.get("TRACEGRAD_MALLOC_TUNING", "1").strip() == "0" or _allocator.tuned
            or env.get("MALLOC_TRIM_THRESHOLD_") != DASK_TRIM_DEFAULT
            or "MALLOC_MMAP_THRESHOLD_" in env):
        return
    trim = _allocator.TRIM_THRESHOLD
    try:
        from distributed import get_worker  # lazy: optional extra

        limit = get_worker().memory_manager.memory_limit
        if limit:
            trim = min(trim, int(limit) // 4)
    except (ImportError, ValueError, AttributeError):  # not in a worker, or another version
        pass
    _allocator.apply(_allocator.MMAP_THRESHOLD, trim)


def _shard_result(loss, nums, weighted, params_args, shard, label):
    _setup_worker()
    params, args = to_arrays(params_args)
    shard = to_arrays(shard)
    full = (params, shard) + tuple(args)
    try:
        value, g = _value_and_grad(
            lambda *dyn: loss(*_fill(full, nums, dyn)), argnums=tuple(range(len(nums))))(
                *[full[i] for i in nums])
    except Exception as e:
        _raise_with_label(e, label)
    n = shard_size(shard)
    value = np.asarray(value)
    if weighted:  # an empty shard weighs nothing (its mean, 0/0, is NaN)
        value = value * n if n else np.zeros_like(value)
        g = tree_map((lambda x: x * n) if n else np.zeros_like, g)
    return value, g, n


def _fill(full, nums, dyn):
    out = list(full)
    for i, d in zip(nums, dyn):
        out[i] = d
    return out


def _combine(a, b):
    """The sum of two partial results (value, gradient, size): the tree's node."""
    return a[0] + b[0], tree_map(lambda x, y: x + y, a[1], b[1]), a[2] + b[2]


def _tree_sum(parts, combine):
    """Sum ``parts`` pairwise in a fixed binary tree (the order depends only on their number)."""
    while len(parts) > 1:
        pairs = [combine(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
    return parts[0]


def _batches_result(loss, nums, weighted, params_args, batches, label):
    """A bag partition: its batches' results summed in the same kind of tree."""
    batches = list(batches)
    if not batches:
        return None
    parts = [_shard_result(loss, nums, weighted, params_args, b, f"{label}, batch {j}")
             for j, b in enumerate(batches)]
    return _tree_sum(parts, _combine)


def _combine_or_empty(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _combine(a, b)


def _map_call(fun, index, x):
    _setup_worker()
    try:
        return fun(x)
    except Exception as e:
        _raise_with_label(e, f"input {index}")


# --------------------------------------------------------------------------
# client side


def _normalize_argnums(argnums):
    def index(i):
        if isinstance(i, bool):
            raise TypeError
        return operator.index(i)

    single = not isinstance(argnums, (tuple, list))
    try:
        nums = (index(argnums),) if single else tuple(index(i) for i in argnums)
    except TypeError:
        raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}") from None
    if not nums:
        raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
    if any(i < 0 for i in nums):
        raise ValueError(f"argnums {argnums!r}: give non-negative positions of "
                         "loss(params, shard, *args)")
    if 1 in nums:
        raise ValueError("argnums includes 1, the data shard: gradients are summed over shards, "
                         "so they can be taken only in the parameters (0) and the extra "
                         "arguments (2, 3, ...)")
    return single, nums


def _precheck(loss, shards, params, args):
    """Trace ``loss`` abstractly on each distinct known shard spec; refuse failures."""
    seen = set()
    for s in shards:
        if s.spec is None:
            continue
        key = repr(s.spec)
        if key in seen:
            continue
        seen.add(key)
        try:
            out = eval_shape(loss, params, s.spec, *args)
        except ConcretizationTypeError:
            continue  # the loss needs concrete values: it is checked where it runs
        except Exception as e:
            _raise_with_label(e, f"tracegrad.distributed: loss(params, shard) fails on "
                                 f"{s.label} (shape and dtype {s.spec}) before any work ran")
        shape = getattr(out, "shape", None)
        if shape != ():
            raise TypeError(f"tracegrad.distributed: loss must return a scalar; on {s.label} "
                            f"it returns {out}")


def _result(distributed, future, wait, what, timeout=None):
    """``future.result(wait)`` with clear errors (``timeout``: the user's, for the message)."""
    try:
        return future.result(timeout=wait)
    except TimeoutError as e:
        future.cancel()
        raise TimeoutError(f"tracegrad.distributed: {what} did not finish within "
                           f"{wait if timeout is None else timeout} s (pass a larger timeout=, "
                           "or check the workers' logs)") from e
    except distributed.client.FutureCancelledError as e:
        raise _Lost(f"tracegrad.distributed: {what} was cancelled ({e}): the scheduler or the "
                    "client connection was lost, or every worker holding the parameters "
                    "died") from e


class _Lost(RuntimeError):
    """The computation was cancelled by Dask (a lost scheduler, or lost scattered data)."""


#: How many times a gradient whose scattered parameters were lost with their
#: workers is submitted again (the result does not depend on it).
RESUBMISSIONS = 2


def value_and_grad(loss, argnums=0, *, reduce="sum", client=None, timeout=None):
    """Data-parallel ``value_and_grad``: a loss summed (or averaged) over Dask shards.

    Parameters
    ----------
    loss : callable
        ``loss(params, shard, *args) -> scalar``, an ordinary tracegrad-
        differentiable function of one shard (jit inside it is fine).  It and
        the parameters are pickled to the workers: a function of the script
        being run (``__main__``) by value, a function of a module by
        reference, so the workers must be able to import that module.
    argnums : int or tuple of ints, optional
        Positions of ``loss``'s arguments to differentiate: 0 (``params``,
        the default) or the extra arguments 2, 3, ...; never 1 (the shard).
    reduce : {"sum", "mean"}, optional
        ``"sum"``: the value and gradient are the sums over shards.
        ``"mean"``: each shard's are weighted by its length along axis 0 and
        divided by the total, which is the mean over all rows when ``loss``
        returns a shard's mean.
    client : distributed.Client, optional
        See :func:`get_client`.
    timeout : float, optional
        Seconds to wait for the result before a ``TimeoutError``; default:
        no limit.

    Returns
    -------
    callable
        ``(params, data, *args) -> (value, grad)``: ``value`` a 0-d NumPy
        array, ``grad`` shaped as ``params`` (a tuple when ``argnums`` is a
        tuple).  ``data`` is a ``dask.array`` (shards are its blocks along
        axis 0), a tuple or dict of dask arrays chunked alike along axis 0
        (``(X, y)``: shard ``i`` is ``(X_i, y_i)``), a ``dask.bag`` of
        batches, a ``dask.dataframe`` (a partition reaches ``loss`` as
        ``DataFrame.to_numpy()``), or a list of ``dask.delayed`` objects,
        ``distributed.Future`` objects or dask arrays, one per shard.

    Raises
    ------
    ImportError
        If Dask is not installed (``pip install -e ".[distributed]"``).
    TypeError, ValueError
        Before any work runs: for data that is no Dask collection (NumPy
        data would pass through the client), arrays chunked along another
        axis than 0, shards whose trailing shapes or dtypes differ, or a
        shard on which ``loss`` fails to trace (shapes known to Dask).
    Exception
        An exception raised by ``loss`` on a worker, of its own type, with
        the shard's index in front of its message.
    TimeoutError
        If ``timeout`` passes.

    Notes
    -----
    The parameters (and extra arguments) are scattered to every worker once
    per call (``client.scatter(..., broadcast=True)``); each shard's value
    and gradient is computed on the worker holding the shard; partial sums
    combine pairwise in a binary tree fixed by the number of shards, so
    floating-point rounding depends only on the shard order.  A worker lost
    mid-call has its tasks rerun by Dask, with the same result.
    """
    if not callable(loss):
        raise TypeError(f"loss must be callable, got {type(loss).__name__}")
    if reduce not in ("sum", "mean"):
        raise ValueError(f"reduce={reduce!r}: expected 'sum' or 'mean'")
    single, nums = _normalize_argnums(argnums)

    def distributed_value_and_grad(params, data, *args):
        dask, distributed = import_distributed()
        if max(nums) >= 2 + len(args):
            raise ValueError(f"argnums {argnums!r} names argument {max(nums)}, but loss gets "
                             f"{2 + len(args)} (params, shard and {len(args)} extra)")
        shards = as_shards(data)
        check_specs(shards)
        _precheck(loss, shards, params, args)
        c = get_client(client)
        weighted = reduce == "mean"
        deadline = None if timeout is None else time.monotonic() + timeout
        for attempt in range(1 + RESUBMISSIONS):
            (params_args,) = c.scatter([(params, tuple(args))], broadcast=True, hash=False)
            parts = []
            for s in shards:
                task = _batches_result if s.batches else _shard_result
                parts.append(dask.delayed(task, pure=False)(loss, nums, weighted, params_args,
                                                            s.task, s.label))
            root = _tree_sum(parts, dask.delayed(_combine_or_empty, pure=False))
            future = c.compute(root)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                res = _result(distributed, future, left, "the distributed gradient", timeout)
                break
            except _Lost:
                # every worker holding the scattered parameters died (Dask reruns
                # lost tasks, but cannot recreate scattered data): scatter again
                if attempt == RESUBMISSIONS or c.status != "running":
                    raise
            finally:
                params_args.release()
        if res is None:
            raise ValueError("tracegrad.distributed: data holds no batches")
        value, g, n = res
        if weighted and n == 0:
            raise ValueError("tracegrad.distributed: reduce='mean' over data with no rows "
                             "(every shard is empty)")
        if weighted:
            value = value / n
            g = tree_map(lambda x: x / n, g)
        g = g[0] if single else g
        return np.asarray(value), g

    functools.update_wrapper(distributed_value_and_grad, loss, updated=())
    return distributed_value_and_grad


def grad(loss, argnums=0, *, reduce="sum", client=None, timeout=None):
    """The gradient half of :func:`value_and_grad` (same parameters)."""
    vg = value_and_grad(loss, argnums, reduce=reduce, client=client, timeout=timeout)

    def distributed_grad(params, data, *args):
        return vg(params, data, *args)[1]

    functools.update_wrapper(distributed_grad, loss, updated=())
    return distributed_grad


def map(fun, inputs, *, client=None, timeout=None):  # noqa: A001 - the API's name
    """``[fun(x) for x in inputs]`` on the cluster, results in order.

    Parameters
    ----------
    fun : callable
        Any function, typically a transformed one (``tg.grad(f)``,
        ``tg.hessian(f)``, ``tg.jit(...)``); pickled to the workers once.
    inputs : sequence
        One argument per call (a pytree; use a tuple and ``lambda a: f(*a)``
        for several).
    client : distributed.Client, optional
        See :func:`get_client`.
    timeout : float, optional
        Seconds to wait for all results before a ``TimeoutError``.

    Returns
    -------
    list
        ``fun(inputs[i])`` at position ``i``.

    Raises
    ------
    Exception
        The first failing call's exception, of its own type, with ``input i``
        in front of its message.
    TimeoutError
        If ``timeout`` passes.
    """
    if not callable(fun):
        raise TypeError(f"fun must be callable, got {type(fun).__name__}")
    inputs = list(inputs)
    if not inputs:
        return []
    _, distributed = import_distributed()
    c = get_client(client)
    futures = c.map(functools.partial(_map_call, fun), range(len(inputs)), inputs, pure=False)
    deadline = None if timeout is None else time.monotonic() + timeout
    out = []
    try:
        for f in futures:  # in order: the first failing input's exception is raised
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            out.append(_result(distributed, f, left, f"tracegrad.distributed.map's {len(inputs)} "
                                                     "calls", timeout))
    except BaseException:
        c.cancel(futures)
        raise
    return out

