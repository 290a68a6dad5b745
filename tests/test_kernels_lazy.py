"""Numba kernels are lazy: nothing compiles (or imports Numba) before it runs.

Each check runs in a fresh subprocess, since compiled kernels are process
state.  ``Kernel.__call__`` is wrapped there to record which kernels ran;
a kernel whose ``compiled`` dispatcher exists without having been called
was compiled eagerly.  Raw Numba dispatchers in ``tracegrad.primitives.*``
modules (the vectorized math kernels) count as kernels too.  Finally every
compiled signature must be float32/float64 (integer arrays only as index
arrays) and C-contiguous.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import gc, json, sys
import numpy as np

def all_kernels():
    # Kernel instances anywhere, plus raw Numba dispatchers of tracegrad.primitives.*
    from tracegrad.primitives.kernels import Kernel
    found = {}
    for o in gc.get_objects():
        if type(o) is Kernel:  # type(), not isinstance(): dead weak proxies raise
            found[o.pyfunc.__module__ + "." + o.__name__] = o
    if "numba" in sys.modules:
        from numba.core.dispatcher import Dispatcher
        for name, mod in list(sys.modules.items()):
            if name.startswith("tracegrad.primitives") and mod is not None:
                for attr, v in vars(mod).items():
                    if isinstance(v, Dispatcher) and getattr(v, "py_func", None) is not None:
                        if v.py_func.__module__ == name:
                            found[name + "." + attr] = v
    return found

def dispatcher(k):
    from tracegrad.primitives.kernels import Kernel
    return k.compiled if isinstance(k, Kernel) else k

def compiled_names():
    out = []
    for name, k in all_kernels().items():
        d = dispatcher(k)
        if d is not None and len(d.signatures) > 0:
            out.append(name)
    return sorted(out)

def spy_on_kernels():
    from tracegrad.primitives.kernels import Kernel
    called = set()
    original = Kernel.__call__
    def recording_call(self, *args):
        called.add(self.pyfunc.__module__ + "." + self.__name__)
        return original(self, *args)
    Kernel.__call__ = recording_call
    return called

def raw_dispatcher_names():
    from tracegrad.primitives.kernels import Kernel
    return sorted(n for n, k in all_kernels().items() if not isinstance(k, Kernel))
"""


def run(code, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_does_not_import_numba():
    res = run("""
    res = {}
    import tracegrad
    res["after_import_tracegrad"] = "numba" in sys.modules
    import tracegrad.numpy, tracegrad.numpy.linalg, tracegrad.nn, tracegrad.tree_util
    import tracegrad.transforms, tracegrad.primitives, tracegrad.interpreters
    res["after_public_modules"] = "numba" in sys.modules
    res["compiled"] = compiled_names()
    print(json.dumps(res))
    """)
    assert not res["after_import_tracegrad"], "import tracegrad imports numba"
    assert not res["after_public_modules"], "importing the public modules imports numba"
    assert res["compiled"] == []


@pytest.mark.parametrize("n", [16, 100_000])
def test_first_gradient_compiles_only_the_kernels_it_runs(n):
    res = run(f"""
    import tracegrad as tg, tracegrad.numpy as tnp
    called = spy_on_kernels()
    x = np.linspace(-1.0, 1.0, {n})
    g = tg.grad(lambda x: tnp.sum(tnp.sin(x) * x))(x)
    ok = bool(np.allclose(g, np.sin(x) + x * np.cos(x)))
    res = {{"ok": ok, "called": sorted(called), "compiled": compiled_names(),
            "raw": raw_dispatcher_names(), "numba": "numba" in sys.modules}}
    print(json.dumps(res))
    """)
    assert res["ok"]
    eager = sorted(set(res["compiled"]) - set(res["called"]) - set(res["raw"]))
    assert not eager, f"compiled without being called: {eager}"
    if not res["called"] and not res["compiled"]:
        assert not res["numba"], "numba was imported although no kernel ran"


def test_kernels_compile_for_float32_and_float64_c_contiguous_only():
    res = run("""
    import tracegrad as tg, tracegrad.numpy as tnp, tracegrad.nn as nn
    called = spy_on_kernels()
    rng = np.random.default_rng(0)
    base_v = rng.standard_normal(4096)
    base_m = rng.standard_normal((256, 64))
    idx = rng.integers(0, 4096, 8192)

    def s(v):
        return tnp.sum(v)

    work = [
        lambda x, m: s(tnp.tanh(x) * tnp.sin(x) + tnp.exp(-x * x) + tnp.cos(x)),
        lambda x, m: s(nn.sigmoid(x) + nn.softplus(x) + nn.log_sigmoid(x) + nn.relu(x)),
        lambda x, m: s(nn.gelu(x) + nn.gelu(x, approximate=False) + nn.silu(x)),
        lambda x, m: s(nn.log_softmax(m, axis=1)) + s(nn.softmax(m, axis=0) ** 2)
                     + s(nn.logsumexp(m, axis=1)),
        lambda x, m: s(tnp.tanh(m + x[:64])) + s(m * x[:64]),
        lambda x, m: s(tnp.max(m, axis=1)) + s(tnp.min(m, axis=0)) + s(tnp.cumsum(m, axis=0))
                     + s(tnp.cumprod(1.0 + 0.001 * m, axis=1)),
        lambda x, m: s(tnp.take(x, idx) ** 2) + s(x[idx[:100]] * 3.0),
    ]
    for dt in (np.float32, np.float64):
        x, m = base_v.astype(dt), base_m.astype(dt)
        xs = np.repeat(x, 2)[::2]  # strided views
        mt = np.ascontiguousarray(m.T).T  # transposed view
        for f in work:
            for args in ((x, m), (xs, mt)):
                tg.grad(f, argnums=(0, 1))(*args)
                tg.jvp(f, args, args)
            tg.jvp(tg.grad(f), (x, m), (x, m))
    # integer inputs go through float kernels
    ints = np.arange(4096)
    tnp.tanh(ints); nn.sigmoid(ints); nn.softplus(ints); tnp.exp(ints % 7)

    from numba.core import types
    report = {}
    for name, k in all_kernels().items():
        d = dispatcher(k)
        if d is None:
            continue
        sigs = []
        for sig in d.signatures:
            sigs.append([[str(a.dtype), a.layout, a.ndim] if isinstance(a, types.Array)
                         else ["scalar", str(a)] for a in sig])
        if sigs:
            report[name] = sigs
    print(json.dumps({"signatures": report, "called": sorted(called)}))
    """)
    sigs = res["signatures"]
    assert sigs, "no kernel compiled at all (the workloads should run some)"
    bad = []
    for name, signatures in sigs.items():
        per_ranks = {}
        for sig in signatures:
            arrays = [a for a in sig if a[0] != "scalar"]
            # float32/float64 data (float64 scratch buffers for float32 data are
            # fine), int64 index arrays, C-contiguous
            if any(a[0] not in ("float32", "float64", "int64") for a in arrays):
                bad.append(f"{name}: {sig}")
            if any(a[1] != "C" for a in arrays):
                bad.append(f"{name} (not C-contiguous): {sig}")
            if any("complex" in a[1] or "float16" in a[1] for a in sig if a[0] == "scalar"):
                bad.append(f"{name}: {sig}")
            ranks = tuple(a[2] for a in arrays)
            per_ranks.setdefault(ranks, []).append(sig)
        for ranks, group in per_ranks.items():
            if len(group) > 2:
                bad.append(f"{name}: {len(group)} signatures for array ranks {ranks}: {group}")
    assert not bad, "kernel signatures beyond float32/float64 C-contiguous arrays:\n" + "\n".join(bad)
