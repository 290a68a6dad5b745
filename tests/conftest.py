"""Shared fixtures of the project-level test suite.

Every test runs under a check that no interpreter state survives it: after
the test (passed or failed) the current trace must be the eval trace again,
which is what "exceptions leave no interpreter state behind" means.
"""
import numpy as np
import pytest

from tracegrad.interpreters.core import EvalTrace, current_trace


@pytest.fixture(autouse=True)
def _no_interpreter_state_left():
    before = current_trace()
    yield
    after = current_trace()
    assert after is before and type(after) is EvalTrace and after.level == 0, (
        f"a test left interpreter state behind: the current trace is {after!r}, "
        f"was {before!r} before the test"
    )


@pytest.fixture
def rng():
    """A seeded generator, so every failure reproduces."""
    return np.random.default_rng(0)
