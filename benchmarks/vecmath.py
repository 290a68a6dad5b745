"""Do the scalar functions of ``_vecmath_kernels`` vectorize inside a Numba loop?

    python benchmarks/vecmath.py           # 1e6 elements, float64 and float32
    python benchmarks/vecmath.py --quick

For each function ``f``, times (medians of interleaved samples) a Numba loop
``out[i] = f(x[i])`` (``f(x[i], y[i])`` for pow), NumPy's ufunc (for erf,
which NumPy lacks: ``scipy.special.erf``), and a Numba loop calling
``math.f``, and prints ns per element and the ratios loop/NumPy and
loop/math.  The ``vec`` column says whether the compiled loop does packed
float arithmetic (AVX2 ``ymm`` / AVX-512 ``zmm`` registers in its machine code).
"""
import argparse
import math
import re
import time

import numba
import numpy as np

from tracegrad.primitives import _vecmath_kernels as K


def _loop(f, binary=False):
    if binary:
        @numba.njit(nogil=True, error_model="numpy", fastmath={"contract"})
        def loop2(x, y, out):
            for i in range(x.size):
                out[i] = f(x[i], y[i])
        return loop2

    @numba.njit(nogil=True, error_model="numpy", fastmath={"contract"})
    def loop(x, out):
        for i in range(x.size):
            out[i] = f(x[i])
    return loop


def vectorized(loop):
    """Whether the compiled loop does packed float arithmetic (``v...pd`` /
    ``v...ps`` on ``%ymm``/``%zmm`` registers: x86-64 AVX2 / AVX-512)."""
    asm = "".join(loop.inspect_asm().values())
    return len(re.findall(PACKED_OP, asm)) >= 8


#: A packed (4- or 8-lane) float arithmetic instruction in x86-64 assembly.
PACKED_OP = r"\bv(?:fn?madd|fn?msub|mul|add|sub|div)\w*p[ds]\s+[^\n]*%[yz]mm"


def _scipy_erf():
    try:
        from scipy.special import erf  # lazy: optional, the reference for erf only
    except ImportError:
        return None
    return erf


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
    "erf": (None, math.erf, lambda r, n: r.standard_normal(n) * 2),
    # pow: bases log-uniform over [1e-3, 1e3], exponents normal * 4
    "pow": (np.power, math.pow, lambda r, n: (np.exp(r.uniform(-7, 7, n)), r.standard_normal(n) * 4)),
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
    print("| function | dtype | vec | loop (ns/el) | NumPy (ns/el) | math loop (ns/el) "
          "| loop/NumPy | loop/math |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (np_fn, math_fn, make) in CASES.items():
        np_fn = _scipy_erf() if name == "erf" else np_fn
        for dt, suffix in ((np.float64, "f64"), (np.float32, "f32")):
            made = make(rng, args.n)
            ins = tuple(a.astype(dt) for a in made) if isinstance(made, tuple) else (made.astype(dt),)
            out = np.empty_like(ins[0])
            binary = len(ins) == 2
            fast = _loop(getattr(K, f"{name}_{suffix}"), binary)
            slow = _loop(math_fn, binary)
            fast(*ins, out)
            slow(*ins, out)
            fns = {"loop": lambda: fast(*ins, out), "math": lambda: slow(*ins, out)}
            if np_fn is not None:
                fns["numpy"] = lambda: np_fn(*ins)
            t = median_times(fns, args.rounds)
            ns = {k: v * 1e9 / args.n for k, v in t.items()}
            npt = f"{ns['numpy']:.2f}" if "numpy" in ns else "-"
            npr = f"{t['loop'] / t['numpy']:.2f}" if "numpy" in t else "-"
            print(f"| {name} | {dt.__name__} | {'yes' if vectorized(fast) else 'NO'} "
                  f"| {ns['loop']:.2f} | {npt} | {ns['math']:.2f} | {npr} "
                  f"| {t['loop'] / t['math']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
