"""The glibc malloc tuning applied at import, and its opt-outs."""
import subprocess
import sys

import pytest

from tracegrad import _allocator

PROBE = "import tracegrad._allocator as a, tracegrad; print(a.tuned)"


def run(env_extra):
    import os

    env = {k: v for k, v in os.environ.items()
           if k not in ("TRACEGRAD_MALLOC_TUNING", "MALLOC_MMAP_THRESHOLD_",
                        "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def glibc():
    import ctypes

    try:
        ctypes.CDLL(None).gnu_get_libc_version
    except (OSError, AttributeError):
        return False
    return True


@pytest.mark.skipif(not glibc(), reason="malloc tuning applies to glibc only")
def test_applied_by_default():
    assert run({}) == "True"


@pytest.mark.parametrize(
    "env",
    [
        {"TRACEGRAD_MALLOC_TUNING": "0"},
        {"MALLOC_TRIM_THRESHOLD_": "1000000"},
        {"MALLOC_MMAP_THRESHOLD_": "1000000"},
        {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"},
    ],
)
def test_user_settings_win(env):
    assert run(env) == "False"


def test_tune_is_a_no_op_when_disabled():
    assert _allocator.tune({"TRACEGRAD_MALLOC_TUNING": "0"}) is False
