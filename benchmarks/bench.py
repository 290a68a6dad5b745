"""Side-by-side timing of tracegrad against HIPS autograd, PyTorch and JAX.

Runs every library that imports, in this one process, in float64 on the CPU
(torch_train in float32),
on the workloads of the tracegrad benchmark suite (see benchmarks/README.md)::

    python benchmarks/bench.py                      # everything (a few minutes)
    python benchmarks/bench.py --quick              # smoke test: few repeats
    python benchmarks/bench.py --workloads chain,mlp --markdown

Before timing a workload, every peer's result is compared with tracegrad's
(``np.allclose``); a workload on which any library disagrees is not timed.
Each sample runs an inner loop sized so that it lasts at least
``--min-sample`` seconds; the libraries take turns within every round
(round-robin, rotating who goes first) so that machine noise hits them
equally.  The table reports medians over rounds, with the interquartile
range as a percentage of the median.

The main table runs JAX without ``jit`` (op by op), as the eager libraries
do.  The functional workloads (chain, mlp, big, jac, hess, per_example,
scan_rnn) also run ``tracegrad.jit`` and ``jax.jit`` of the same derivative
function, as two more "libraries" in the same round-robin (so the jit figures
are measured side by side with the eager ones); they fill a second table, the
jit table, with its own targets (tg.jit/jax.jit).  Its ``compile`` rows time
the first call of ``jit(grad(mlp))`` in a fresh process, with an empty and a
warm compile cache (``TRACEGRAD_CACHE_DIR`` and ``NUMBA_CACHE_DIR``).
"""
import argparse
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing

LIBS = ("tracegrad", "autograd", "torch", "jax")
PEERS = LIBS[1:]
JIT_LIBS = ("tracegrad.jit", "jax.jit")  # jitted derivatives: the jit table's columns
WORKLOADS = ("chain", "mlp", "big", "jac", "hess", "per_example", "scan_rnn", "gp", "torch_chain",
             "torch_mlp", "torch_train", "torch_cnn", "torch_lstm", "cold", "compile")
# the workloads that also run jitted (tracegrad.jit and jax.jit)
JIT_WORKLOADS = ("chain", "mlp", "big", "jac", "hess", "per_example", "scan_rnn")
# torch_*: the same workload written PyTorch-style (tensors with requires_grad,
# loss.backward(), .grad), run by tracegrad.torch (the "tracegrad" column) and
# by PyTorch; the other libraries have no such API and sit these out.
TORCH_STYLE = ("torch_chain", "torch_mlp", "torch_train", "torch_cnn", "torch_lstm")

# The targets: workload -> (peer, largest allowed tracegrad/peer ratio).
RATIO_TARGETS = {"chain": ("autograd", 0.7), "mlp": ("torch", 1.2), "big": ("torch", 1.0),
                 "jac": ("autograd", 0.25), "hess": ("torch", 0.25),
                 "torch_chain": ("torch", 1.0), "torch_mlp": ("torch", 1.0),
                 "torch_train": ("torch", 1.0),
                 # issue 13: a LeNet-style CNN and a 2-layer LSTM, forward and backward
                 "torch_cnn": ("torch", 2.0), "torch_lstm": ("torch", 2.0),
                 # issue 11: a Gaussian process's likelihood gradient (cho_factor/cho_solve)
                 "gp": (("jax", 1.0), ("autograd", 0.5))}
# per_example's target compares tracegrad with itself: the per-example
# gradients of a batch against one gradient of the mean over that batch.
SELF_TARGETS = {"per_example": ("mlp", 3.0)}
COLD_TARGET_S = 1.5  # seconds, one-gradient process with a warm kernel cache
# issue 10's targets for the jit table: largest allowed tracegrad.jit/jax.jit ratio
JIT_TARGETS = {"chain": 1.0, "mlp": 1.0, "big": 0.7, "jac": 1.0, "hess": 1.0,
               "per_example": 1.0, "scan_rnn": 1.0}
# seconds, the first call of jit(grad(mlp)) in a fresh process
COMPILE_TARGETS_S = {"compile (empty cache)": 2.0, "compile (warm cache)": 0.5}

# scan_rnn: a tanh RNN, h <- tanh(x_t @ Wx + h @ Wh + b), over RNN_STEPS steps
RNN_STEPS, RNN_BATCH, RNN_HIDDEN = 100, 32, 64


# gp: the negative log marginal likelihood of a GP (RBF kernel; log amplitude,
# length scale and noise) on GP_POINTS points in 2-D, differentiated in the
# three hyperparameters
GP_POINTS = 500

# torch_train: the MLP's layer sizes and the number of optimizer steps
TRAIN_SIZES = (64, 256, 256, 10)
TRAIN_STEPS = 50

# torch_cnn: LeNet-style, (Conv2d + BatchNorm2d + ReLU + MaxPool2d) x 2 + Linear, on a
# batch of CNN_BATCH 28x28 float32 images
CNN_BATCH = 64
# torch_lstm: nn.LSTM(LSTM_INPUT, LSTM_HIDDEN, num_layers=2) over LSTM_STEPS steps, float32
LSTM_INPUT, LSTM_HIDDEN, LSTM_STEPS, LSTM_BATCH = 128, 128, 50, 32

# ==========================================================================
# inputs: the same NumPy arrays for every library

def make_data(workload, seed=0):
    """The inputs of ``workload`` as float64 NumPy arrays (labels int64)."""
    workload = workload.removeprefix("torch_")
    if workload == "per_example":
        workload = "mlp"
    rng = np.random.default_rng(seed)
    if workload == "train":  # float32: initial weights, and one batch per step
        sizes = TRAIN_SIZES
        return {
            "params": [(rng.uniform(-1, 1, (m, n)) / np.sqrt(n), rng.uniform(-1, 1, m) / np.sqrt(n))
                       for n, m in zip(sizes[:-1], sizes[1:])],
            "x": rng.standard_normal((TRAIN_STEPS, 128, sizes[0])).astype(np.float32),
            "y": rng.integers(0, sizes[-1], (TRAIN_STEPS, 128)),
        }
    if workload == "cnn":  # float32: the parameters by state_dict key, images, labels
        def uniform(fan_in, shape):
            return (rng.uniform(-1, 1, shape) / np.sqrt(fan_in)).astype(np.float32)

        return {
            "params": {"0.weight": uniform(25, (6, 1, 5, 5)), "0.bias": uniform(25, 6),
                       "4.weight": uniform(150, (16, 6, 5, 5)), "4.bias": uniform(150, 16),
                       "9.weight": uniform(256, (10, 256)), "9.bias": uniform(256, 10)},
            "x": rng.standard_normal((CNN_BATCH, 1, 28, 28)).astype(np.float32),
            "y": rng.integers(0, 10, CNN_BATCH),
        }
    if workload == "lstm":
        h, params = LSTM_HIDDEN, {}
        for layer, n_in in enumerate((LSTM_INPUT, LSTM_HIDDEN)):
            for name, shape in (("weight_ih", (4 * h, n_in)), ("weight_hh", (4 * h, h)),
                                ("bias_ih", (4 * h,)), ("bias_hh", (4 * h,))):
                params[f"{name}_l{layer}"] = (rng.uniform(-1, 1, shape)
                                              / np.sqrt(h)).astype(np.float32)
        return {"params": params,
                "x": rng.standard_normal((LSTM_STEPS, LSTM_BATCH, LSTM_INPUT)).astype(np.float32)}
    if workload == "chain":
        return {"x": rng.standard_normal(16)}
    if workload == "mlp":
        def init(fan_in, shape):
            return rng.standard_normal(shape) / np.sqrt(fan_in)

        return {
            "params": (init(784, (784, 256)), np.zeros(256), init(256, (256, 10)), np.zeros(10)),
            "x": rng.standard_normal((128, 784)),
            "y": rng.integers(0, 10, 128),
        }
    if workload == "big":
        return {"x": rng.standard_normal(1_000_000)}
    if workload == "jac":
        return {"W": rng.standard_normal((64, 64)) / 8.0, "x": rng.standard_normal(64)}
    if workload == "hess":
        return {"A": rng.standard_normal((32, 32)), "x": rng.standard_normal(32)}
    if workload == "scan_rnn":
        n = RNN_HIDDEN
        return {
            "params": (rng.standard_normal((n, n)) / np.sqrt(n),
                       0.9 * rng.standard_normal((n, n)) / np.sqrt(n), np.zeros(n)),
            "xs": rng.standard_normal((RNN_STEPS, RNN_BATCH, n)),
        }
    if workload == "gp":
        x = rng.uniform(-3.0, 3.0, (GP_POINTS, 2))
        return {
            "params": np.log(np.array([1.0, 0.7, 0.1])),
            "d2": np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1),
            "eye": np.eye(GP_POINTS),
            "y": np.sin(x[:, 0]) * np.cos(x[:, 1]) + 0.1 * rng.standard_normal(GP_POINTS),
        }
    raise ValueError(f"unknown workload {workload!r}; choose from {', '.join(WORKLOADS)}")


# ==========================================================================
# the workloads, written once against a NumPy-like namespace ``xp``

def loop_scan(f, init, xs):
    """``lax.scan`` for a body returning ``(carry, None)``, as a Python loop
    (what a PyTorch or HIPS autograd user writes)."""
    carry = init
    for t in range(len(xs)):
        carry, _ = f(carry, xs[t])
    return carry, None


def workload_spec(workload, xp, d, cross_entropy, scan=loop_scan, gp_solve=None):
    """``(function, argument, derivative kind)`` of ``workload``.

    ``xp`` is the library's array namespace (``tracegrad.numpy``,
    ``autograd.numpy``, ``jax.numpy`` or ``torch``), ``d`` the data already
    converted to its array type, ``cross_entropy(logits, labels)`` its
    mean softmax cross-entropy, and ``scan`` its ``lax.scan`` (for scan_rnn;
    default: a Python loop), and ``gp_solve(K, y) -> (K^-1 y, sum(log(diag(L))))``
    its Cholesky solve (for gp; ``K = L L^T``).  The kind is "grad", "jac", "hess" or
    "per_example" (the gradient of every example of the batch: ``argument``
    is then ``(params, x, y)``).
    """
    if workload == "chain":
        def chain(x):
            for _ in range(50):
                x = xp.sin(x) * 1.01 + 0.1 * x
            return xp.sum(x)

        return chain, d["x"], "grad"
    if workload == "mlp":
        x, y = d["x"], d["y"]

        def loss(params):
            W1, b1, W2, b2 = params
            return cross_entropy(xp.tanh(x @ W1 + b1) @ W2 + b2, y)

        return loss, d["params"], "grad"
    if workload == "big":
        return lambda x: xp.sum(xp.tanh(x) * xp.sin(x) + xp.exp(-x * x)), d["x"], "grad"
    if workload == "per_example":
        x, y = d["x"], d["y"]

        def one_loss(params, xi, yi):  # one example, as a batch of one
            W1, b1, W2, b2 = params
            return cross_entropy(xp.tanh(xi[None] @ W1 + b1) @ W2 + b2, yi[None])

        return one_loss, (d["params"], x, y), "per_example"
    if workload == "jac":
        W = d["W"]
        return lambda x: xp.tanh(W @ x), d["x"], "jac"
    if workload == "hess":
        A = d["A"]
        return lambda x: xp.sum(xp.tanh(x) ** 2) + x @ A @ x, d["x"], "hess"
    if workload == "scan_rnn":
        xs = d["xs"]

        def rnn_loss(params):
            Wx, Wh, b = params

            def step(h, x):
                return xp.tanh(x @ Wx + h @ Wh + b), None

            h, _ = scan(step, xs[0] * 0.0, xs)  # h0 = 0, in the library's array type
            return xp.mean(h ** 2)

        return rnn_loss, d["params"], "grad"
    if workload == "gp":
        d2, eye, y = d["d2"], d["eye"], d["y"]

        def gp_nll(log_params):  # up to the constant n/2 log(2 pi)
            amp, length, noise = xp.exp(log_params[0]), xp.exp(log_params[1]), xp.exp(log_params[2])
            k = amp * xp.exp(-0.5 * d2 / length ** 2) + noise * eye
            alpha, half_logdet = gp_solve(k, y)
            return 0.5 * (y @ alpha) + half_logdet

        return gp_nll, d["params"], "grad"
    raise ValueError(workload)


def log_softmax_xent(xp, log_softmax):
    """Mean over the batch of ``-log_softmax(logits)[i, labels[i]]``."""

    def cross_entropy(logits, labels):
        rows = np.arange(len(labels))
        return -xp.mean(log_softmax(logits)[rows, labels])

    return cross_entropy


# ==========================================================================
# one block per library: setup(workload, data) -> run()
#
# run() computes the workload's derivative in the library's own types;
# to_numpy turns that into a flat list of float64 arrays (in the order
# W1, b1, W2, b2 for the MLP) for the agreement check.

class NotApplicable(Exception):
    """The library has no API for this workload (it sits the row out)."""


def torch_style_setup(torch, workload, d):
    """``run()`` for a PyTorch-style workload on ``torch`` (real or tracegrad's).

    The code is what a PyTorch user writes: leaves with ``requires_grad``,
    the loss, ``loss.backward()``, then the leaves' ``.grad`` (reset to None
    before each step, as ``optimizer.zero_grad()`` does).
    """
    if workload == "torch_train":
        return torch_train_setup(torch, d)
    if workload in ("torch_cnn", "torch_lstm"):
        return torch_module_setup(torch, workload, d)
    F = torch.nn.functional

    def tensor(a):
        return torch.from_numpy(np.array(a))

    d = {k: tuple(map(tensor, v)) if isinstance(v, tuple) else tensor(v) for k, v in d.items()}
    fn, arg, _ = workload_spec(workload.removeprefix("torch_"), torch, d, F.cross_entropy)
    leaves = list(arg) if isinstance(arg, tuple) else [arg]
    for leaf in leaves:
        leaf.requires_grad_(True)

    def run():
        for leaf in leaves:
            leaf.grad = None
        fn(arg).backward()
        return [leaf.grad for leaf in leaves]

    return run


def torch_train_setup(torch, d):
    """``run()`` of torch_train: a whole float32 training loop, as a PyTorch user
    writes it (an ``nn.Sequential`` MLP with GELU, cross entropy with label
    smoothing, AdamW stepped by a StepLR schedule), from the same initial
    weights each run; it returns the last loss and the final parameters."""
    nn = torch.nn
    layers = []
    for n, m in zip(TRAIN_SIZES[:-1], TRAIN_SIZES[1:]):
        layers += [nn.Linear(n, m), nn.GELU()]
    model = nn.Sequential(*layers[:-1])
    linears = [m for m in model if isinstance(m, nn.Linear)]
    xs = [torch.from_numpy(x) for x in d["x"]]
    ys = [torch.from_numpy(y) for y in d["y"]]
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

    def run():
        with torch.no_grad():
            for lin, (w, b) in zip(linears, d["params"]):
                lin.weight.copy_(torch.from_numpy(w.astype(np.float32)))
                lin.bias.copy_(torch.from_numpy(b.astype(np.float32)))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
        for x, y in zip(xs, ys):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
        return [loss.detach()] + [p.detach().clone() for p in model.parameters()]

    return run


def torch_module_setup(torch, workload, d):
    """``run()`` of torch_cnn/torch_lstm: one forward and backward pass of an
    ``nn`` model (cross entropy of the CNN's logits; the mean square of the
    LSTM's outputs), returning the loss and every parameter's ``.grad`` (and
    the input's, for the LSTM)."""
    nn = torch.nn
    if workload == "torch_cnn":
        model = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(256, 10))
    else:
        model = nn.LSTM(LSTM_INPUT, LSTM_HIDDEN, num_layers=2)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in d["params"]:  # BatchNorm keeps its default ones and zeros
                p.copy_(torch.from_numpy(d["params"][name]))
    x = torch.from_numpy(d["x"])
    if workload == "torch_cnn":
        y = torch.from_numpy(d["y"])

        def loss_fn():
            return nn.functional.cross_entropy(model(x), y)
    else:
        x.requires_grad_(True)

        def loss_fn():
            out, _ = model(x)
            return out.square().mean()

    params = list(model.parameters())

    def run():
        model.zero_grad()
        x.grad = None
        loss = loss_fn()
        loss.backward()
        return [loss.detach()] + [p.grad for p in params] + (
            [x.grad] if x.requires_grad else [])

    return run


def tracegrad_setup(workload, d, jit=False):
    if workload in TORCH_STYLE:
        if jit:
            raise NotApplicable
        import tracegrad.torch

        return torch_style_setup(tracegrad.torch, workload, d)
    if jit and workload not in JIT_WORKLOADS:
        raise NotApplicable
    import tracegrad as tg
    import tracegrad.lax
    import tracegrad.numpy as tnp

    def log_softmax(z):
        import tracegrad.nn as tnn

        return tnn.log_softmax(z, axis=-1)

    def gp_solve(k, y):
        import tracegrad.scipy.linalg as tsl

        c, lower = tsl.cho_factor(k, lower=True)
        return tsl.cho_solve((c, lower), y), tnp.sum(tnp.log(tnp.diagonal(c)))

    fn, arg, kind = workload_spec(workload, tnp, d, log_softmax_xent(tnp, log_softmax),
                                  scan=tracegrad.lax.scan, gp_solve=gp_solve)
    wrap = tg.jit if jit else (lambda f: f)
    if kind == "per_example":
        per_example = wrap(tg.vmap(tg.grad(fn), in_axes=(None, 0, 0)))
        return lambda: per_example(*arg)
    derivative = wrap({"grad": tg.grad, "jac": tg.jacrev, "hess": tg.hessian}[kind](fn))
    return lambda: derivative(arg)


def autograd_setup(workload, d):
    if workload in TORCH_STYLE:
        raise NotApplicable
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    def log_softmax(z):
        return z - logsumexp(z, axis=-1, keepdims=True)

    def gp_solve(k, y):  # autograd has no cho_solve: two triangular solves
        from autograd.scipy.linalg import solve_triangular

        low = anp.linalg.cholesky(k)
        z = solve_triangular(low, y, lower=True)
        return solve_triangular(low.T, z, lower=False), anp.sum(anp.log(anp.diag(low)))

    fn, arg, kind = workload_spec(workload, anp, d, log_softmax_xent(anp, log_softmax),
                                  gp_solve=gp_solve)
    if kind == "per_example":  # autograd has no vmap: a loop over the examples
        g = autograd.grad(fn)
        params, x, y = arg
        return lambda: [np.stack(gs) for gs in zip(*(g(params, x[i], y[i])
                                                      for i in range(len(x))))]
    transform = {"grad": autograd.grad, "jac": autograd.jacobian, "hess": autograd.hessian}
    derivative = transform[kind](fn)
    return lambda: derivative(arg)


def jax_setup(workload, d, jit=False):
    if workload in TORCH_STYLE or (jit and workload not in JIT_WORKLOADS):
        raise NotApplicable
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    d = jax.tree_util.tree_map(jnp.asarray, d)
    xent = log_softmax_xent(jnp, lambda z: jax.nn.log_softmax(z, axis=-1))
    def gp_solve(k, y):
        import jax.scipy.linalg as jsl

        c, lower = jsl.cho_factor(k, lower=True)
        return jsl.cho_solve((c, lower), y), jnp.sum(jnp.log(jnp.diagonal(c)))

    fn, arg, kind = workload_spec(workload, jnp, d, xent, scan=jax.lax.scan, gp_solve=gp_solve)
    wrap = jax.jit if jit else (lambda f: f)
    if kind == "per_example":
        per_example = wrap(jax.vmap(jax.grad(fn), in_axes=(None, 0, 0)))
        return lambda: jax.block_until_ready(per_example(*arg))
    derivative = wrap({"grad": jax.grad, "jac": jax.jacrev, "hess": jax.hessian}[kind](fn))
    return lambda: jax.block_until_ready(derivative(arg))  # JAX dispatches asynchronously


def torch_setup(workload, d):
    import torch

    if workload in TORCH_STYLE:
        return torch_style_setup(torch, workload, d)
    import torch.nn.functional as F

    def tensor(a):
        return torch.from_numpy(np.array(a))

    d = {k: tuple(map(tensor, v)) if isinstance(v, tuple) else tensor(v) for k, v in d.items()}
    def gp_solve(k, y):
        low = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(y[:, None], low)[:, 0]
        return alpha, torch.sum(torch.log(torch.diagonal(low)))

    fn, arg, kind = workload_spec(workload, torch, d, F.cross_entropy, gp_solve=gp_solve)
    if kind == "per_example":
        per_example = torch.func.vmap(torch.func.grad(fn), in_dims=(None, 0, 0))
        return lambda: per_example(*arg)
    if kind == "jac":
        return lambda: torch.autograd.functional.jacobian(fn, arg)
    if kind == "hess":
        return lambda: torch.autograd.functional.hessian(fn, arg)
    leaves = list(arg) if isinstance(arg, tuple) else [arg]
    for leaf in leaves:
        leaf.requires_grad_(True)
    return lambda: torch.autograd.grad(fn(arg), leaves)


SETUPS = {
    "tracegrad": tracegrad_setup,
    "autograd": autograd_setup,
    "torch": torch_setup,
    "jax": jax_setup,
    "tracegrad.jit": lambda workload, d: tracegrad_setup(workload, d, jit=True),
    "jax.jit": lambda workload, d: jax_setup(workload, d, jit=True),
}


def to_numpy(result):
    """Flatten a result (array, tensor or tuple of them) to float64 arrays."""
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in to_numpy(r)]
    if hasattr(result, "detach"):  # torch tensor
        result = result.detach().numpy()
    return [np.asarray(result, dtype=np.float64)]


# ==========================================================================
# environment

def available_libs():
    """The libraries of ``LIBS`` that import here (tracegrad must), then the
    jit variants (``JIT_LIBS``) of those that do."""
    libs = []
    for name in LIBS:
        try:
            __import__(name)
        except ImportError as e:
            if name == "tracegrad":
                raise
            print(f"# {name} not importable ({e}); its columns stay empty")
            continue
        libs.append(name)
    return libs + [j for j in JIT_LIBS if j.removesuffix(".jit") in libs]


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def describe_environment(libs):
    """Lines naming versions, thread counts, CPUs and load."""
    versions = ", ".join(
        f"{n} {_version(n)}" for n in ("numpy", "numba") + tuple(lib for lib in libs
                                                              if lib not in JIT_LIBS)
    )
    lines = [
        f"python {platform.python_version()} on {platform.machine()} "
        f"({platform.processor() or platform.system()}); {versions}",
    ]
    ncpu = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else ncpu
    threads = [f"CPUs: {ncpu} ({usable} usable by this process)"]
    if "torch" in libs:
        import torch

        threads.append(f"torch intra-op threads: {torch.get_num_threads()}")
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threads.append("NumPy BLAS threads: unknown (install threadpoolctl)")
    else:
        for pool in threadpool_info():
            lib = os.path.basename(pool.get("filepath", "?"))
            threads.append(f"{pool['internal_api']} threads: {pool['num_threads']} ({lib})")
    lines.append("; ".join(threads))
    return lines


def load_average():
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return float("nan")


def limit_threads(n):
    """Run on ``n`` CPUs: pin the process (and the processes it starts) to
    ``n`` of its CPUs, and cap torch's and the BLAS libraries' thread pools
    at ``n`` threads.

    Pinning is what holds XLA (jax.jit) to ``n`` cores: its thread pool
    ignores the thread-count flags and threadpoolctl (jax-ml/jax#1539),
    measured here using both cores for a 128x784 @ 784x256 product (CPU
    time 1.9x wall time) until the process was pinned.  Call it before
    importing jax.
    """
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:n])
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("# threadpoolctl not installed: BLAS thread count left as is")
        return None
    return threadpool_limits(limits=n)  # keep the returned object alive


# ==========================================================================
# timing

def calibrate(fn, min_sample):
    """Inner-loop count so that one sample of ``fn`` lasts >= ``min_sample`` s."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_sample:
            return n
        n = max(n + 1, int(n * 1.2 * min_sample / max(dt, 1e-9)))


def time_round_robin(fns, rounds, min_sample, budget):
    """Per-call times of each of ``fns`` (a dict), sampled in turns.

    Returns ``{name: array of per-call seconds, one per round}``.  Each round
    runs every function's inner loop once, rotating the starting function;
    sampling stops early (after at least 5 rounds) once ``budget`` seconds
    have been spent.
    """
    names = list(fns)
    loops = {}
    for name in names:
        fns[name]()  # warm-up (first calls compile kernels, fill caches)
        fns[name]()
        loops[name] = calibrate(fns[name], min_sample)
    samples = {name: [] for name in names}
    start = time.perf_counter()
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn, n = fns[name], loops[name]
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
        if r >= 4 and time.perf_counter() - start > budget:
            break
    return {name: np.array(s) for name, s in samples.items()}


def summarize(samples):
    """``(median, iqr)`` of an array of times, or None when empty."""
    if samples is None or len(samples) == 0:
        return None
    q25, q50, q75 = np.percentile(samples, [25, 50, 75])
    return float(q50), float(q75 - q25)


# ==========================================================================
# the in-process workloads

# float32 workloads agree to float32 rounding (50 optimizer steps amplify it a little)
AGREEMENT_TOLERANCE = {"torch_train": {"rtol": 1e-3, "atol": 1e-4},
                       "torch_cnn": {"rtol": 1e-3, "atol": 1e-5},
                       "torch_lstm": {"rtol": 1e-3, "atol": 1e-6}}


def check_agreement(workload, runs):
    """Compare every peer's result with tracegrad's.

    Raises RuntimeError naming the first library whose result differs.
    """
    reference = to_numpy(runs["tracegrad"]())
    for name, run in runs.items():
        if name == "tracegrad":
            continue
        got = to_numpy(run())
        shapes_ok = [a.shape for a in got] == [a.shape for a in reference]
        tol = AGREEMENT_TOLERANCE.get(workload, {})
        if not shapes_ok or not all(np.allclose(a, b, **tol) for a, b in zip(reference, got)):
            detail = (
                f"shapes {[a.shape for a in got]} vs {[a.shape for a in reference]}"
                if not shapes_ok
                else "max abs difference "
                + f"{max(float(np.max(np.abs(a - b))) for a, b in zip(reference, got)):.3g}"
            )
            raise RuntimeError(f"{workload}: {name} disagrees with tracegrad ({detail})")


def per_example_floor(args):
    """Times of the cheapest possible part of per_example: writing the 128
    per-example gradients of W1 (outer products) into fresh memory."""
    d = make_data("mlp")
    x, delta = d["x"], np.random.default_rng(1).standard_normal((128, 256))
    out = time_round_robin({"floor": lambda: np.multiply(x[:, :, None], delta[:, None, :])},
                           args.rounds, args.min_sample, args.budget / 4)
    return out["floor"]


def bench_workload(workload, libs, args):
    """Time ``workload`` for each library: ``{lib: per-call seconds, one per round}``."""
    data = make_data(workload)
    runs = {}
    for name in libs:
        try:
            runs[name] = SETUPS[name](workload, data)
            runs[name]()  # fail here, not in the timing loop
        except NotApplicable:
            runs.pop(name, None)
        except Exception as e:  # noqa: BLE001 - report and go on without it
            message = f"{workload}: {name} failed: {type(e).__name__}: {e}"
            if name == "tracegrad":
                raise RuntimeError(message) from e
            print(f"# {message}")
            runs.pop(name, None)
    check_agreement(workload, runs)
    samples = time_round_robin(runs, args.rounds, args.min_sample, args.budget)
    return samples


# ==========================================================================
# cold start: a whole new process computing one gradient

# Each snippet imports its library and computes the gradient of
# sum(tanh(x * w + b)) with respect to (w, b) for a (256, 64) batch x, then
# prints the gradient as JSON for the agreement check.  The arrays are large
# enough for tracegrad's impls to pick their Numba kernels (tanh, tanh_grad
# and the bias-cotangent row sum), so the kernel cache matters.
_COLD_DATA = (
    "x = np.linspace(-1.0, 1.0, 256 * 64).reshape(256, 64); "
    "w = np.linspace(0.5, 1.5, 64); b = np.linspace(-0.2, 0.2, 64)"
)
COLD_SNIPPETS = {
    "tracegrad": f"""
import json, numpy as np, tracegrad as tg, tracegrad.numpy as tnp
{_COLD_DATA}
g = tg.grad(lambda w, b: tnp.sum(tnp.tanh(x * w + b)), argnums=(0, 1))(w, b)
print(json.dumps([np.asarray(a).tolist() for a in g]))
""",
    "autograd": f"""
import json, numpy as np, autograd, autograd.numpy as anp
{_COLD_DATA}
g = autograd.grad(lambda wb: anp.sum(anp.tanh(x * wb[0] + wb[1])))((w, b))
print(json.dumps([np.asarray(a).tolist() for a in g]))
""",
    "torch": f"""
import json, numpy as np, torch
{_COLD_DATA}
w, b = (torch.from_numpy(a).requires_grad_(True) for a in (w, b))
torch.tanh(torch.from_numpy(x) * w + b).sum().backward()
print(json.dumps([w.grad.tolist(), b.grad.tolist()]))
""",
    "jax": f"""
import json, numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
{_COLD_DATA}
g = jax.grad(lambda w, b: jnp.sum(jnp.tanh(x * w + b)), argnums=(0, 1))(w, b)
print(json.dumps([np.asarray(a).tolist() for a in g]))
""",
}
FLOOR_SNIPPET = "import numpy"


def run_process(code, env):
    """Wall-clock seconds of ``python -c code`` and its stdout."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tempfile.gettempdir(),  # keep the repository root off sys.path
        capture_output=True,
        text=True,
    )
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"process failed:\n{code}\n{proc.stderr[-2000:]}")
    return dt, proc.stdout


def bench_cold(libs, args):
    """Process wall-clock seconds per round: ``{row: {lib: samples}}``, and the floor's."""
    runs = max(1, args.rounds // 3)
    warm_dir = tempfile.mkdtemp(prefix="tracegrad-bench-warm-")
    cold_root = tempfile.mkdtemp(prefix="tracegrad-bench-cold-")
    base = dict(os.environ)
    warm_env = dict(base, NUMBA_CACHE_DIR=warm_dir)
    try:
        # populate the warm cache, and check that every library agrees
        reference = None
        for name in libs:
            _, out = run_process(COLD_SNIPPETS[name], warm_env)
            got = [np.asarray(a) for a in json.loads(out.strip().splitlines()[-1])]
            if reference is None:
                reference = got
            elif not all(np.allclose(a, b) for a, b in zip(reference, got)):
                raise RuntimeError(f"cold: {name} disagrees with tracegrad")
        samples = {("warm", n): [] for n in libs}
        samples[("cold", "tracegrad")] = []
        samples[("floor", "numpy")] = []
        keys = list(samples)
        for r in range(runs):
            k = r % len(keys)
            for cache, name in keys[k:] + keys[:k]:
                if cache == "floor":
                    env, code = base, FLOOR_SNIPPET
                elif cache == "cold":
                    fresh = tempfile.mkdtemp(dir=cold_root)
                    env, code = dict(base, NUMBA_CACHE_DIR=fresh), COLD_SNIPPETS[name]
                else:
                    env, code = warm_env, COLD_SNIPPETS[name]
                samples[(cache, name)].append(run_process(code, env)[0])
    finally:
        shutil.rmtree(warm_dir, ignore_errors=True)
        shutil.rmtree(cold_root, ignore_errors=True)
    warm = {n: np.array(samples[("warm", n)]) for n in libs}
    cold = {"tracegrad": np.array(samples[("cold", "tracegrad")])}
    return {"cold (warm cache)": warm, "cold (cold cache)": cold}, samples[("floor", "numpy")]


# ==========================================================================
# compile time: the first call of jit(grad(mlp)) in a fresh process

# The snippet imports this file (for the workload's data and code), builds the
# jitted gradient of the mlp workload, and prints the seconds of its first and
# second calls and a checksum of the gradient for the agreement check.
COMPILE_SNIPPET = """
import json, sys, time
sys.path.insert(0, {bench_dir!r})
import numpy as np
import bench
run = bench.SETUPS[{lib!r}]("mlp", bench.make_data("mlp"))
t0 = time.perf_counter(); out = run(); first = time.perf_counter() - t0
t0 = time.perf_counter(); run(); second = time.perf_counter() - t0
print(json.dumps({{"first": first, "second": second,
                  "sums": [float(np.sum(a)) for a in bench.to_numpy(out)]}}))
"""


def bench_compile(libs, args):
    """First-call seconds of ``jit(grad(mlp))``, each in a new process:
    ``{row: {lib: samples}}`` for an empty and a warm compile cache.

    The empty case points ``TRACEGRAD_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` at
    fresh directories; the warm case reuses directories a first process
    filled.  jax.jit (no persistent cache) appears in the empty-cache row.
    """
    jit_libs = [lib for lib in JIT_LIBS if lib in libs]
    runs = max(1, args.rounds // 3)
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    root = tempfile.mkdtemp(prefix="tracegrad-bench-compile-")

    def cache_env(path):
        return dict(os.environ, TRACEGRAD_CACHE_DIR=os.path.join(path, "tracegrad"),
                    NUMBA_CACHE_DIR=os.path.join(path, "numba"))

    def first_call(lib, env):
        _, out = run_process(COMPILE_SNIPPET.format(bench_dir=bench_dir, lib=lib), env)
        return json.loads(out.strip().splitlines()[-1])

    try:
        warm_env = cache_env(os.path.join(root, "warm"))
        reference = first_call("tracegrad.jit", warm_env)["sums"]  # fills the warm cache
        for lib in jit_libs[1:]:
            got = first_call(lib, cache_env(tempfile.mkdtemp(dir=root)))["sums"]
            if not np.allclose(got, reference):
                raise RuntimeError(f"compile: {lib} disagrees with tracegrad.jit")
        keys = [("empty", lib) for lib in jit_libs] + [("warm", "tracegrad.jit")]
        samples = {k: [] for k in keys}
        for r in range(runs):
            k = r % len(keys)
            for cache, lib in keys[k:] + keys[:k]:
                env = warm_env if cache == "warm" else cache_env(tempfile.mkdtemp(dir=root))
                samples[(cache, lib)].append(first_call(lib, env)["first"])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "compile (empty cache)": {lib: np.array(samples[("empty", lib)]) for lib in jit_libs},
        "compile (warm cache)": {"tracegrad.jit": np.array(samples[("warm", "tracegrad.jit")])},
    }


# ==========================================================================
# the table

def fmt_time(stat):
    if stat is None:
        return "-"
    median, iqr = stat
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if median >= scale or unit == "us":
            value = median / scale
            digits = 3 - len(str(int(value))) if value < 100 else 0
            return f"{value:.{max(digits, 0)}f} {unit} ±{100 * iqr / median:.0f}%"


def ratio(results, peer, base="tracegrad"):
    """Median over rounds of ``base``'s time over ``peer``'s in the same round.

    Pairing the samples of a round cancels slow spells of the machine that
    hit both; None if either library has no samples.
    """
    tg, other = results.get(base), results.get(peer)
    if tg is None or other is None or not len(tg) or not len(other):
        return None
    return float(np.median(np.asarray(tg) / np.asarray(other)))


def target_verdict(row, results, all_rows=None):
    """``(target text, PASS/MISS/-)`` for a table row (``all_rows``: every
    row's results, for targets relative to another row)."""
    workload = row.split()[0]
    if workload in SELF_TARGETS and row == workload:
        base, limit = SELF_TARGETS[workload]
        other = (all_rows or {}).get(base)
        tg = summarize(results.get("tracegrad"))
        ref = summarize(other.get("tracegrad")) if isinstance(other, dict) else None
        if tg is None or ref is None:
            return f"<= {limit}x tg {base}", "-"
        r = tg[0] / ref[0]
        return f"<= {limit}x tg {base} ({r:.2f}x)", "PASS" if r <= limit else "MISS"
    if row == "cold (warm cache)":
        tg = summarize(results.get("tracegrad"))
        verdict = "-" if tg is None else ("PASS" if tg[0] < COLD_TARGET_S else "MISS")
        return f"< {COLD_TARGET_S} s", verdict
    if workload in RATIO_TARGETS and row == workload:
        targets = RATIO_TARGETS[workload]
        targets = targets if isinstance(targets[0], tuple) else (targets,)
        ratios = [ratio(results, peer) for peer, _ in targets]
        text = ", ".join(f"<= {limit}x {peer}" for peer, limit in targets)
        if any(r is None for r in ratios):
            return text, "-"
        ok = all(r <= limit for r, (_, limit) in zip(ratios, targets))
        return text, "PASS" if ok else "MISS"
    return "", ""


def jit_target_verdict(row, results):
    """``(target text, PASS/MISS/-)`` of a row of the jit table."""
    if row in COMPILE_TARGETS_S:
        limit = COMPILE_TARGETS_S[row]
        tg = summarize(results.get("tracegrad.jit"))
        verdict = "-" if tg is None else ("PASS" if tg[0] <= limit else "MISS")
        return f"<= {limit} s", verdict
    if row in JIT_TARGETS:
        limit = JIT_TARGETS[row]
        r = ratio(results, "jax.jit", base="tracegrad.jit")
        verdict = "-" if r is None else ("PASS" if r <= limit else "MISS")
        return f"<= {limit}x jax.jit", verdict
    return "", ""


def table(rows, markdown):
    """Render ``rows`` (``[(row name, {lib: samples} or a reason)]``) as text."""
    header = (
        ["workload"] + list(LIBS) + [f"tg/{p}" for p in PEERS] + ["target", "result"]
    )
    body = []
    for row, results in rows:
        if isinstance(results, str):  # a reason the row was not timed
            body.append([row, results] + [""] * (len(header) - 2))
            continue
        ratios = [ratio(results, p) for p in PEERS]
        body.append(
            [row]
            + [fmt_time(summarize(results.get(lib))) for lib in LIBS]
            + ["-" if r is None else f"{r:.2f}" for r in ratios]
            + list(target_verdict(row, results, dict(rows)))
        )
    return render(header, body, markdown)


def jit_table(rows, markdown):
    """The jit table: eager and jitted derivatives of tracegrad and JAX, from
    the same round-robin; the compile rows give first-call seconds."""
    header = ["workload", "tracegrad", "tracegrad.jit", "jax", "jax.jit", "tg.jit/jax.jit",
              "target", "result"]
    body = []
    for row, results in rows:
        if isinstance(results, str):
            body.append([row, results] + [""] * (len(header) - 2))
            continue
        r = ratio(results, "jax.jit", base="tracegrad.jit")
        body.append(
            [row]
            + [fmt_time(summarize(results.get(lib))) for lib in header[1:5]]
            + ["-" if r is None else f"{r:.2f}"]
            + list(jit_target_verdict(row, results))
        )
    return render(header, body, markdown)


def render(header, body, markdown):
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*["-" * w for w in widths])]
    lines += [fmt.format(*cells) for cells in body]
    return "\n".join(lines)


# ==========================================================================

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--workloads",
        default=",".join(WORKLOADS),
        help=f"comma-separated subset of {','.join(WORKLOADS)} (default: all)",
    )
    p.add_argument("--quick", action="store_true", help="few, short samples (smoke test)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--rounds", type=int, default=21, help="samples per library (default 21)")
    p.add_argument(
        "--min-sample", type=float, default=0.02, help="shortest sample, seconds (default 0.02)"
    )
    p.add_argument(
        "--budget", type=float, default=60.0, help="seconds of sampling per workload (default 60)"
    )
    p.add_argument("--threads", type=int, help="pin the process to N CPUs and cap torch and BLAS thread pools at N")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_sample, args.budget = 3, 0.002, 5.0
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = sorted(set(args.workloads) - set(WORKLOADS))
    if unknown:
        p.error(f"unknown workload(s) {unknown}; choose from {','.join(WORKLOADS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    load_start = load_average()
    _limits = limit_threads(args.threads) if args.threads else None  # noqa: F841
    libs = available_libs()
    for line in describe_environment(libs):
        print("#", line)
    print(f"# 1-min load average at start: {load_start:.2f}")
    rows, jit_rows, floor, failed = [], [], None, False
    pe_floor = None
    for workload in args.workloads:
        print(f"# running {workload} ...", flush=True)
        try:
            if workload == "cold":
                cold_rows, floor = bench_cold([lib for lib in libs if lib in LIBS], args)
                rows += list(cold_rows.items())
            elif workload == "compile":
                jit_rows += list(bench_compile(libs, args).items())
            else:
                rows.append((workload, bench_workload(workload, libs, args)))
                if workload == "per_example":
                    pe_floor = per_example_floor(args)
        except RuntimeError as e:
            print(f"# NOT TIMED: {e}")
            reason = "results disagree" if "disagrees" in str(e) else "failed (see above)"
            (jit_rows if workload == "compile" else rows).append(
                (workload, f"not timed: {reason}"))
            failed = True
    print(f"# 1-min load average at end: {load_average():.2f}")
    mode = "quick smoke run, not for quoting" if args.quick else "medians ±IQR/median"
    print(f"\n# float64, CPU; {mode}; ratios are medians of same-round ratios; JAX without jit")
    print(table(rows, args.markdown))
    jit_rows = [(w, r) for w, r in rows if w in JIT_WORKLOADS] + jit_rows
    if jit_rows:
        print("\n# jit table: the same rounds, derivatives under tracegrad.jit and jax.jit "
              "(compile rows: seconds of the first call of jit(grad(mlp)) in a new process)")
        print(jit_table(jit_rows, args.markdown))
    if floor is not None:
        floor = fmt_time(summarize(floor))
        print(f"\nfloor: `python -c \"import numpy\"` takes {floor} (process wall clock)")
    if pe_floor is not None:
        print(f"\nper_example floor: the per-example W1 gradients alone (128 outer products "
              f"784x256, 206 MB of float64 written to new memory) take "
              f"{fmt_time(summarize(pe_floor))} in NumPy")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
