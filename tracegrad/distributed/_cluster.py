"""Which Dask cluster runs the work: a given client, the current one, the
scheduler named by ``TRACEGRAD_SCHEDULER``, or an embedded local cluster.

The embedded cluster is a ``distributed.LocalCluster`` of worker processes
with one thread each, as many as the CPUs this process may use, listening on
the loopback interface only (``host="127.0.0.1"``, its HTTP server on 127.0.0.1 too); it starts
on first use, is reused by later calls, and is closed at exit or by
:func:`shutdown`.
"""
import atexit
import os
import threading

__all__ = ["get_client", "shutdown", "import_distributed", "local_cluster"]

#: How long connecting to a scheduler may take before a clear error (seconds).
CONNECT_TIMEOUT = 30

_lock = threading.Lock()
_embedded = None  # (cluster, client) of the embedded cluster, once started
_remote = {}  # address -> client connected through TRACEGRAD_SCHEDULER


def import_distributed():
    """``(dask, distributed)``, or an ImportError naming the extra to install."""
    try:
        import dask  # lazy: Dask is an optional extra
        import distributed  # lazy: distributed is an optional extra
    except ImportError as e:
        raise ImportError(
            "tracegrad.distributed runs on Dask: install it with "
            'pip install -e ".[distributed]" (or pip install "dask[array]" distributed)'
        ) from e
    return dask, distributed


def _cpu_count():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def get_client(client=None, security=None):
    """The ``distributed.Client`` that runs tracegrad's distributed work.

    Parameters
    ----------
    client : distributed.Client, optional
        Used as it is when given.
    security : distributed.Security, optional
        TLS options for connecting to ``TRACEGRAD_SCHEDULER`` (Dask's own;
        a ``tls://`` address without it uses Dask's configuration
        ``distributed.comm.tls.*``).

    Returns
    -------
    distributed.Client
        ``client``; else the current client (``distributed.get_client``, for
        example inside ``with Client(...):``); else one connected to the
        scheduler at ``TRACEGRAD_SCHEDULER`` (``tcp://host:port`` or
        ``tls://host:port``); else the embedded local cluster's.

    Raises
    ------
    ImportError
        If Dask or distributed is not installed.
    OSError
        If the scheduler at ``TRACEGRAD_SCHEDULER`` cannot be reached within
        :data:`CONNECT_TIMEOUT` seconds.
    """
    _, distributed = import_distributed()
    if client is not None:
        if client.status in ("closed", "closing"):
            raise ValueError(f"client={client!r} is closed: pass an open distributed.Client, "
                             "or none to use the current or the embedded one")
        return client
    try:
        return distributed.get_client()
    except ValueError:  # no current client
        pass
    address = os.environ.get("TRACEGRAD_SCHEDULER", "").strip()
    with _lock:
        if address:
            found = _remote.get(address)
            if found is None or found.status in ("closed", "closing"):
                try:
                    found = distributed.Client(address, timeout=CONNECT_TIMEOUT,
                                               security=security, set_as_default=False)
                except (OSError, TimeoutError) as e:
                    raise OSError(
                        f"TRACEGRAD_SCHEDULER={address!r}: no Dask scheduler answered within "
                        f"{CONNECT_TIMEOUT} s ({e}); start one (dask scheduler) or unset the "
                        "variable to use an embedded local cluster") from e
                _remote[address] = found
            return found
        global _embedded
        if _embedded is None or _embedded[1].status in ("closed", "closing"):
            if _embedded is not None:  # its client was closed: close its cluster too
                _embedded[0].close()
            cluster = local_cluster()
            _embedded = (cluster, distributed.Client(cluster, set_as_default=False))
        return _embedded[1]


def local_cluster(n_workers=None, **kwargs):
    """A ``distributed.LocalCluster`` as tracegrad's embedded one: worker processes
    with one thread each, on 127.0.0.1 only, tuned for gradients.

    Parameters
    ----------
    n_workers : int, optional
        Default: the CPUs this process may use.
    **kwargs
        Passed to ``LocalCluster`` (for example ``memory_limit="512MiB"``);
        ``host``, ``threads_per_worker``, ``processes`` and
        ``dashboard_address`` may be overridden.

    Returns
    -------
    distributed.LocalCluster

    Notes
    -----
    The workers start with ``MALLOC_ARENA_MAX=1`` (added to Dask's
    ``distributed.nanny.pre-spawn-environ``): a task runs in a worker
    thread, and glibc's per-thread arenas (64 MiB heaps) returned a
    gradient's large temporaries to the system after every call, so each
    call faulted in fresh pages (about 4,400 faults and 1.5-2x the time of
    one process for a gradient over 1e6 float64 here); with one arena
    and tracegrad's malloc tuning none.  Workers of a cluster you start
    yourself gain the same from that variable in their environment.
    """
    dask, distributed = import_distributed()
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    env.setdefault("MALLOC_ARENA_MAX", 1)
    options = dict(n_workers=_cpu_count() if n_workers is None else n_workers,
                   threads_per_worker=1, processes=True, host="127.0.0.1",
                   dashboard_address="127.0.0.1:0")
    options.update(kwargs)
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
        return distributed.LocalCluster(**options)


def shutdown():
    """Close the embedded local cluster and the clients tracegrad opened (idempotent)."""
    global _embedded
    with _lock:
        embedded, _embedded = _embedded, None
        remotes = list(_remote.values())
        _remote.clear()
    for client in remotes:
        client.close()
    if embedded is not None:
        cluster, client = embedded
        client.close()
        cluster.close()


atexit.register(shutdown)
