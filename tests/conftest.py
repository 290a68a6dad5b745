"""Shared fixtures of the project-level test suite.

Every test runs under a check that no interpreter state survives it: after
the test (passed or failed) the current trace must be the eval trace again,
which is what "exceptions leave no interpreter state behind" means.
"""
import importlib.util
import pathlib
import sys

import os
import zlib

import numpy as np
import pytest
from hypothesis import settings

from tracegrad.core import EvalTrace, current_trace

# HYPOTHESIS_PROFILE=ci (set by .ci/run): the same examples on every run, so a
# CI run cannot fail on an example no earlier run saw; locally each run draws
# new ones (and replays failures from the example database).
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session", autouse=True)
def _jit_cache_dir(tmp_path_factory):
    """jit's compile cache in a folder of this session, not the user's ~/.cache
    (subprocesses started by tests inherit it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRACEGRAD_CACHE_DIR", str(tmp_path_factory.mktemp("tracegrad-jit-cache")))
        yield


@pytest.fixture(autouse=True)
def _no_interpreter_state_left():
    before = current_trace()
    yield
    after = current_trace()
    assert after is before and type(after) is EvalTrace and after.level == 0, (
        f"a test left interpreter state behind: the current trace is {after!r}, "
        f"was {before!r} before the test"
    )


@pytest.fixture(autouse=True)
def _module_generators_seeded_per_test(request, monkeypatch):
    """Each test sees its module's random generators (module-level ``rng``,
    ``RNG``) freshly seeded from its own node id, so its draws do not depend
    on which tests ran before it in the same worker (pytest-xdist hands
    tests to workers in a different order on every run)."""
    module = getattr(request, "module", None)
    if module is None:
        return
    seed = zlib.crc32(request.node.nodeid.encode())
    for name, value in list(vars(module).items()):
        if isinstance(value, np.random.Generator):
            monkeypatch.setattr(module, name, np.random.default_rng(seed))
        elif isinstance(value, np.random.RandomState):
            monkeypatch.setattr(module, name, np.random.RandomState(seed))


@pytest.fixture
def rng():
    """A seeded generator, so every failure reproduces."""
    return np.random.default_rng(0)


def load_grad_table():
    """The module ``tests/test_grad_table.py`` (its ``TABLE`` of rows), loaded once.

    ``test_registry.py`` and ``test_numpy_protocol.py`` run their own checks
    over the same rows.
    """
    name = "_tracegrad_tests_grad_table"
    mod = sys.modules.get(name)
    if mod is None:
        path = pathlib.Path(__file__).with_name("test_grad_table.py")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def grad_table():
    return load_grad_table()


def pytest_generate_tests(metafunc):
    # ``table_row``: every row of the gradient table; ``numpy_row``: the rows
    # whose NumPy spelling also runs on tracers
    for argname, keep in (("table_row", lambda r: True), ("numpy_row", lambda r: r.numpy_dispatch)):
        if argname in metafunc.fixturenames:
            rows = [r for r in load_grad_table().TABLE if keep(r)]
            metafunc.parametrize(argname, rows, ids=[r.id for r in rows])
