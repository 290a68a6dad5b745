"""The on-disk cache of ``jit``'s generated modules, so Numba's own cache
(``cache=True``) hits in a new process.

:func:`load_module` runs one generated module (all compiled segments and the
driver of a program, see :mod:`tracegrad.transforms.codegen`) from a file
``<cache dir>/<key>.py``.  Numba keys its on-disk cache (the ``.nbi`` index
and ``.nbc`` data files, in ``__pycache__`` beside the module or under
``NUMBA_CACHE_DIR``) on that file's path and stamp (a hash of its contents
in Numba 0.68, its mtime and size in older versions) and on each function's
bytecode, so the second process that builds the same program finds the
machine code instead of compiling it.

Where
-----
``TRACEGRAD_CACHE_DIR`` if set (an empty value turns the file cache off),
else ``$XDG_CACHE_HOME/tracegrad/jit`` (``~/.cache/tracegrad/jit``).  A
directory that cannot be created or written makes :func:`load_module` run
the module from memory, as before this cache existed, with one
``RuntimeWarning`` per process.  The variable is read on every compile.

Key
---
``<key>`` is a SHA-256 of the module source and of everything else that
changes the machine code: tracegrad's, NumPy's, Numba's and Python's
versions, the platform, the contents of the source files of the compiled
functions the module calls (``fexp``, ``ftanh``... in
:mod:`~tracegrad.transforms.codegen_math`, so editing them invalidates the
cache without a version bump), and the values of the *frozen* globals
(Numba compiles a global's value into the machine code, so a constant the
source names by ``K_3`` is part of the key by value).  Values only the
Python driver reads (the IR's constants, impls, params dicts) are not in
the key: they are put into the module's namespace from the current process
before it runs, so two programs differing only in constant values share
one file and one compiled segment.

Trust
-----
The first line of the file is ``# tracegrad jit module <key>``; the file is
used only if its whole text equals the expected text (header plus source),
otherwise (truncated, edited, another key's content) it is rewritten.  Files
are written to a temporary name and published with ``os.link`` (the first
writer wins, so a valid file is never replaced and an mtime stamp of
older Numba versions stays valid) or ``os.replace`` over an invalid one: a reader sees a whole
file or none.  Numba's index and data files are read through a guard: one
that fails to load (garbage, truncated, from an incompatible build) is
discarded and the function compiled again, never a crash.  Two processes
compiling the same program at once both succeed; at worst both compile it.

Generated decorators are written ``@numba.njit(cache=CACHE, ...)``;
:func:`load_module` sets ``CACHE`` to whether the module runs from a file.
"""
import hashlib
import importlib.metadata
import os
import platform
import sys
import tempfile
import types
import warnings
from functools import lru_cache

import numpy as np

__all__ = ["cache_dir", "load_module", "module_key", "HEADER"]

#: The first line of every cached module, followed by its key.
HEADER = "# tracegrad jit module "

_warned = set()


def cache_dir():
    """The cache folder (``TRACEGRAD_CACHE_DIR`` or the user cache default),
    or None when ``TRACEGRAD_CACHE_DIR`` is set to an empty string."""
    env = os.environ.get("TRACEGRAD_CACHE_DIR")
    if env is not None:
        return os.path.abspath(os.path.expanduser(env)) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tracegrad", "jit")


@lru_cache(maxsize=None)
def _environment():
    import numba  # lazy: heavy, loaded by the code generator anyway

    try:
        version = importlib.metadata.version("tracegrad")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return "\n".join((f"tracegrad {version}", f"numba {numba.__version__}",
                      f"numpy {np.__version__}", f"python {sys.version}",
                      f"platform {sys.platform} {platform.machine()}"))


@lru_cache(maxsize=None)
def _file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _value_digest(value):
    """A text fixing ``value`` for the key, or None if it has no stable one."""
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, np.generic):
        return f"{value.dtype.str}:{value.tobytes().hex()}"
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return None
        data = np.ascontiguousarray(value).tobytes()
        return f"array {value.dtype.str} {value.shape}:{hashlib.sha256(data).hexdigest()}"
    if isinstance(value, np.dtype):
        return f"dtype {value.str}"
    if isinstance(value, tuple):
        parts = [_value_digest(v) for v in value]
        return None if None in parts else f"tuple({', '.join(parts)})"
    return None


def _callee_digest(value):
    """For a compiled (Numba) function or a module: the contents of its source file."""
    py_func = getattr(value, "py_func", None)
    path = getattr(py_func, "__code__", None) and py_func.__code__.co_filename
    if path is None and type(value) is type(sys):
        return f"module {value.__name__}"
    if path and os.path.isfile(path):
        return f"compiled {py_func.__qualname__} in {_file_digest(path)}"
    return None


def module_key(source, namespace, frozen):
    """The hex SHA-256 naming ``source``'s cache file, or None if some global
    compiled into its machine code has no stable digest (then the module
    is not cached).

    Parameters
    ----------
    source : str
    namespace : dict
        The module's globals; the compiled functions among them key by the
        contents of their source files.
    frozen : iterable of str
        Names of the globals whose *values* the compiled code freezes.
    """
    h = hashlib.sha256()
    h.update(_environment().encode())
    for name in sorted(namespace):
        value = namespace[name]
        digest = _value_digest(value) if name in frozen else _callee_digest(value)
        if digest is None and name in frozen:
            return None
        if digest is not None:
            h.update(f"\n{name} = {digest}".encode())
    h.update(b"\n\n")
    h.update(source.encode())
    return h.hexdigest()


def _warn_once(what, err):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"tracegrad.jit: cannot use the compile cache folder {what!r} ({err}); "
                      "compiled programs are kept in memory only and compile again in every "
                      "process.  Set TRACEGRAD_CACHE_DIR to a writable folder (or to an empty "
                      "string to turn the cache off without this warning).",
                      RuntimeWarning, stacklevel=4)


def _read(path):
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _publish(path, text):
    """Make ``path`` hold ``text`` (atomically); False if the folder is unwritable."""
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        try:
            os.link(tmp, path)  # first writer wins: never replace a file another process uses
        except FileExistsError:
            if _read(path) != text:  # invalid (stale, truncated): replace it
                os.replace(tmp, path)
                tmp = None
        except OSError:  # no hard links on this filesystem
            os.replace(tmp, path)
            tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _file_for(source, namespace, frozen):
    """The path of a valid cached file holding ``source``, or None (no cache)."""
    folder = cache_dir()
    if folder is None:
        return None
    key = module_key(source, namespace, frozen)
    if key is None:
        return None
    path = os.path.join(folder, f"{key}.py")
    text = f"{HEADER}{key}\n{source}"
    if _read(path) == text:
        return path
    try:
        os.makedirs(folder, exist_ok=True)
        _publish(path, text)
    except OSError as err:
        _warn_once(folder, err)
        return None
    return path if _read(path) == text else None


class _GuardedCache:
    """A Numba dispatcher's on-disk cache whose load and save never raise:
    an index or data file that fails to load counts as a miss (and the index
    is reset, so the fresh compile is saved), a failed save is skipped."""

    def __init__(self, cache):
        self._cache = cache

    def __getattr__(self, name):
        return getattr(self._cache, name)

    def load_overload(self, sig, target_context):
        try:
            return self._cache.load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - any unreadable cache entry is a miss
            try:
                self._cache.flush()
            except Exception:  # noqa: BLE001
                pass
            return None

    def save_overload(self, sig, data):
        try:
            self._cache.save_overload(sig, data)
        except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache
            pass


def _guard_caches(namespace, path):
    """Guard the caches of the compiled functions the module at ``path`` defined."""
    for value in list(namespace.values()):
        py_func = getattr(value, "py_func", None)
        cache = getattr(value, "_cache", None)
        if (cache is not None and not isinstance(cache, _GuardedCache)
                and getattr(getattr(py_func, "__code__", None), "co_filename", None) == path):
            value._cache = _GuardedCache(cache)


def load_module(source, namespace, frozen=(), driver=None):
    """Run ``source`` as a module and return its globals.

    The module runs from its cache file when the cache folder is usable
    (``CACHE = True`` in its globals, so ``njit(cache=CACHE)`` persists the
    machine code), else from memory (``CACHE = False``).

    Parameters
    ----------
    source : str
        The module source; its compiled functions are decorated
        ``@numba.njit(cache=CACHE, ...)``.
    namespace : dict
        The globals its compiled functions may read (helpers, constants);
        the compiled helpers among them key the file by their source files.
    frozen : iterable of str
        The names in ``namespace`` whose values Numba compiles in (part of
        the key by value, see the module docstring).
    driver : dict, optional
        Globals only its Python code reads (the IR's constants, impls,
        params dicts): not part of the key.

    Returns
    -------
    dict
        The module's globals after it ran (a new dict; ``__name__`` is
        ``tracegrad_jit_<key>`` when it ran from a file).
    """
    frozen = frozenset(frozen)
    path = _file_for(source, namespace, frozen)
    module_globals = {**namespace, **(driver or {}), "CACHE": path is not None}
    if path is None:
        exec(compile(source, "<tracegrad.jit module>", "exec"), module_globals)  # noqa: S102
        return module_globals
    key = os.path.basename(path)[:-3]
    name = f"tracegrad_jit_{key}"
    if name not in sys.modules:
        # A module Numba can import by name: a function loaded from its cache
        # rebuilds its environment from ``sys.modules[fn.__module__]``.  It
        # holds the compiled side's globals only (one per key, small), so
        # a program's constants are freed with the program.
        module = types.ModuleType(name)
        module.__file__ = path
        module.__dict__.update(namespace)
        module.CACHE = True
        sys.modules[name] = module
    module_globals.update(__name__=name, __file__=path)
    text = f"{HEADER}{key}\n{source}"
    exec(compile(text, path, "exec"), module_globals)  # noqa: S102 - generated by codegen
    _guard_caches(module_globals, path)
    return module_globals
