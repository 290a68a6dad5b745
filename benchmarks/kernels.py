"""Kernel table: each Numba kernel of tracegrad against the best NumPy expression.

    python benchmarks/kernels.py            # sizes 16, 1e3, 1e6 (float64)
    python benchmarks/kernels.py --quick    # smoke test
    python benchmarks/kernels.py --markdown # the README's table: one row per kernel

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
import math
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


def batch(n):
    """A standard-normal (rows, columns) array of ``n`` elements."""
    return normal(batch_shape(n))


def rows(n):
    """A standard-normal vector with one entry per row of ``batch(n)``."""
    return normal(batch_shape(n)[0])


# Reference NumPy formulas (the best NumPy expression for each result),
# along axis 1 of a (rows, columns) array.

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def logsumexp(x):
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


def log_softmax(x):
    return x - logsumexp(x)[:, None]


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def max_grad(ct, x, ans):
    """The cotangent of a row max, split evenly among ties."""
    ties = x == ans[:, None]
    return ties * (ct / ties.sum(axis=1))[:, None]


def max_tangent(t, x, ans):
    """The tangent of a row max: the mean of ``t`` over the ties."""
    ties = x == ans[:, None]
    return (t * ties).sum(axis=1) / ties.sum(axis=1)


def recurrence(a, b):
    """``y[k] = a[k] * y[k-1] + b[k]`` down axis 0 (NumPy has no such scan)."""
    out = np.empty_like(b)
    out[0] = b[0]
    for k in range(1, len(b)):
        out[k] = a[k] * out[k - 1] + b[k]
    return out


def scatter_size(n):
    return max(n // 4, 1)


def scatter_inputs(n):
    return [normal(n), _rng.integers(0, scatter_size(n), n)]


erf = np.vectorize(math.erf, otypes=[np.float64])  # NumPy has no erf ufunc
AXIS1 = lambda n: {"axes": (1,)}  # noqa: E731


# Kernels with scratch buffers, flags or blocked (pre, n, post) layouts.

def call_max_grad(kernel, ct, x, ans):
    out = np.empty(x.shape + (1,))
    kernel(ct[:, None], x[:, :, None], ans[:, None], out, np.empty(1))
    return out[:, :, 0]


def call_max_tangent(kernel, t, x, ans):
    out = np.empty((x.shape[0], 1))
    kernel(t[:, :, None], x[:, :, None], ans[:, None], out, np.empty(1))
    return out[:, 0]


def call_recurrence(kernel, a, b):
    out = np.empty((1,) + b.shape)
    kernel(a[None], b[None], out, False)
    return out[0]


def call_cumsum(kernel, x):
    out = np.empty((1,) + x.shape)
    kernel(x[None], out, False, False)
    return out[0]


def call_scatter_add(kernel, u, idx):
    out = np.zeros((1, scatter_size(u.size), 1))
    kernel(u.reshape(1, -1, 1), idx, out)
    return out.reshape(-1)


def sinc_numpy(x):
    """NumPy's sinc (``numpy.sinc`` itself: where, multiply, sin, divide)."""
    return np.sinc(x)


def sinc_grad_numpy(g, x):
    """``g * sinc'(x) = g * (cos(pi x) - sinc(x)) / x`` (0 at 0)."""
    with np.errstate(all="ignore"):
        return g * np.where(x == 0, 0.0, (np.cos(np.pi * x) - np.sinc(x)) / x)


def call_logaddexp_grad(kernel, g, x, y):
    out = np.empty_like(g)
    kernel(g, x, y, math.log(2.0), out)
    return out


def call_unary_grad(kernel, g, x):
    out = np.empty_like(g)
    kernel(g, x, 0, out)  # 0: arcsin
    return out


def call_arctan2_grad(kernel, g, y, x):
    out = np.empty_like(g)
    kernel(g, y, x, False, out)
    return out


def pow_inputs(n):
    x = np.abs(normal(n)) + 0.1
    y = normal(n)
    return [normal(n), x, y, np.power(x, y)]


def call_pow_grad_y(kernel, g, a, x):
    # what the impl does: NumPy's (vectorized) log, then the fused rest
    out = np.empty_like(g)
    kernel(g, a, x, np.log(x), out)
    return out


@dataclass
class Entry:
    """How to time one kernel-backed primitive.

    prim : name of the primitive in ``tracegrad.primitives.registry``
    computes : what it computes, for the table
    inputs : ``n -> list of arrays``, the largest with ``n`` elements
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


# module.function of the kernel -> Entry (one line each), or a tuple of
# Entries for a kernel that serves several primitives
KERNELS = {
    "elementwise._tanh_grad_kernel": Entry("tanh_grad", "g * (1 - y**2)", lambda n: [normal(n), np.tanh(normal(n))], lambda g, y: g * (1.0 - y * y)),
    "_vecmath_kernels.exp_kernel": Entry("exp", "e**x, vectorized polynomial", lambda n: [normal(n)], np.exp),
    "_vecmath_kernels.sin_kernel": Entry("sin", "sin(x), vectorized polynomial", lambda n: [normal(n)], np.sin),
    "_vecmath_kernels.cos_kernel": Entry("cos", "cos(x), vectorized polynomial", lambda n: [normal(n)], np.cos),
    "_vecmath_kernels.tanh_kernel": Entry("tanh", "tanh(x), vectorized polynomial", lambda n: [normal(n)], np.tanh),
    "_vecmath_kernels.sin_grad_kernel": Entry("sin_grad", "g * cos(x), fused", lambda n: [normal(n), normal(n)], lambda g, x: g * np.cos(x)),
    "_vecmath_kernels.cos_grad_kernel": Entry("cos_grad", "-(g * sin(x)), fused", lambda n: [normal(n), normal(n)], lambda g, x: -(g * np.sin(x))),
    "structural._sum_rows_kernel": Entry("sum_to_shape", "column sums (bias cotangent)", lambda n: [batch(n)], lambda x: x.sum(axis=0), params=lambda n: {"shape": batch_shape(n)[1:]}),
    "_nn_kernels.sigmoid_kernel": Entry("sigmoid", "1 / (1 + exp(-x))", lambda n: [normal(n)], sigmoid),
    "_nn_kernels.sigmoid_grad_kernel": Entry("sigmoid_grad", "g * s * (1 - s)", lambda n: [normal(n), sigmoid(normal(n))], lambda g, s: g * s * (1.0 - s)),
    "_nn_kernels.softplus_kernel": Entry("softplus", "log(1 + exp(x))", lambda n: [normal(n)], lambda x: np.logaddexp(x, 0.0)),
    "_nn_kernels.softplus_grad_kernel": Entry("softplus_grad", "g * sigmoid(x)", lambda n: [normal(n), normal(n)], lambda g, x: g * sigmoid(x)),
    "_nn_kernels.erf_kernel": Entry("erf", "erf(x) (NumPy: vectorized math.erf)", lambda n: [normal(n)], erf),
    "_nn_kernels.softmax_kernel": Entry("softmax", "softmax along rows", lambda n: [batch(n)], softmax, AXIS1),
    "_nn_kernels.scaled_softmax_kernel": Entry("logsumexp_grad", "c * softmax(x) along rows", lambda n: [rows(n), batch(n)], lambda c, x: c[:, None] * softmax(x), AXIS1),
    "_nn_kernels.softmax_grad_kernel": Entry("softmax_grad", "y * (g - sum(g * y))", lambda n: [batch(n), softmax(batch(n))], lambda g, y: y * (g - (g * y).sum(axis=1, keepdims=True)), AXIS1),
    "_nn_kernels.log_softmax_kernel": Entry("log_softmax", "x - logsumexp(x) along rows", lambda n: [batch(n)], log_softmax, AXIS1),
    "_nn_kernels.log_softmax_vjp_kernel": Entry("log_softmax_vjp", "c - exp(y) * sum(c)", lambda n: [batch(n), log_softmax(batch(n))], lambda c, y: c - np.exp(y) * c.sum(axis=1, keepdims=True), AXIS1),
    "_nn_kernels.log_softmax_jvp_kernel": Entry("log_softmax_jvp", "t - sum(exp(y) * t)", lambda n: [batch(n), log_softmax(batch(n))], lambda t, y: t - (np.exp(y) * t).sum(axis=1, keepdims=True), AXIS1),
    "_nn_kernels.logsumexp_kernel": Entry("logsumexp", "log(sum(exp(x))) along rows", lambda n: [batch(n)], logsumexp, AXIS1),
    "reductions._extremum_grad_kernel": Entry("extremum_grad", "row-max cotangent, ties split", lambda n: [rows(n), (x := batch(n)), x.max(axis=1)], max_grad, AXIS1, call_max_grad),
    "reductions._extremum_tangent_kernel": Entry("extremum_tangent", "row-max tangent, mean over ties", lambda n: [batch(n), (x := batch(n)), x.max(axis=1)], max_tangent, AXIS1, call_max_tangent),
    "reductions._recurrence_kernel": Entry("linear_recurrence", "y[k] = a[k] y[k-1] + b[k] down axis 0", lambda n: [batch(n), batch(n)], recurrence, lambda n: {"axis": 0, "reverse": False}, call_recurrence),
    "reductions._scan_kernel": Entry("cumsum", "cumsum down axis 0", lambda n: [batch(n)], lambda x: np.cumsum(x, axis=0), lambda n: {"axis": 0, "reverse": False}, call_cumsum),
    "_elementwise_fused_kernels.sinc_kernel": Entry("sinc", "sin(pi x) / (pi x), vectorized sin", lambda n: [normal(n) * 3.0], sinc_numpy),
    "_elementwise_fused_kernels.sinc_grad_kernel": Entry("sinc_grad", "g * sinc'(x), fused", lambda n: [normal(n), normal(n) * 3.0], sinc_grad_numpy),
    "_elementwise_fused_kernels.fmod_grad_kernel": Entry("fmod_grad", "-g * trunc(x1 / x2), exact quotient", lambda n: [normal(n), normal(n) * 10.0, normal(n)], lambda g, a, b: -g * np.trunc(a / b)),
    "_elementwise_fused_kernels.logaddexp_grad_kernel": Entry("logaddexp_grad", "g * sigmoid(ln2 (x - y)) (logaddexp2)", lambda n: [normal(n), normal(n), normal(n)], lambda g, x, y: g / (1.0 + np.exp2(y - x)), lambda n: {"scale": math.log(2.0)}, call_logaddexp_grad),
    "_elementwise_fused_kernels.unary_grad_kernel": Entry("unary_grad", "g / sqrt(1 - x**2) (arcsin; fn selects the formula)", lambda n: [normal(n), np.tanh(normal(n))], lambda g, x: g / np.sqrt(1.0 - x * x), lambda n: {"fn": "arcsin"}, call_unary_grad),
    "_elementwise_fused_kernels.hypot_grad_kernel": Entry("hypot_grad", "g * x / h, 0 at h == 0", lambda n: [normal(n), (x := normal(n)), np.hypot(x, normal(n))], lambda g, x, h: g * x / h),
    "_elementwise_fused_kernels.cbrt_grad_kernel": Entry("cbrt_grad", "g / (3 y**2), y = cbrt(x)", lambda n: [normal(n), np.cbrt(normal(n))], lambda g, y: g / (3.0 * y * y)),
    "_elementwise_fused_kernels.pow_grad_x_kernel": Entry("pow_grad_x", "g * y * x**(y-1), as a / x (a = x**y)", pow_inputs, lambda g, x, y, a: g * y * np.power(x, y - 1)),
    "_elementwise_fused_kernels.pow_grad_y_kernel": Entry("pow_grad_y", "g * a * log(x) (NumPy's log, then the kernel)", lambda n: [normal(n), normal(n), np.abs(normal(n)) + 0.1], lambda g, a, x: g * a * np.log(x), call=call_pow_grad_y),
    "_elementwise_fused_kernels.arctan2_grad_kernel": Entry("arctan2_grad", "g * x / (x**2 + y**2) (arctan2's partial in y)", lambda n: [normal(n), normal(n), normal(n)], lambda g, y, x: g * x / (x * x + y * y), lambda n: {"wrt_x": False}, call_arctan2_grad),
    "indexing._scatter_add_kernel": Entry("scatter_add", "bincount: out[idx[j]] += u[j], n/4 bins", scatter_inputs, lambda u, idx: np.bincount(idx, u, scatter_size(u.size)), lambda n: {"axis": 0, "size": scatter_size(n)}, call_scatter_add),
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
        inputs = lambda n, k=arity: [normal(n) for _ in range(k)]  # noqa: E731
        entry = Entry(prim, f"{computes}; kernel = a plain Numba loop", inputs, ufunc)
        yield f"(one loop) {loop.__name__}", entry, compiled


# ==========================================================================

def _pyfunc(kernel):
    """The Python function behind a tracegrad Kernel or a Numba dispatcher."""
    return getattr(kernel, "pyfunc", None) or kernel.py_func


def find_kernels():
    """``{"module.function": kernel}`` for every kernel in tracegrad.primitives.

    A kernel is a :class:`tracegrad.primitives.kernels.Kernel`, or a Numba
    dispatcher that is not an inlined helper (``inline="always"``).
    """
    from numba.core.registry import CPUDispatcher

    import tracegrad.primitives as prims
    from tracegrad.primitives.kernels import Kernel

    found = {}
    for info in pkgutil.iter_modules(prims.__path__):
        module = importlib.import_module(f"{prims.__name__}.{info.name}")
        for attr, value in vars(module).items():
            is_kernel = isinstance(value, Kernel) or (
                isinstance(value, CPUDispatcher)
                and value.targetoptions.get("inline") != "always"
            )
            if is_kernel and _pyfunc(value).__module__ == module.__name__:
                found[f"{info.name}.{attr}"] = value
    return found


def kernels_called(fn):
    """Names of the Python functions of the Numba kernels that ``fn()`` calls.

    Spies on every call into a compiled Numba function from Python (tracegrad
    Kernels call one too); calls between Numba functions are not seen, and
    do not need to be.
    """
    from numba.core.registry import CPUDispatcher

    called = []
    original = CPUDispatcher.__call__
    had_own = "__call__" in CPUDispatcher.__dict__

    def spy(self, *args, **kwargs):
        called.append(self.py_func.__name__)
        return original(self, *args, **kwargs)

    CPUDispatcher.__call__ = spy
    try:
        fn()
    finally:
        if had_own:
            CPUDispatcher.__call__ = original
        else:
            del CPUDispatcher.__call__
    return sorted(set(called))


def measure(entry, kernel, n, args):
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
    uses = ", ".join(f"`{k}`" for k in kernels_called(run_impl)) or "NumPy"
    times = time_round_robin(
        {"numpy": lambda: entry.numpy(*inputs), "kernel": run_kernel, "impl": run_impl},
        args.rounds,
        args.min_sample,
        args.budget,
    )
    return summarize(times["numpy"]), summarize(times["kernel"]), summarize(times["impl"]), uses


def impl_runs(used):
    """The README's "the impl runs" cell from the impl's kernels at each of ``SIZES``."""
    kernel_at = [n for n, u in zip(SIZES, used) if u != "NumPy"]
    if not kernel_at:
        return "NumPy"
    kernels = sorted({u for u in used if u != "NumPy"})
    what = kernels[0] if len(kernels) == 1 else ", ".join(kernels)
    if len(kernel_at) == len(SIZES):
        return what
    return f"NumPy at n = {SIZES[0]:,}, {what} from n = {kernel_at[0]:,}"


def fmt_us(stat):
    value = stat[0] * 1e6
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few, short samples (smoke test)")
    p.add_argument("--rounds", type=int, default=15, help="samples per variant (default 15)")
    p.add_argument("--min-sample", type=float, default=0.01, help="shortest sample, seconds")
    p.add_argument("--budget", type=float, default=10.0, help="seconds of sampling per row")
    p.add_argument(
        "--only", help="comma-separated substrings: time only the kernels whose name has one"
    )
    p.add_argument("--markdown", action="store_true",
                   help="print the README's table: kernel/NumPy ratios per size, one row each")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_sample, args.budget = 3, 0.001, 1.0

    kernels = find_kernels()
    missing = sorted(set(kernels) - set(KERNELS))
    stale = sorted(set(KERNELS) - set(kernels))
    jobs = [
        (name, entry, kernels[name])
        for name in sorted(kernels) if name in KERNELS
        for entry in (KERNELS[name] if isinstance(KERNELS[name], tuple) else (KERNELS[name],))
    ]
    jobs += list(numpy_impl_entries())
    if args.only:
        wanted = args.only.split(",")
        jobs = [job for job in jobs if any(w in job[0] for w in wanted)]

    header = ["primitive", "computes", "n", "NumPy (µs)", "kernel (µs)", "kernel/NumPy",
              "impl (µs)", "impl uses"]
    if args.markdown:
        header = ["primitive", "computes"] + [
            f"kernel time / NumPy time at n = {n:,}" if i == 0 else f"{n:,}"
            for i, n in enumerate(SIZES)] + ["the impl runs"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    errors = 0
    for name, entry, kernel in jobs:
        ratios, used = [], []
        for n in SIZES:
            try:
                t_np, t_k, t_impl, uses = measure(entry, kernel, n, args)
            except Exception as e:  # noqa: BLE001 - one broken entry must not hide the rest
                print(f"| `{entry.prim}` | {name} | {n:,} | error: {type(e).__name__}: {e} |||||")
                errors += 1
                break
            ratios.append(t_k[0] / t_np[0])
            used.append(uses)
            if not args.markdown:
                print(
                    f"| `{entry.prim}` | {entry.computes} | {n:,} | {fmt_us(t_np)} "
                    f"| {fmt_us(t_k)} | {t_k[0] / t_np[0]:.2f} | {fmt_us(t_impl)} | {uses} |",
                    flush=True,
                )
        if args.markdown and len(ratios) == len(SIZES):
            cells = " | ".join(f"{r:.2f}" for r in ratios)
            print(f"| `{entry.prim}` | {entry.computes} | {cells} | {impl_runs(used)} |",
                  flush=True)
    print("\nmedians; n = elements of the largest input; float64; kernel times include "
          "allocating the output; \"a plain Numba loop\" rows time a one-loop kernel "
          "written in this script, to compare with NumPy and with the impl.")
    if missing:
        print(f"\nkernels without an entry in KERNELS (add one line each): {', '.join(missing)}")
    if stale:
        print(f"\nentries in KERNELS with no such kernel: {', '.join(stale)}")
    return 1 if missing or stale or errors else 0


if __name__ == "__main__":
    sys.exit(main())
