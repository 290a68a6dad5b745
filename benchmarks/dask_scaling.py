"""Scaling and overhead of ``tracegrad.distributed.value_and_grad`` on local Dask workers.

    python benchmarks/dask_scaling.py             # 16 shards of 1e6 float64
    python benchmarks/dask_scaling.py --quick     # smoke test
    python benchmarks/dask_scaling.py --markdown  # the README's table

The loss is the ``big`` workload's body with three parameters,
``sum(tanh(a x) sin(b x) + exp(-c x**2))``, summed over 16 shards of 1e6
elements (compute-bound: about 20 ms per shard).  The shards are
generated on the workers from a fixed seed and kept there
(``client.persist``), so each timed call is the gradient alone: scatter the
parameters, 16 shard tasks, the tree reduction, the result back.

Timed in turns (``bench.time_round_robin``), medians: the same 16 shard
gradients in this process one after another with one thread
(``TRACEGRAD_NUM_THREADS=1``, as a worker runs them), the distributed
gradient on a cluster of one worker process, and on one of two.  Reported:
the scaling (one worker's time over two's; issue 12's target at least 1.7)
and the overhead of one worker over this process (target at most 15%).
Both clusters are ``tracegrad.distributed.local_cluster`` s (loopback-only,
single-threaded worker processes), alive side by side (idle workers cost
nothing).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import summarize, time_round_robin  # noqa: E402 - sibling script

import tracegrad as tg  # noqa: E402
import tracegrad.distributed as tdist  # noqa: E402
import tracegrad.numpy as tnp  # noqa: E402


def loss(p, x):
    return tnp.sum(tnp.tanh(p[0] * x) * tnp.sin(p[1] * x) + tnp.exp(-p[2] * x * x))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--shard-size", type=int, default=1_000_000)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds of timing")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.shards, args.shard_size, args.budget, args.rounds = 4, 100_000, 2.0, 3

    import dask.array as da
    from distributed import Client

    p = np.array([1.3, 0.7, 0.4])
    x = da.random.default_rng(0).standard_normal(args.shards * args.shard_size,
                                                 chunks=args.shard_size)
    local_shards = [b.compute() for b in x.to_delayed()]
    clusters, persisted = {}, {}
    try:
        for n in (1, 2):
            cluster = tdist.local_cluster(n)
            client = Client(cluster, set_as_default=False)
            clusters[n] = (cluster, client)
            persisted[n] = client.persist(x)
            client.wait_for_workers(n, timeout=120)

        single = tg.value_and_grad(loss)

        def one_process():
            os.environ["TRACEGRAD_NUM_THREADS"] = "1"
            try:
                parts = [single(p, s) for s in local_shards]
            finally:
                del os.environ["TRACEGRAD_NUM_THREADS"]
            return parts

        def on(n):
            vg = tdist.value_and_grad(loss, client=clusters[n][1], timeout=600)
            return lambda: vg(p, persisted[n])

        fns = {"one process": one_process, "1 worker": on(1), "2 workers": on(2)}
        v1, g1 = fns["1 worker"]()
        v2, g2 = fns["2 workers"]()
        assert np.array_equal(v1, v2) and np.array_equal(g1, g2), "worker count changed the bits"
        samples = time_round_robin(fns, args.rounds, 0.05, args.budget)
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()

    med = {k: summarize(v)[0] for k, v in samples.items()}
    scaling = med["1 worker"] / med["2 workers"]
    overhead = med["1 worker"] / med["one process"] - 1.0
    title = f"{args.shards} shards of {args.shard_size:.0e} float64, gradient in 3 parameters"
    if args.markdown:
        print(f"| {title} | median |")
        print("|---|---|")
        for k in fns:
            print(f"| {k} | {med[k] * 1e3:.1f} ms |")
        print(f"| scaling, 1 worker / 2 workers (target >= 1.7) | {scaling:.2f}x |")
        print(f"| overhead of 1 worker over one process (target <= 15%) | {overhead * 100:.1f}% |")
    else:
        print(title)
        for k in fns:
            print(f"  {k:12s} {med[k] * 1e3:9.1f} ms")
        print(f"  scaling {scaling:.2f}x, overhead {overhead * 100:.1f}%")


if __name__ == "__main__":
    main()
