"""Kernel table: each Numba kernel of tracegrad against the best NumPy expression.

    python benchmarks/kernels.py            # sizes 16, 1e3, 1e6 (float64)
    python benchmarks/kernels.py --quick    # smoke test

Finds every :class:`tracegrad.primitives.kernels.Kernel` defined in a
``tracegrad.primitives.*`` module and times, per size, the NumPy expression
computing the same thing, the kernel itself (including allocating its
output, as an impl does), and the primitive's impl; the "impl uses" column
says whether the impl called the kernel at that size (observed, not
declared).  The single-op primitives whose impls are NumPy ufuncs (exp,
tanh, sin, add, mul) are timed against a one-loop Numba kernel written here,
to document why NumPy is used for them.

Adding a kernel to the table is one line in ``KERNELS`` below; the script
lists every kernel it finds without an entry.
"""
import argparse
import importlib
import os
import pkgutil
import sys
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import summarize, time_round_robin  # noqa: E402 - sibling script

SIZES = (16, 1_000, 1_000_000)
_rng = np.random.default_rng(0)


def normal(shape):
    return _rng.standard_normal(shape)


def batch_shape(n):
    """A (rows, columns) shape with ``n`` elements: (8, 2), (100, 10), (1000, 1000)."""
    cols = {16: 2, 1_000: 10, 1_000_000: 1_000}[n]
    return (n // cols, cols)


@dataclass
class Entry:
    """How to time one kernel-backed primitive.

    prim : name of the primitive in ``tracegrad.primitives.registry``
    computes : what it computes, for the table
    inputs : ``n -> list of arrays`` with ``n`` elements in all (the first input)
    numpy : the best NumPy expression, ``(*inputs) -> array``
    params : ``n -> dict`` of the primitive's static parameters
    call : ``(kernel, *inputs) -> array``; the default allocates an output
        shaped like NumPy's result and calls ``kernel(*inputs, out)``
    """

    prim: str
    computes: str
    inputs: callable
    numpy: callable
    params: callable = field(default=lambda n: {})
    call: callable = None


# module.function of the kernel -> Entry (one line each)
KERNELS = {
    "elementwise._tanh_grad_kernel": Entry("tanh_grad", "g * (1 - y**2)", lambda n: [normal(n), np.tanh(normal(n))], lambda g, y: g * (1.0 - y * y)),
    "structural._sum_rows_kernel": Entry("sum_to_shape", "column sums of a (rows, cols) array", lambda n: [normal(batch_shape(n))], lambda x: x.sum(axis=0), params=lambda n: {"shape": batch_shape(n)[1:]}),
}


# ==========================================================================
# single-op primitives whose impls are NumPy ufuncs, against a Numba loop

def _exp_loop(x, out):
    for i in range(out.size):
        out[i] = np.exp(x[i])


def _tanh_loop(x, out):
    for i in range(out.size):
        out[i] = np.tanh(x[i])


def _sin_loop(x, out):
    for i in range(out.size):
        out[i] = np.sin(x[i])


def _add_loop(x, y, out):
    for i in range(out.size):
        out[i] = x[i] + y[i]


def _mul_loop(x, y, out):
    for i in range(out.size):
        out[i] = x[i] * y[i]


# primitive -> (what it computes, number of inputs, NumPy ufunc, Numba loop)
NUMPY_IMPLS = {
    "exp": ("e**x", 1, np.exp, _exp_loop),
    "tanh": ("tanh(x)", 1, np.tanh, _tanh_loop),
    "sin": ("sin(x)", 1, np.sin, _sin_loop),
    "add": ("x + y", 2, np.add, _add_loop),
    "mul": ("x * y", 2, np.multiply, _mul_loop),
}


def numpy_impl_entries():
    """``NUMPY_IMPLS`` as ``(name, Entry, njit-compiled loop)`` triples."""
    import numba

    for prim, (computes, arity, ufunc, loop) in NUMPY_IMPLS.items():
        compiled = numba.njit(nogil=True, error_model="numpy")(loop)
        entry = Entry(prim, computes, lambda n, k=arity: [normal(n) for _ in range(k)], ufunc)
        yield f"(this script).{loop.__name__}", entry, compiled


# ==========================================================================

def find_kernels():
    """``{"module.function": Kernel}`` for every kernel in tracegrad.primitives."""
    import tracegrad.primitives as prims
    from tracegrad.primitives.kernels import Kernel

    found = {}
    for info in pkgutil.iter_modules(prims.__path__):
        module = importlib.import_module(f"{prims.__name__}.{info.name}")
        for attr, value in vars(module).items():
            if isinstance(value, Kernel) and value.pyfunc.__module__ == module.__name__:
                found[f"{info.name}.{attr}"] = value
    return found


class CallCounter:
    """Stands in for a kernel's dispatcher and counts calls (for "impl uses")."""

    def __init__(self, dispatcher):
        self.dispatcher, self.calls = dispatcher, 0

    def __call__(self, *args):
        self.calls += 1
        return self.dispatcher(*args)


def impl_uses_kernel(kernel, impl):
    """Whether calling ``impl()`` calls ``kernel`` (a tracegrad Kernel)."""
    counter = CallCounter(kernel.compiled)
    kernel._jit = counter
    try:
        impl()
    finally:
        kernel._jit = counter.dispatcher
    return counter.calls > 0


def measure(entry, kernel, n, args, is_tracegrad_kernel):
    """One table row: ``(NumPy stat, kernel stat, impl stat, impl uses)``."""
    from tracegrad.primitives import registry

    inputs = entry.inputs(n)
    expected = entry.numpy(*inputs)
    out_shape, out_dtype = np.shape(expected), np.result_type(expected)
    if entry.call is not None:
        run_kernel = lambda: entry.call(kernel, *inputs)  # noqa: E731
    else:
        def run_kernel():
            out = np.empty(out_shape, out_dtype)
            kernel(*inputs, out)
            return out
    impl = registry[entry.prim].impl
    params = entry.params(n)
    run_impl = lambda: impl(*inputs, **params)  # noqa: E731
    for name, got in (("kernel", run_kernel()), ("impl", run_impl())):
        if not np.allclose(got, expected):
            raise AssertionError(f"{entry.prim} at n={n}: the {name} disagrees with NumPy")
    if is_tracegrad_kernel:
        uses = "kernel" if impl_uses_kernel(kernel, run_impl) else "NumPy"
    else:
        uses = "NumPy"
    times = time_round_robin(
        {"numpy": lambda: entry.numpy(*inputs), "kernel": run_kernel, "impl": run_impl},
        args.rounds,
        args.min_sample,
        args.budget,
    )
    return summarize(times["numpy"]), summarize(times["kernel"]), summarize(times["impl"]), uses


def fmt_us(stat):
    value = stat[0] * 1e6
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few, short samples (smoke test)")
    p.add_argument("--rounds", type=int, default=15, help="samples per variant (default 15)")
    p.add_argument("--min-sample", type=float, default=0.01, help="shortest sample, seconds")
    p.add_argument("--budget", type=float, default=10.0, help="seconds of sampling per row")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_sample, args.budget = 3, 0.001, 1.0

    kernels = find_kernels()
    missing = sorted(set(kernels) - set(KERNELS))
    stale = sorted(set(KERNELS) - set(kernels))
    jobs = [(name, KERNELS[name], kernels[name], True) for name in sorted(kernels) if name in KERNELS]
    jobs += [(name, entry, loop, False) for name, entry, loop in numpy_impl_entries()]

    print("| primitive | computes | n | NumPy (µs) | Numba kernel (µs) | kernel/NumPy | impl (µs) | impl uses |")
    print("|---|---|---|---|---|---|---|---|")
    for name, entry, kernel, ours in jobs:
        for n in SIZES:
            t_np, t_k, t_impl, uses = measure(entry, kernel, n, args, ours)
            print(
                f"| `{entry.prim}` | {entry.computes} | {n:.0e} | {fmt_us(t_np)} | {fmt_us(t_k)} "
                f"| {t_k[0] / t_np[0]:.2f} | {fmt_us(t_impl)} | {uses} |",
                flush=True,
            )
    print("\nmedians; n = elements of the first input; float64; kernel times include "
          "allocating the output.  Rows below the tracegrad kernels use a one-loop "
          "Numba kernel written in this script.")
    if missing:
        print(f"\nkernels without an entry in KERNELS (add one line each): {', '.join(missing)}")
    if stale:
        print(f"\nentries in KERNELS with no such kernel: {', '.join(stale)}")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
