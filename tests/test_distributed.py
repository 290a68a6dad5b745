"""``tracegrad.distributed`` on a local Dask cluster of worker processes (loopback only).

Equality with the single-process gradient (sum and mean, pytrees, jit
inside the loss), bit-for-bit determinism across worker counts and against
the fixed tree computed locally, a worker killed mid-gradient, errors for
bad shards and bad arguments, the embedded cluster's loopback-only
addresses, and ``map`` over a sweep.  Every wait is bounded.
"""
import os
import pathlib
import signal
import threading
import time

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
db = pytest.importorskip("dask.bag")

import tracegrad.distributed as tdist  # noqa: E402
from tracegrad.distributed import _cluster  # noqa: E402
from tracegrad.distributed import _tree_sum  # noqa: E402

TIMEOUT = 120  # seconds: every wait of these tests is bounded


@pytest.fixture(scope="module", autouse=True)
def _workers_import_this_module():
    """Dask pickles the losses below by reference (``tests.test_distributed._loss``):
    worker processes, spawned with this process's ``sys.path``, find it from the
    repository's root (pytest's entry point does not put it there)."""
    root = str(pathlib.Path(__file__).resolve().parent.parent)
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(root)
        yield


@pytest.fixture(scope="module")
def client(_workers_import_this_module):
    with tdist.local_cluster(2) as cluster:
        with distributed.Client(cluster, set_as_default=False) as c:
            c.wait_for_workers(2, timeout=TIMEOUT)
            yield c


def _data(n=600, d=4, chunk=75, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ np.arange(1.0, d + 1) + 0.1 * rng.standard_normal(n)
    return X, y, da.from_array(X, chunks=(chunk, d)), da.from_array(y, chunks=chunk)


def _loss(params, shard):
    x, t = shard
    r = tnp.tanh(x @ params["w"]) * params["scale"] + params["b"] - t
    return tnp.mean(r ** 2)


PARAMS = {"w": np.linspace(-0.5, 0.5, 4), "b": np.float64(0.3), "scale": np.float64(2.0)}


def _assert_tree_close(a, b, rtol):
    for k in b:
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=0)


def _assert_tree_equal(a, b):
    for k in b:
        np.testing.assert_array_equal(a[k], b[k])


def test_mean_and_sum_equal_one_process(client):
    X, y, Xd, yd = _data()
    v, g = tdist.value_and_grad(_loss, reduce="mean", client=client, timeout=TIMEOUT)(
        PARAMS, (Xd, yd))
    v0, g0 = tg.value_and_grad(_loss)(PARAMS, (X, y))
    np.testing.assert_allclose(v, v0, rtol=1e-12)
    _assert_tree_close(g, g0, 1e-12)
    # sum: the sum of the per-shard losses (means over 75 rows each)
    vs, gs = tdist.value_and_grad(_loss, client=client, timeout=TIMEOUT)(PARAMS, (Xd, yd))
    blocks = [(X[i:i + 75], y[i:i + 75]) for i in range(0, 600, 75)]
    v1, g1 = tg.value_and_grad(lambda p: sum(_loss(p, b) for b in blocks))(PARAMS)
    np.testing.assert_allclose(vs, v1, rtol=1e-12)
    _assert_tree_close(gs, g1, 1e-12)
    assert isinstance(v, np.ndarray) and v.shape == ()


def test_uneven_shards_mean_weights_by_length(client):
    X, y, _, _ = _data(n=500)
    chunks = (100, 0, 250, 150)  # an empty shard weighs nothing
    Xd, yd = da.from_array(X, chunks=(chunks, (4,))), da.from_array(y, chunks=(chunks,))
    v, g = tdist.value_and_grad(_loss, reduce="mean", client=client, timeout=TIMEOUT)(
        PARAMS, (Xd, yd))
    v0, g0 = tg.value_and_grad(_loss)(PARAMS, (X, y))
    np.testing.assert_allclose(v, v0, rtol=1e-12)
    _assert_tree_close(g, g0, 1e-12)


def test_bits_fixed_by_shard_order_not_by_workers(client):
    X, y, Xd, yd = _data(n=1100, chunk=100)  # 11 shards: an odd tree
    vg = tdist.value_and_grad(_loss, client=client, timeout=TIMEOUT)
    v2, g2 = vg(PARAMS, (Xd, yd))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as one:
            v1, g1 = tdist.value_and_grad(_loss, client=one, timeout=TIMEOUT)(PARAMS, (Xd, yd))
    np.testing.assert_array_equal(v1, v2)
    _assert_tree_equal(g1, g2)
    # the same fixed tree computed in this process, with one BLAS thread as
    # Dask's worker processes have (OPENBLAS_NUM_THREADS=1 and the like): a
    # threaded matrix-vector product may round differently
    threadpoolctl = pytest.importorskip("threadpoolctl")
    parts = []
    with threadpoolctl.threadpool_limits(1):
        for i in range(0, 1100, 100):
            vi, gi = tg.value_and_grad(_loss)(PARAMS, (X[i:i + 100], y[i:i + 100]))
            parts.append((np.asarray(vi), gi))
    v0, g0 = _tree_sum(parts, lambda a, b: (a[0] + b[0], {k: a[1][k] + b[1][k] for k in a[1]}))
    np.testing.assert_array_equal(v2, v0)
    _assert_tree_equal(g2, g0)


def test_jit_inside_the_loss_extra_args_and_argnums(client):
    X, y, Xd, yd = _data()

    @tg.jit
    def loss(w, shard, c):
        x, t = shard
        return tnp.sum((x @ w - t) ** 2) * c

    w = np.ones(4)
    loss(w, (X[:75], y[:75]), 0.5)  # a warm jit cache travels with the function (pickled)
    (gw, gc) = tdist.grad(loss, argnums=(0, 2), client=client, timeout=TIMEOUT)(w, (Xd, yd), 0.5)
    gw0, gc0 = tg.grad(loss, argnums=(0, 2))(w, (X, y), 0.5)
    np.testing.assert_allclose(gw, gw0, rtol=1e-12)
    np.testing.assert_allclose(gc, gc0, rtol=1e-12)


def test_shards_loaded_on_the_workers_from_npy_files(client, tmp_path):
    X, y, _, _ = _data()
    shards = []
    for i in range(4):
        np.save(tmp_path / f"x{i}.npy", X[i * 150:(i + 1) * 150])
        np.save(tmp_path / f"y{i}.npy", y[i * 150:(i + 1) * 150])
        load = dask.delayed(np.load, pure=True)
        shards.append((load(str(tmp_path / f"x{i}.npy")), load(str(tmp_path / f"y{i}.npy"))))
    v, g = tdist.value_and_grad(_loss, reduce="mean", client=client, timeout=TIMEOUT)(
        PARAMS, shards)
    v0, g0 = tg.value_and_grad(_loss)(PARAMS, (X, y))
    np.testing.assert_allclose(v, v0, rtol=1e-12)
    _assert_tree_close(g, g0, 1e-12)


def test_a_bag_of_batches(client):
    X, y, _, _ = _data()
    batches = [(X[i:i + 100], y[i:i + 100]) for i in range(0, 600, 100)]
    bag = db.from_sequence(batches, npartitions=3)
    v, g = tdist.value_and_grad(_loss, reduce="mean", client=client, timeout=TIMEOUT)(PARAMS, bag)
    v0, g0 = tg.value_and_grad(_loss)(PARAMS, (X, y))
    np.testing.assert_allclose(v, v0, rtol=1e-12)
    _assert_tree_close(g, g0, 1e-12)


def _slow_loss(params, shard):
    time.sleep(0.4)  # plain Python while tracing: keeps tasks running for the kill
    return _loss(params, shard)


def test_a_worker_killed_mid_gradient(client):
    X, y, Xd, yd = _data(n=1200, chunk=100)
    vg = tdist.value_and_grad(_slow_loss, client=client, timeout=TIMEOUT)
    t0 = time.perf_counter()
    v_ok, g_ok = vg(PARAMS, (Xd, yd))
    clean = time.perf_counter() - t0
    pids = client.run(os.getpid)
    result = {}

    def run():
        result["out"] = vg(PARAMS, (Xd, yd))

    t0 = time.perf_counter()
    th = threading.Thread(target=run)
    th.start()
    time.sleep(min(1.0, clean / 3))
    os.kill(next(iter(pids.values())), signal.SIGKILL)  # one of the two worker processes
    th.join(TIMEOUT)
    faulty = time.perf_counter() - t0
    assert not th.is_alive(), "the gradient did not finish after a worker was killed"
    v, g = result["out"]
    np.testing.assert_array_equal(v, v_ok)
    _assert_tree_equal(g, g_ok)
    client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny restarts it
    assert faulty < 4 * clean + 10, (faulty, clean)


def test_every_worker_killed_mid_gradient(client):
    # the scattered parameters die with both workers: the call scatters them again
    X, y, Xd, yd = _data(n=400, chunk=100)
    vg = tdist.value_and_grad(_slow_loss, client=client, timeout=TIMEOUT)
    v_ok, g_ok = vg(PARAMS, (Xd, yd))
    pids = list(client.run(os.getpid).values())
    result = {}
    th = threading.Thread(target=lambda: result.setdefault("out", vg(PARAMS, (Xd, yd))))
    th.start()
    time.sleep(0.3)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    th.join(TIMEOUT)
    assert not th.is_alive()
    v, g = result["out"]
    np.testing.assert_array_equal(v, v_ok)
    _assert_tree_equal(g, g_ok)
    client.wait_for_workers(2, timeout=TIMEOUT)


def test_an_exception_in_a_shard_keeps_its_type_and_names_the_shard(client):
    _, y, Xd, yd = _data()

    def loss(params, shard):
        x, t = shard
        if float(t[0]) == y[300]:  # the first row of shard 4
            raise KeyError("no such column")
        return _loss(params, shard)

    with pytest.raises(KeyError, match="shard 4: 'no such column'"):
        tdist.value_and_grad(loss, client=client, timeout=TIMEOUT)(PARAMS, (Xd, yd))


def test_bad_shards_are_refused_before_any_work(client):
    _, _, Xd, yd = _data()
    vg = tdist.value_and_grad(_loss, client=client, timeout=TIMEOUT)
    with pytest.raises(ValueError, match="chunked alike along axis 0"):
        vg(PARAMS, (Xd, yd.rechunk(100)))
    with pytest.raises(ValueError, match=r"also chunked along axis 1.*rechunk\(\{1: -1\}\)"):
        vg(PARAMS, (Xd.rechunk((75, 2)), yd))
    good = (Xd[:75], yd[:75])
    wide = (da.zeros((75, 5), chunks=75), yd[:75])
    with pytest.raises(ValueError, match=r"shard 1 \(leaf 0\) has shape \(75, 5\)"):
        vg(PARAMS, [good, wide])
    ints = (Xd[:75].astype(np.int32), yd[:75])
    with pytest.raises(ValueError, match="dtype int32"):
        vg(PARAMS, [good, ints])
    with pytest.raises(ValueError, match="fails on shard 0 .* before any work ran"):
        vg({**PARAMS, "w": np.ones(3)}, (Xd, yd))
    with pytest.raises(TypeError, match="NumPy data would pass through the client"):
        vg(PARAMS, [(np.ones((3, 4)), np.ones(3))])
    with pytest.raises(TypeError, match="a single delayed object"):
        vg(PARAMS, dask.delayed(np.ones)(3))
    with pytest.raises(TypeError, match="expected a dask.array"):
        vg(PARAMS, np.ones((3, 4)))


def test_argument_errors():
    with pytest.raises(ValueError, match="argnums includes 1, the data shard"):
        tdist.value_and_grad(_loss, argnums=(0, 1))
    with pytest.raises(ValueError, match="reduce='max'"):
        tdist.value_and_grad(_loss, reduce="max")
    with pytest.raises(TypeError, match="loss must be callable"):
        tdist.value_and_grad(3)
    with pytest.raises(TypeError, match="argnums must be an int or a tuple of ints"):
        tdist.value_and_grad(_loss, argnums=True)
    tdist.value_and_grad(_loss, argnums=np.int64(0))  # NumPy integers are ints


def test_a_closed_client_is_a_clear_error(client):
    with distributed.Client(client.scheduler.address, set_as_default=False) as other:
        pass
    with pytest.raises(ValueError, match="is closed: pass an open distributed.Client"):
        tdist.value_and_grad(_loss, client=other)(PARAMS, tuple(_data()[2:]))


def test_timeout_is_a_clear_error(client):
    _, _, Xd, yd = _data(n=150)

    def sleepy(params, shard):
        time.sleep(3)
        return _loss(params, shard)

    with pytest.raises(TimeoutError, match="did not finish within 0.5 s"):
        tdist.value_and_grad(sleepy, client=client, timeout=0.5)(PARAMS, (Xd, yd))


def test_map_over_a_sweep(client):
    def f(p):
        return tnp.sum(tnp.sin(p) * tnp.arange(1.0, 4.0)) + tnp.prod(p)

    sweep = [np.array([0.1, 0.2, 0.3]) * k for k in range(5)]
    got = tdist.map(tg.hessian(f), sweep, client=client, timeout=TIMEOUT)
    for p, h in zip(sweep, got):
        np.testing.assert_allclose(h, tg.hessian(f)(p), rtol=1e-14)
    with pytest.raises(ZeroDivisionError, match="input 2"):
        tdist.map(lambda k: 1 / (k - 2), range(4), client=client, timeout=TIMEOUT)
    assert tdist.map(f, [], client=client) == []


def test_embedded_cluster_listens_on_loopback_only(monkeypatch):
    monkeypatch.delenv("TRACEGRAD_SCHEDULER", raising=False)
    try:
        c = tdist.get_client()
        assert tdist.get_client() is c  # reused
        info = c.scheduler_info()
        assert c.scheduler.address.startswith("tcp://127.0.0.1:")
        assert info["workers"] and all(a.startswith("tcp://127.0.0.1:") for a in info["workers"])
        assert all(w["nthreads"] == 1 for w in info["workers"].values())
        assert set(c.run(lambda: os.environ.get("MALLOC_ARENA_MAX")).values()) == {"1"}
        # every listening socket (scheduler and HTTP servers in this process, the
        # workers and their nannies) is on the loopback interface
        psutil = pytest.importorskip("psutil")
        pids = set(c.run(os.getpid).values())
        procs = [psutil.Process()] + [psutil.Process(p) for p in pids]
        procs += [p.parent() for p in procs[1:]]
        listening = [conn.laddr for p in procs for conn in p.net_connections(kind="inet")
                     if conn.status == psutil.CONN_LISTEN]
        assert listening and all(a.ip == "127.0.0.1" for a in listening), listening
        # with no client= it is used
        _, _, Xd, yd = _data(n=150)
        v, _ = tdist.value_and_grad(_loss, timeout=TIMEOUT)(PARAMS, (Xd, yd))
        assert np.isfinite(v)
    finally:
        tdist.shutdown()
    assert _cluster._embedded is None


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TRACEGRAD_SCHEDULER", "tcp://127.0.0.1:9")  # nothing listens there
    monkeypatch.setattr(_cluster, "CONNECT_TIMEOUT", 2)
    t0 = time.perf_counter()
    with pytest.raises(OSError, match="TRACEGRAD_SCHEDULER='tcp://127.0.0.1:9': no Dask scheduler"):
        tdist.get_client()
    assert time.perf_counter() - t0 < 30


def test_missing_dask_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[distributed\]"'):
        tdist.value_and_grad(_loss)(PARAMS, None)
