"""Do the scalar functions of ``_vecmath_kernels`` vectorize inside a Numba loop?

    python benchmarks/vecmath.py           # 1e6 elements, float64 and float32
    python benchmarks/vecmath.py --quick

For each function ``f``, times (medians of interleaved samples) a Numba loop
``out[i] = f(x[i])``, NumPy's ufunc, and a Numba loop calling ``math.f``,
and prints the ratios loop/NumPy and loop/math.
"""
import argparse
import math
import time

import numba
import numpy as np

from tracegrad.primitives import _vecmath_kernels as K


def _loop(f):
    @numba.njit(nogil=True, error_model="numpy", fastmath={"contract"})
    def loop(x, out):
        for i in range(x.size):
            out[i] = f(x[i])
    return loop


def _sigmoid_np(x):
    return 1.0 / (1.0 + np.exp(-x))


@numba.njit(inline="always")
def _math_sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


# name -> (NumPy expression, math.* scalar, input maker)
CASES = {
    "exp": (np.exp, math.exp, lambda r, n: r.standard_normal(n) * 5),
    "log": (np.log, math.log, lambda r, n: np.exp(r.standard_normal(n) * 5)),
    "log1p": (np.log1p, math.log1p, lambda r, n: np.exp(r.standard_normal(n) * 5)),
    "expm1": (np.expm1, math.expm1, lambda r, n: r.standard_normal(n) * 5),
    "tanh": (np.tanh, math.tanh, lambda r, n: r.standard_normal(n) * 2),
    "sigmoid": (_sigmoid_np, _math_sigmoid, lambda r, n: r.standard_normal(n) * 5),
    "sin": (np.sin, math.sin, lambda r, n: r.standard_normal(n) * 10),
    "cos": (np.cos, math.cos, lambda r, n: r.standard_normal(n) * 10),
}


def median_times(fns, rounds):
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.rounds = 10_000, 3
    rng = np.random.default_rng(0)
    print("| function | dtype | loop (ms) | NumPy (ms) | math loop (ms) | loop/NumPy | loop/math |")
    print("|---|---|---|---|---|---|---|")
    for name, (np_fn, math_fn, make) in CASES.items():
        for dt, suffix in ((np.float64, "f64"), (np.float32, "f32")):
            x = make(rng, args.n).astype(dt)
            out = np.empty_like(x)
            fast, slow = _loop(getattr(K, f"{name}_{suffix}")), _loop(math_fn)
            fast(x, out)
            slow(x, out)
            t = median_times({"loop": lambda: fast(x, out), "numpy": lambda: np_fn(x),
                              "math": lambda: slow(x, out)}, args.rounds)
            print(f"| {name} | {dt.__name__} | {t['loop'] * 1e3:.2f} | {t['numpy'] * 1e3:.2f} "
                  f"| {t['math'] * 1e3:.2f} | {t['loop'] / t['numpy']:.2f} "
                  f"| {t['loop'] / t['math']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
