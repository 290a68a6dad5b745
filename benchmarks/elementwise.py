"""Elementwise table: ``tracegrad.numpy.<f>`` against ``numpy.<f>``, values and derivatives.

    python benchmarks/elementwise.py                 # n = 1e6 float64, every function
    python benchmarks/elementwise.py --markdown      # the README's table
    python benchmarks/elementwise.py --quick         # smoke test
    python benchmarks/elementwise.py --only sinc,fmod --n 1000

For each elementwise function of ``tracegrad.numpy`` that NumPy also has
(the ones issue 9 added, and the older ones they are built from), times on
the same plain float64 arrays, round-robin (see ``bench.time_round_robin``):

* value: ``tracegrad.numpy.f(*xs)`` (what users call outside transforms: it
  runs the primitive impls) against ``numpy.f(*xs)``;
* derivative: the reverse pass ``back(ct)`` of ``tracegrad.vjp(f, *xs)``
  (the impls of the VJP rules; the forward pass is not timed) against the
  NumPy expression of the same cotangents, given the inputs and NumPy's
  result.

"impl uses" names the Numba kernels the timed call ran (observed, not
declared; "NumPy" when none).  Each value is checked against NumPy before
timing: "exact" says the value is NumPy's bit for bit (NaNs equal).
"""
import argparse
import os
import sys
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import summarize, time_round_robin  # noqa: E402 - sibling script
from kernels import fmt_us, kernels_called  # noqa: E402 - sibling script

_rng = np.random.default_rng(0)
LN2 = np.log(2.0)


def normal(n, scale=1.0):
    return _rng.standard_normal(n) * scale


def uniform(lo, hi):
    return lambda n: _rng.uniform(lo, hi, n)


def with_zeros(n):
    """Standard normal with about 10% exact zeros (and a -0.0)."""
    x = normal(n)
    x[_rng.random(n) < 0.1] = 0.0
    x[0] = -0.0
    return x


def with_specials(n):
    """Standard normal with about 1% each of NaN, +inf and -inf."""
    x = normal(n)
    u = _rng.random(n)
    x[u < 0.01] = np.nan
    x[(u >= 0.01) & (u < 0.02)] = np.inf
    x[(u >= 0.02) & (u < 0.03)] = -np.inf
    return x


def two(a, b=None):
    b = b or a
    return lambda n: [a(n), b(n)]


def one(a):
    return lambda n: [a(n)]


@dataclass
class Row:
    """One function of the table.

    name : the function's name in both ``numpy`` and ``tracegrad.numpy``
    inputs : ``n -> list of arrays``
    deriv : ``(ct, ans, *inputs) -> cotangent or tuple of cotangents`` in
        NumPy for the arguments listed in ``wrt``; None for no derivative row
    wrt : indices of the differentiated arguments (the others are constants)
    """

    name: str
    inputs: callable
    deriv: callable = None
    wrt: tuple = (0,)
    out: int = field(default=None)  # index of the differentiated output (frexp, modf)


def _sinc_deriv(ct, ans, x):
    with np.errstate(all="ignore"):
        d = (np.cos(np.pi * x) - ans) / x
    return ct * np.where(x == 0, 0.0, d)


ROWS = [
    Row("deg2rad", one(normal), lambda ct, ans, x: ct * (np.pi / 180)),
    Row("rad2deg", one(normal), lambda ct, ans, x: ct * (180 / np.pi)),
    Row("degrees", one(normal)),
    Row("radians", one(normal)),
    Row("sinc", one(lambda n: normal(n, 3.0)), _sinc_deriv),
    Row("fabs", one(normal), lambda ct, ans, x: ct * np.sign(x)),
    Row("signbit", one(with_zeros)),
    Row("fmod", two(normal), lambda ct, ans, a, b: (ct, -ct * np.trunc(a / b)), (0, 1)),
    Row("remainder", two(normal), lambda ct, ans, a, b: (ct, -ct * np.floor_divide(a, b)), (0, 1)),
    Row("copysign", two(with_zeros), lambda ct, ans, a, b: ct * np.where(
        a == 0, np.where(np.signbit(b), -1.0, 1.0), np.where(np.signbit(a) != np.signbit(b), -1.0, 1.0))),
    Row("float_power", two(uniform(0.1, 10.0), normal),
        lambda ct, ans, a, b: (ct * b * np.float_power(a, b - 1), ct * ans * np.log(a)), (0, 1)),
    Row("power", two(uniform(0.1, 10.0), normal),
        lambda ct, ans, a, b: (ct * b * np.power(a, b - 1), ct * ans * np.log(a)), (0, 1)),
    Row("logaddexp2", two(normal),
        lambda ct, ans, a, b: (ct / (1 + np.exp2(b - a)), ct / (1 + np.exp2(a - b))), (0, 1)),
    Row("logaddexp", two(normal),
        lambda ct, ans, a, b: (ct / (1 + np.exp(b - a)), ct / (1 + np.exp(a - b))), (0, 1)),
    Row("heaviside", two(with_zeros, normal), lambda ct, ans, a, b: ct * (a == 0), (1,)),
    Row("nan_to_num", one(with_specials), lambda ct, ans, x: ct * np.isfinite(x)),
    Row("ldexp", lambda n: [normal(n), _rng.integers(-10, 10, n)],
        lambda ct, ans, a, k: np.ldexp(ct, k)),
    Row("frexp", one(normal), lambda ct, ans, x: np.ldexp(ct, -ans[1]), out=0),
    Row("modf", one(lambda n: normal(n, 10.0)), lambda ct, ans, x: np.where(np.isinf(x), 0.0, ct),
        out=0),
    Row("cbrt", one(normal), lambda ct, ans, x: ct / (3.0 * ans * ans)),
    Row("exp2", one(normal), lambda ct, ans, x: ct * ans * LN2),
    Row("expm1", one(normal), lambda ct, ans, x: ct * (ans + 1.0)),
    Row("log1p", one(uniform(-0.9, 10.0)), lambda ct, ans, x: ct / (1.0 + x)),
    Row("hypot", two(normal), lambda ct, ans, a, b: (ct * a / ans, ct * b / ans), (0, 1)),
    Row("arctan2", two(normal),
        lambda ct, ans, y, x: (ct * x / (x * x + y * y), -ct * y / (x * x + y * y)), (0, 1)),
    Row("acos", one(uniform(-0.99, 0.99)), lambda ct, ans, x: -ct / np.sqrt(1 - x * x)),
    Row("asin", one(uniform(-0.99, 0.99)), lambda ct, ans, x: ct / np.sqrt(1 - x * x)),
    Row("atan", one(normal), lambda ct, ans, x: ct / (1 + x * x)),
    Row("acosh", one(uniform(1.01, 10.0)), lambda ct, ans, x: ct / np.sqrt(x * x - 1)),
    Row("asinh", one(normal), lambda ct, ans, x: ct / np.sqrt(x * x + 1)),
    Row("atanh", one(uniform(-0.99, 0.99)), lambda ct, ans, x: ct / (1 - x * x)),
    Row("atan2", two(normal)),
    Row("pow", two(uniform(0.1, 10.0), normal)),
]


def _same(a, b):
    """Bitwise-equal values (NaNs equal, -0.0 distinct from 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a.view(np.int64 if a.itemsize == 8 else np.int32),
                              b.view(np.int64 if b.itemsize == 8 else np.int32)) or (
            np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b)))
    return np.array_equal(a, b)


def _tuple(v):
    return tuple(v) if isinstance(v, tuple) else (v,)


def measure(row, n, args):
    """``[(label, NumPy stat, tracegrad stat, exact, impl uses), ...]`` for one function."""
    import tracegrad as tg
    import tracegrad.numpy as tnp

    np_fn, tg_fn = getattr(np, row.name), getattr(tnp, row.name)
    xs = row.inputs(n)
    with np.errstate(all="ignore"):
        expected = np_fn(*xs)
    got = tg_fn(*xs)
    exact = all(_same(g, e) for g, e in zip(_tuple(got), _tuple(expected)))
    if not exact and not all(np.allclose(g, e, equal_nan=True)
                             for g, e in zip(_tuple(got), _tuple(expected))):
        raise AssertionError(f"{row.name}: tracegrad's value disagrees with NumPy's")
    results = []

    def value_np():
        with np.errstate(all="ignore"):
            return np_fn(*xs)

    fns = {"numpy": value_np, "tracegrad": lambda: tg_fn(*xs)}
    times = time_round_robin(fns, args.rounds, args.min_sample, args.budget)
    uses = ", ".join(f"`{k}`" for k in kernels_called(fns["tracegrad"])) or "NumPy"
    results.append((row.name, summarize(times["numpy"]), summarize(times["tracegrad"]),
                    "yes" if exact else "no", uses))
    if row.deriv is None:
        return results

    def f(*diff):
        full = list(xs)
        for i, v in zip(row.wrt, diff):
            full[i] = v
        out = tg_fn(*full)
        return out if row.out is None else out[row.out]

    primal, back = tg.vjp(f, *(xs[i] for i in row.wrt))
    ct = normal(np.shape(primal))
    with np.errstate(all="ignore"):
        want = _tuple(row.deriv(ct, expected, *xs))
    have = back(ct)
    for h, w in zip(have, want):
        # (the NumPy formula of sinc' cancels near 0: compare at its scale)
        if not np.allclose(h, np.broadcast_to(w, np.shape(h)), rtol=1e-7, atol=1e-9,
                           equal_nan=True):
            raise AssertionError(f"{row.name}: tracegrad's cotangent disagrees with NumPy's")

    def deriv_np():
        with np.errstate(all="ignore"):
            return row.deriv(ct, expected, *xs)

    fns = {"numpy": deriv_np, "tracegrad": lambda: back(ct)}
    times = time_round_robin(fns, args.rounds, args.min_sample, args.budget)
    uses = ", ".join(f"`{k}`" for k in kernels_called(fns["tracegrad"])) or "NumPy"
    results.append((f"{row.name} vjp", summarize(times["numpy"]),
                    summarize(times["tracegrad"]), "", uses))
    return results


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few, short samples (smoke test)")
    p.add_argument("--n", type=int, default=1_000_000, help="elements (default 1e6)")
    p.add_argument("--rounds", type=int, default=15, help="samples per variant (default 15)")
    p.add_argument("--min-sample", type=float, default=0.05, help="shortest sample, seconds")
    p.add_argument("--budget", type=float, default=4.0, help="seconds of sampling per row")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument("--only", help="comma-separated function names to time")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_sample, args.budget = 3, 0.001, 0.5

    rows = ROWS
    if args.only:
        wanted = set(args.only.split(","))
        rows = [r for r in rows if r.name in wanted]
    header = ["function", "NumPy (ms)", "tracegrad (ms)", "tracegrad/NumPy", "exact",
              "impl uses"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{header[0]:<18}{header[1]:>12}{header[2]:>16}{header[3]:>17}  {header[4]:<6}"
              f"{header[5]}")
    errors = 0
    worst = 0.0
    for row in rows:
        try:
            lines = measure(row, args.n, args)
        except Exception as e:  # noqa: BLE001 - one broken row must not hide the rest
            print(f"| `{row.name}` | error: {type(e).__name__}: {e} |||||" if args.markdown
                  else f"{row.name:<18}error: {type(e).__name__}: {e}")
            errors += 1
            continue
        for label, t_np, t_tg, exact, uses in lines:
            ratio = t_tg[0] / t_np[0]
            worst = max(worst, ratio)
            ms_np, ms_tg = f"{t_np[0] * 1e3:.2f}", f"{t_tg[0] * 1e3:.2f}"
            if args.markdown:
                print(f"| `{label}` | {ms_np} | {ms_tg} | {ratio:.2f} | {exact} | {uses} |",
                      flush=True)
            else:
                print(f"{label:<18}{ms_np:>12}{ms_tg:>16}{ratio:>17.2f}  {exact:<6}{uses}",
                      flush=True)
    print(f"\nmedians of interleaved rounds; n = {args.n:,} float64 elements per input; "
          f"largest tracegrad/NumPy ratio {worst:.2f}.")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
