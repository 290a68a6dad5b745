"""jit's on-disk compile cache (transforms/compile_cache.py): a second process
loads the machine code instead of compiling; a truncated, edited or stale
module file and garbage in Numba's index or data files are rebuilt, never
trusted; two processes compiling at once both succeed; an unusable folder
falls back to memory with one warning; ``TRACEGRAD_CACHE_DIR`` is obeyed.

Only the cross-process tests start processes (three); the corruption tests
load the cached module again in this process (a new jit object re-reads the
file and Numba's index, as a new process would).
"""
import json
import math
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.transforms import compile_cache

# A gradient with a closed-over constant: the module holds a compiled segment
# and a driver reading the constant from the process's namespace.
PROGRAM = """
import numpy as np
import tracegrad as tg
import tracegrad.numpy as tnp

W = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


def loss(x):
    h = tnp.tanh(x @ W)
    return tnp.sum(h * h) + tnp.sum(tnp.exp(-x))


def measure():
    f = tg.jit(tg.grad(loss))
    x = np.arange(6.0).reshape(2, 3) / 7.0
    g = f(x)
    run = f.lower(x)._fn
    stats = {}
    for name, fn in sorted(run.__globals__.items()):
        code = getattr(getattr(fn, "py_func", None), "__code__", None)
        if code is not None and code.co_filename == run.__code__.co_filename:
            stats[name] = [sum(fn.stats.cache_hits.values()), sum(fn.stats.cache_misses.values())]
    return {"g": np.asarray(g).tolist(), "stats": stats, "file": run.__code__.co_filename}
"""
SCRIPT = PROGRAM + "\nimport json\nprint(json.dumps(measure()))\n"


def _want():
    x = np.arange(6.0).reshape(2, 3) / 7.0
    w = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    return np.asarray(tg.grad(lambda a: tnp.sum(tnp.tanh(a @ w) ** 2) + tnp.sum(tnp.exp(-a)))(x))


WANT = _want()


def _check(got):
    np.testing.assert_allclose(got["g"], WANT, rtol=1e-12)
    assert got["stats"], "no compiled function in the cached module"
    return got


def _start(folder):
    env = dict(os.environ, TRACEGRAD_CACHE_DIR=str(folder))
    env.pop("NUMBA_CACHE_DIR", None)  # Numba's cache goes to __pycache__ beside the module
    return subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(proc):
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return _check(json.loads(out.strip().splitlines()[-1]))


def _here(folder, monkeypatch):
    """``measure()`` in this process (a new jit, so the module is loaded again)."""
    monkeypatch.setenv("TRACEGRAD_CACHE_DIR", str(folder))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    ns = {}
    exec(PROGRAM, ns)  # noqa: S102 - the test's own program
    return _check(ns["measure"]())


def _hits(got):
    return sum(h for h, _ in got["stats"].values())


def _misses(got):
    return sum(m for _, m in got["stats"].values())


@pytest.fixture(scope="module")
def raced(tmp_path_factory):
    """A cache folder two processes filled at the same time, and what they saw."""
    folder = tmp_path_factory.mktemp("raced")
    procs = [_start(folder) for _ in range(2)]
    return folder, [_finish(p) for p in procs]


def test_two_processes_compiling_at_once_both_succeed(raced):
    folder, got = raced  # (_finish checked both gradients)
    modules = [p for p in folder.iterdir() if p.suffix == ".py"]
    assert len(modules) == 1 and got[0]["file"] == got[1]["file"] == str(modules[0])
    assert not [p for p in folder.iterdir() if p.name.startswith(".tmp-")]
    assert all(_hits(g) + _misses(g) == len(g["stats"]) for g in got)


def test_next_process_loads_instead_of_compiling(raced):
    folder, before = raced
    got = _finish(_start(folder))
    assert _misses(got) == 0 and _hits(got) == len(got["stats"]) >= 1
    module = pathlib.Path(got["file"])
    assert got["file"] == before[0]["file"] and module.parent == folder
    text = module.read_text()
    assert text.startswith(compile_cache.HEADER + module.stem + "\n")
    assert "@numba.njit(cache=CACHE" in text and "\ndef run(" in text
    assert (folder / "__pycache__").is_dir()


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A cache folder holding the program (compiled in this process)."""
    got = _here(tmp_path, monkeypatch)
    module = pathlib.Path(got["file"])
    assert module.parent == tmp_path and _misses(got) >= 1
    return module, module.read_text()


def test_truncated_module_is_rebuilt(cached, monkeypatch):
    module, text = cached
    module.write_text(text[: len(text) // 2])
    got = _here(module.parent, monkeypatch)
    assert module.read_text() == text
    # Numba 0.68 stamps a source file by its contents, so the restored file
    # finds its machine code again; older versions (mtime) compile it again
    assert _hits(got) + _misses(got) >= 1


def test_edited_module_with_a_valid_header_is_not_trusted(cached, monkeypatch):
    module, text = cached
    assert "np.float64(1.0) -" in text  # tanh's derivative
    # same header, same length, wrong code: rewritten, not run (_check checks the gradient)
    module.write_text(text.replace("np.float64(1.0) -", "np.float64(2.0) -"))
    _here(module.parent, monkeypatch)
    assert module.read_text() == text


def test_stale_header_is_rebuilt(cached, monkeypatch):
    module, text = cached
    module.write_text(compile_cache.HEADER + "0" * 64 + "\n" + text.split("\n", 1)[1])
    _here(module.parent, monkeypatch)
    assert module.read_text() == text


@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
def test_garbage_in_numbas_cache_files_is_a_miss(cached, monkeypatch, suffix):
    module, _ = cached
    files = list((module.parent / "__pycache__").glob(module.stem + "*" + suffix))
    assert files
    for f in files:
        f.write_bytes(b"\x80\x04garbage, not a pickle" * 3)
    assert _misses(_here(module.parent, monkeypatch)) >= 1
    again = _here(module.parent, monkeypatch)  # the fresh compile was saved over the garbage
    assert _misses(again) == 0 and _hits(again) >= 1


# ---- in this process


def _module_files(folder):
    return sorted(p for p in pathlib.Path(folder).glob("*.py"))


def test_env_var_is_respected_and_constants_come_from_this_process(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEGRAD_CACHE_DIR", str(tmp_path))
    x = np.arange(4.0)

    def make(c):
        return tg.jit(lambda a: tnp.sin(a) * c + 1.0)

    c1, c2 = np.array([1.0, 2.0, 3.0, 4.0]), np.array([-1.0, 0.5, 0.25, 8.0])
    f1, f2 = make(c1), make(c2)
    np.testing.assert_allclose(f1(x), np.sin(x) * c1 + 1.0, rtol=1e-14)
    np.testing.assert_allclose(f2(x), np.sin(x) * c2 + 1.0, rtol=1e-14)
    files = _module_files(tmp_path)
    assert len(files) == 1  # same source, constants injected: one file
    text = files[0].read_text()
    assert text == compile_cache.HEADER + files[0].stem + "\n" + f1.lower(x).source


def test_empty_env_var_turns_the_file_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEGRAD_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    assert compile_cache.cache_dir() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = tg.jit(lambda a: tnp.cos(a) - 2.0)
        np.testing.assert_allclose(f(np.ones(3)), np.cos(np.ones(3)) - 2.0)
    assert f.lower(np.ones(3))._fn.__globals__["CACHE"] is False
    assert not list(tmp_path.rglob("*.py"))


def test_default_folder_is_under_the_user_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TRACEGRAD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compile_cache.cache_dir() == os.path.join(str(tmp_path), "tracegrad", "jit")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert compile_cache.cache_dir() == os.path.join(os.path.expanduser("~"), ".cache",
                                                     "tracegrad", "jit")


def test_unwritable_folder_falls_back_to_memory_with_one_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("TRACEGRAD_CACHE_DIR", str(blocker / "jit"))  # (root can write anywhere)
    monkeypatch.setattr(compile_cache, "_warned", set())
    x = np.linspace(0.0, 1.0, 5)
    with pytest.warns(RuntimeWarning, match="TRACEGRAD_CACHE_DIR") as rec:
        got = tg.jit(lambda a: tnp.exp(a) * 3.0)(x)
    assert len(rec) == 1
    np.testing.assert_allclose(got, np.exp(x) * 3.0, rtol=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = tg.jit(lambda a: tnp.exp(a) * 4.0)(x)
    np.testing.assert_allclose(got, np.exp(x) * 4.0, rtol=1e-14)


def test_key_covers_frozen_values_not_driver_values():
    src = "def run(x):\n    return x\n"
    key = compile_cache.module_key
    base = key(src, {"K_1": math.inf, "params": {"a": 1}}, {"K_1"})
    assert base == key(src, {"K_1": math.inf, "params": {"a": 2}}, {"K_1"})
    assert base != key(src, {"K_1": math.nan, "params": {"a": 1}}, {"K_1"})
    assert base != key(src + "\n", {"K_1": math.inf, "params": {"a": 1}}, {"K_1"})
    assert key(src, {"K_1": np.arange(3.0)}, {"K_1"}) != key(src, {"K_1": np.arange(3.0) + 1},
                                                               {"K_1"})
    assert key(src, {"K_1": object()}, {"K_1"}) is None  # no stable digest: not cached
