"""Docstrings of the public API: numpydoc sections present, examples correct.

* Every public callable of ``tracegrad``, ``tracegrad.numpy``,
  ``tracegrad.numpy.linalg``, ``tracegrad.nn``, ``tracegrad.scipy.special``,
  the distributions of ``tracegrad.scipy.stats``, ``tracegrad.tree_util`` and
  ``tracegrad.test_util`` (their ``__all__``; classes, namedtuple result
  types, modules and constants excluded) has a docstring with a
  ``Parameters`` and a ``Returns`` section.
* Every ``Raises`` section names real exception types.
* Every ``Examples`` section holds doctest examples, and every docstring
  example in the modules that define the public API runs and prints what it
  shows (``doctest`` with ELLIPSIS and NORMALIZE_WHITESPACE).

All of it runs in well under a second after import.
"""
import builtins
import doctest
import importlib
import inspect
import re

import numpy as np
import pytest

import tracegrad
import tracegrad.nn
import tracegrad.numpy
import tracegrad.numpy.linalg
import tracegrad.scipy.integrate
import tracegrad.scipy.signal
import tracegrad.scipy.special
import tracegrad.scipy.stats
import tracegrad.test_util
import tracegrad.torch.testing
import tracegrad.torch.viz
import tracegrad.tree_util
import tracegrad.viz

PUBLIC_MODULES = (
    tracegrad,
    tracegrad.numpy,
    tracegrad.numpy.linalg,
    tracegrad.nn,
    tracegrad.scipy.special,
    tracegrad.scipy.signal,
    tracegrad.scipy.integrate,
    tracegrad.scipy.stats,  # sem, rankdata, mode (gaussian_kde and ModeResult are classes)
    *(getattr(tracegrad.scipy.stats, _d) for _d in tracegrad.scipy.stats.__all__
      if inspect.ismodule(getattr(tracegrad.scipy.stats, _d))),
    tracegrad.tree_util,
    tracegrad.test_util,
    tracegrad.viz,
    tracegrad.torch.viz,
    tracegrad.torch.testing,
    tracegrad.lax,
    tracegrad.torch.linalg,
    tracegrad.torch.nn.functional,
)


def _public_callables():
    """``(qualified public name, object)`` for every public function."""
    out = []
    for mod in PUBLIC_MODULES:
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
                continue  # subpackages, classes (namedtuple results too), constants
            out.append((f"{mod.__name__}.{name}", obj))
    return out


PUBLIC = _public_callables()


def _defining_modules():
    """The public modules and every module that defines a public callable."""
    names = {m.__name__ for m in PUBLIC_MODULES}
    for _, obj in PUBLIC:
        mod = getattr(obj, "__module__", None)
        if mod and mod.split(".")[0] == "tracegrad":
            names.add(mod)
    return sorted(names)


DOC_MODULES = _defining_modules()


def _section(doc, title):
    """Body of the numpydoc section ``title`` (None if absent)."""
    m = re.search(rf"^{title}\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.M | re.S)
    return None if m is None else m.group(1)


def test_public_api_is_not_empty():
    assert len(PUBLIC) > 150
    assert "tracegrad.grad" in dict(PUBLIC)


def test_every_public_callable_documents_parameters_and_returns():
    missing = []
    for qualname, obj in PUBLIC:
        doc = inspect.getdoc(obj) or ""
        lacks = [s for s in ("Parameters", "Returns") if _section(doc, s) is None]
        if lacks:
            missing.append(f"{qualname}: no {' or '.join(lacks)} section")
    assert not missing, (
        f"{len(missing)} public callables lack numpydoc sections:\n" + "\n".join(missing)
    )


def _resolve_exception(name, obj):
    """The exception class a ``Raises`` entry names, or None."""
    if hasattr(builtins, name):
        return getattr(builtins, name)
    if "." in name:
        mod, _, attr = name.rpartition(".")
        try:
            return getattr(importlib.import_module(mod), attr, None)
        except ImportError:
            return None
    return getattr(obj, "__globals__", {}).get(name)


def test_raises_sections_name_exception_types():
    bad = []
    for qualname, obj in PUBLIC:
        body = _section(inspect.getdoc(obj) or "", "Raises")
        if body is None:
            continue
        entries = [line.strip() for line in body.splitlines() if line and not line[0].isspace()]
        if not entries:
            bad.append(f"{qualname}: empty Raises section")
        for entry in entries:
            for name in (n.strip() for n in entry.split(",")):
                exc = _resolve_exception(name, obj)
                if not (inspect.isclass(exc) and issubclass(exc, BaseException)):
                    bad.append(f"{qualname}: Raises names {name!r}, not an exception type")
    assert not bad, "\n".join(bad)


def test_examples_sections_hold_doctests():
    bad = []
    for qualname, obj in PUBLIC:
        body = _section(inspect.getdoc(obj) or "", "Examples")
        if body is not None and ">>>" not in body:
            bad.append(qualname)
    assert not bad, "Examples sections without doctest examples: " + ", ".join(bad)


@pytest.mark.parametrize("modname", DOC_MODULES)
def test_doctests(modname):
    module = importlib.import_module(modname)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    report = []
    # NumPy's default print options, whatever other tests set
    with np.printoptions(precision=8, threshold=1000, edgeitems=3, linewidth=75,
                         suppress=False, floatmode="maxprec", sign="-", legacy=False):
        for test in finder.find(module, modname):
            runner.run(test, out=report.append, clear_globs=True)
    assert runner.failures == 0, f"doctest failures in {modname}:\n" + "".join(report)
