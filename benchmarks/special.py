"""Special-function table: ``tracegrad.scipy.special`` against ``scipy.special``.

    python benchmarks/special.py            # 1e6 float64 elements per call
    python benchmarks/special.py --quick    # smoke test
    python benchmarks/special.py --markdown # the README's table

Times each function of ``tracegrad.scipy.special`` on a concrete float64
array (the eager path a user calls: the primitive's impl, allocation
included) and SciPy's function on the same array, in turns
(:func:`bench.time_round_robin`), and reports the medians and their ratio.
Inputs cover each function's usual domain (listed in ``FUNCTIONS``).  The
issue's target is a ratio of at most 1.0 for every row.

Adding a function is one line in ``FUNCTIONS``; functions of
``tracegrad.scipy.special`` without a row are listed at the end.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import summarize, time_round_robin  # noqa: E402 - sibling script

N = 1_000_000
_rng = np.random.default_rng(0)


def uniform(lo, hi):
    return lambda n: (_rng.uniform(lo, hi, n),)


def pair(lo, hi, lo2, hi2):
    return lambda n: (_rng.uniform(lo, hi, n), _rng.uniform(lo2, hi2, n))


def order(k, lo, hi):
    """A static first argument (an order ``n``) and one array."""
    return lambda n: (k, _rng.uniform(lo, hi, n))


#: (function name, inputs(n) -> tuple of arguments): the domain each row samples
FUNCTIONS = [
    ("erf", uniform(-6, 6)),
    ("erfc", uniform(-6, 27)),
    ("erfcx", uniform(-6, 50)),
    ("erfinv", uniform(-1, 1)),
    ("ndtr", uniform(-10, 10)),
    ("log_ndtr", uniform(-40, 10)),
    ("ndtri", uniform(0, 1)),
    ("gamma", uniform(-20, 30)),
    ("gammaln", uniform(0, 100)),
    ("digamma", uniform(0, 30)),
    ("polygamma", order(1, 0, 30)),
    ("beta", pair(0, 20, 0, 20)),
    ("betaln", pair(0, 50, 0, 50)),
    ("xlogy", pair(0, 10, 0, 10)),
    ("xlog1py", pair(0, 10, -0.9, 10)),
    ("entr", uniform(0, 10)),
    ("logit", uniform(0, 1)),
    ("expit", uniform(-20, 20)),
    ("log_expit", uniform(-20, 20)),
    ("rgamma", uniform(-20, 30)),
    ("gammainc", pair(0.1, 20, 0, 30)),
    ("gammaincc", pair(0.1, 20, 0, 30)),
    ("betainc", lambda n: (_rng.uniform(0.1, 10, n), _rng.uniform(0.1, 10, n),
                           _rng.uniform(0, 1, n))),
    ("i0", uniform(-50, 50)),
    ("i0e", uniform(-50, 50)),
    ("i1", uniform(-50, 50)),
    ("i1e", uniform(-50, 50)),
    ("exp1", uniform(0, 50)),
    ("expi", uniform(-50, 50)),
    ("expn", order(3, 0, 50)),
    ("zeta", pair(1.1, 20, 0.1, 20)),
    ("j0", uniform(-50, 50)),
    ("j1", uniform(-50, 50)),
    ("y0", uniform(0, 50)),
    ("y1", uniform(0, 50)),
    ("jv", order(2.5, 0, 50)),
    ("yv", order(2.5, 0, 50)),
    ("iv", order(2.5, 0, 50)),
    ("ive", order(2.5, 0, 50)),
    ("dawsn", uniform(-10, 10)),
    ("spence", uniform(0, 10)),
    ("factorial", uniform(0, 100)),
    ("comb", pair(0, 50, 0, 50)),
    ("poch", pair(0.1, 20, -5, 5)),
    ("boxcox", pair(0.1, 10, -2, 2)),
    ("boxcox1p", pair(0, 10, -2, 2)),
]


def rows(names=None, rounds=15, min_sample=0.01, budget=10.0, n=N):
    """``[(name, tracegrad seconds, SciPy seconds)]``: medians per call."""
    import scipy.special as sc  # lazy: the reference, only when timing

    import tracegrad.scipy.special as ts  # lazy: after the sibling import above

    out = []
    for name, inputs in FUNCTIONS:
        if names and not any(s in name for s in names):
            continue
        args = inputs(n)
        ours, theirs = getattr(ts, name), getattr(sc, name)
        # (a sanity check that both compute the same function; the accuracy
        # tests are in tests/test_scipy_special.py: near a zero the error is absolute)
        np.testing.assert_allclose(ours(*args), theirs(*args), rtol=1e-11, atol=1e-14,
                                   equal_nan=True, err_msg=name)
        samples = time_round_robin(
            {"tracegrad": lambda: ours(*args), "scipy": lambda: theirs(*args)},
            rounds, min_sample, budget)
        out.append((name, summarize(samples["tracegrad"])[0], summarize(samples["scipy"])[0]))
    return out


def unlisted():
    """Public functions of ``tracegrad.scipy.special`` with no row here that
    SciPy also has (the ones the table should time)."""
    import scipy.special as sc  # lazy: the reference

    import tracegrad.scipy.special as ts  # lazy: after the sibling import above

    listed = {name for name, _ in FUNCTIONS}
    return sorted(n for n in getattr(ts, "__all__", dir(ts))
                  if not n.startswith("_") and n not in listed and hasattr(sc, n))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few, short samples (smoke test)")
    p.add_argument("--rounds", type=int, default=15, help="samples per function (default 15)")
    p.add_argument("--budget", type=float, default=10.0, help="seconds of sampling per row")
    p.add_argument("--only", help="comma-separated substrings of the function names to time")
    p.add_argument("--markdown", action="store_true", help="print the README's table")
    args = p.parse_args(argv)
    n, rounds, budget = (10_000, 5, 0.5) if args.quick else (N, args.rounds, args.budget)
    names = args.only.split(",") if args.only else None
    table = rows(names, rounds=rounds, budget=budget, n=n)
    if args.markdown:
        print(f"| function ({n:.0e} float64) | tracegrad | SciPy | ratio |")
        print("|---|---|---|---|")
        for name, ours, theirs in table:
            print(f"| `{name}` | {ours * 1e3:.1f} ms | {theirs * 1e3:.1f} ms | "
                  f"{ours / theirs:.2f} |")
    else:
        for name, ours, theirs in table:
            print(f"{name:12s} tracegrad {ours * 1e3:8.2f} ms  scipy {theirs * 1e3:8.2f} ms  "
                  f"ratio {ours / theirs:5.2f}")
    over = [name for name, ours, theirs in table if ours > theirs]
    print(f"\n{len(table) - len(over)}/{len(table)} at most 1.0x SciPy"
          + (f"; over: {', '.join(over)}" if over else ""))
    missing = unlisted()
    if missing:
        print(f"not timed (no row in FUNCTIONS): {', '.join(missing)}")


if __name__ == "__main__":
    main()
