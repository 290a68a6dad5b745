"""Fit multinomial logistic regression on a data set larger than a worker's memory, on Dask.

The data: the UCI handwritten digits that ship with scikit-learn (1,797
8x8 images), the training split augmented into ``--rows`` noisy copies
(each row a randomly chosen training image plus Gaussian pixel noise,
float32, from a fixed seed), written as ``.npy`` shards of ``--shard-rows``
rows by the workers themselves.  The default, 16,000,000 rows, is 4.1 GB
of features: four times the 1 GiB memory limit of each of the two local
workers (a worker process holds about 250 MB of its own: Python, NumPy,
Numba, Dask).  The model: 64 pixels -> 10 logits, softmax cross-entropy plus an
L2 penalty, fitted by gradient descent with momentum.  Each step's loss and
gradient come from ``tracegrad.distributed.value_and_grad(reduce="mean")``:
every shard is loaded and differentiated on a worker, and only gradients
(650 numbers) travel.  The script prints the loss per step and the accuracy
on the held-out test images, and exits with status 1 below 0.90.

    pip install -e ".[examples,distributed]" && python examples/distributed_fit.py

``--check`` runs a small version (20,000 rows) twice, distributed and as
one process (``tracegrad.value_and_grad`` over the concatenated data), and
exits with status 1 unless every step's loss agrees to 1e-12 relative.
``--scheduler tcp://host:port`` uses a running Dask scheduler instead of
the local cluster (its workers must see ``--data-dir``).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import tracegrad as tg
import tracegrad.distributed as tdist
import tracegrad.nn as tnn
import tracegrad.numpy as tnp
from tracegrad.tree_util import tree_map

try:
    import dask
    from distributed import Client
except ImportError:
    sys.exit('This example needs Dask: pip install -e ".[distributed]"')
try:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from tqdm import tqdm
except ImportError:
    sys.exit('This example needs scikit-learn and tqdm: pip install -e ".[examples]"')

TARGET_ACCURACY = 0.90
L2 = 1e-4
NOISE = 0.25


def digits(seed=0):
    """``(x_train, x_test, y_train, y_test)``: pixels scaled to [0, 1], float32."""
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    return train_test_split(x, d.target, test_size=0.25, random_state=seed, stratify=d.target)


def write_shard(path_x, path_y, x_train, y_train, rows, seed):
    """Shard ``seed``: ``rows`` noisy copies of training images, written to ``.npy`` files."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x_train), rows)
    x = x_train[idx] + rng.normal(0.0, NOISE, (rows, x_train.shape[1])).astype(np.float32)
    np.save(path_x, x)
    np.save(path_y, y_train[idx].astype(np.int64))
    return rows


def make_shards(client, data_dir, x_train, y_train, rows, shard_rows):
    """Write the shards on the workers (skipping those already there); return the
    list of ``(dask.delayed(np.load)(x), dask.delayed(np.load)(y))`` shards."""
    sizes = [min(shard_rows, rows - s) for s in range(0, rows, shard_rows)]
    tag = f"{rows}-{shard_rows}"
    paths = [(os.path.join(data_dir, f"x-{tag}-{i:04d}.npy"),
              os.path.join(data_dir, f"y-{tag}-{i:04d}.npy")) for i in range(len(sizes))]
    todo = [i for i, (px, py) in enumerate(paths)
            if not (os.path.exists(px) and os.path.exists(py))]
    if todo:
        xt, yt = client.scatter([x_train, y_train], broadcast=True)
        futures = [client.submit(write_shard, *paths[i], xt, yt, sizes[i], 1000 + i, pure=False)
                   for i in todo]
        for f in tqdm(futures, desc="writing shards", unit="shard"):
            f.result()
    load = dask.delayed(np.load, pure=True)
    return [(load(px), load(py)) for px, py in paths]


def loss(params, shard):
    """Mean softmax cross-entropy of one shard (in float64) plus the L2 penalty."""
    x, y = shard
    logits = tnp.asarray(x, np.float64) @ params["w"] + params["b"]
    logp = tnn.log_softmax(logits, axis=-1)
    nll = -tnp.mean(tnp.take_along_axis(logp, y[:, None], axis=1))
    return nll + L2 * tnp.sum(params["w"] ** 2)


def fit(value_and_grad, data, steps, lr=0.5, momentum=0.9, progress=True):
    params = {"w": np.zeros((64, 10)), "b": np.zeros(10)}
    velocity = tree_map(np.zeros_like, params)
    losses = []
    bar = tqdm(range(steps), desc="fitting", unit="step", disable=not progress)
    for step in bar:
        value, g = value_and_grad(params, data)
        losses.append(float(value))
        velocity = tree_map(lambda v, gi: momentum * v - lr * gi, velocity, g)
        params = tree_map(lambda p, v: p + v, params, velocity)
        bar.write(f"step {step:3d}  loss {float(value):.12f}")
    return params, losses


def accuracy(params, x, y):
    pred = np.argmax(np.asarray(x, np.float64) @ params["w"] + params["b"], axis=1)
    return float(np.mean(pred == y))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=16_000_000)
    ap.add_argument("--shard-rows", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GiB", help="per local worker")
    ap.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(), "tracegrad-digits"))
    ap.add_argument("--scheduler", default=None, help="tcp://host:port of a running scheduler")
    ap.add_argument("--check", action="store_true",
                    help="20,000 rows, distributed and in one process: losses agree to 1e-12")
    args = ap.parse_args()
    if args.check:
        args.rows, args.shard_rows, args.steps = 20_000, 2_500, 8
    os.makedirs(args.data_dir, exist_ok=True)
    x_train, x_test, y_train, y_test = digits()

    if args.scheduler:
        cluster, client = None, Client(args.scheduler, timeout=30)
    else:
        cluster = tdist.local_cluster(args.workers, memory_limit=args.memory_limit)
        client = Client(cluster)
    try:
        gb = args.rows * 64 * 4 / 1e9
        print(f"{args.rows:,} rows ({gb:.2f} GB of float32 features) in shards of "
              f"{args.shard_rows:,} rows, on {len(client.scheduler_info()['workers'])} workers "
              f"(memory limit {args.memory_limit} each)")
        shards = make_shards(client, args.data_dir, x_train, y_train, args.rows, args.shard_rows)
        vg = tdist.value_and_grad(loss, reduce="mean", client=client)
        t0 = time.perf_counter()
        params, losses = fit(vg, shards, args.steps)
        elapsed = time.perf_counter() - t0
        print(f"{args.steps} steps in {elapsed:.1f} s ({elapsed / args.steps:.2f} s per step)")
        if args.check:
            x = np.concatenate([s[0].compute() for s in shards])
            y = np.concatenate([s[1].compute() for s in shards])
            _, local = fit(tg.value_and_grad(loss), (x, y), args.steps, progress=False)
            worst = max(abs(a - b) / abs(b) for a, b in zip(losses, local))
            print(f"one process: largest relative difference of the losses {worst:.2e}")
            if worst > 1e-12:
                print("FAILED: the distributed losses differ from one process's")
                return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    acc = accuracy(params, x_test, y_test)
    print(f"test accuracy {acc:.4f} (the 450 held-out digits)")
    if acc < TARGET_ACCURACY:
        print(f"FAILED: accuracy below {TARGET_ACCURACY}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
