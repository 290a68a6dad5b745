"""Tensor printing of tracegrad.torch (``tracegrad/torch/_format.py``).

Two parts: exact expected strings (run without PyTorch), and a differential
test against ``repr`` of real PyTorch CPU tensors holding the same values:
hand-picked arrays under every suffix combination and many print options,
plus hypothesis-generated arrays.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tracegrad.torch import _dtype
from tracegrad.torch import _format as tf
from tracegrad.torch._format import format_tensor


def _reset_defaults():
    tf.set_printoptions(profile="default")
    _dtype.set_default_dtype(_dtype.float32)
    try:
        import torch
    except ImportError:
        return
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


@pytest.fixture(autouse=True)
def _restore_options():
    """Every test starts from the default print options and default dtype, and leaves them so."""
    _reset_defaults()
    yield
    _reset_defaults()


f32 = np.float32

# ---------------------------------------------------------------------------
# exact strings, no PyTorch needed

EXACT = [
    (np.array([5.0], f32), {}, "tensor([5.])"),
    (np.array(27.0, f32), {"grad_fn_name": "MeanBackward0"},
     "tensor(27., grad_fn=<MeanBackward0>)"),
    (np.full((2, 2), 27.0, f32), {"grad_fn_name": "MulBackward0"},
     "tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>)"),
    (np.array([1.0, 2.0], f32), {"requires_grad": True}, "tensor([1., 2.], requires_grad=True)"),
    (np.array([1.0, 2.0], f32), {"requires_grad": True, "grad_fn_name": "AddBackward0"},
     "tensor([1., 2.], grad_fn=<AddBackward0>)"),
    (np.array([1, 2, 3], np.int32), {}, "tensor([1, 2, 3], dtype=torch.int32)"),
    (np.zeros((0, 3), f32), {}, "tensor([], size=(0, 3))"),
    (np.zeros((2, 0), f32), {}, "tensor([], size=(2, 0))"),
    (np.zeros(0, np.int64), {}, "tensor([], dtype=torch.int64)"),
    (np.array(np.pi), {}, "tensor(3.1416, dtype=torch.float64)"),
    (np.array(-0.0, f32), {}, "tensor(-0.)"),
    (np.array([1.5, np.nan, -np.inf, -0.0], f32), {}, "tensor([1.5000,    nan,   -inf, -0.0000])"),
    (np.array([1e-5, 1.0], f32), {}, "tensor([1.0000e-05, 1.0000e+00])"),
    (np.array([[1e10, -1.0]], f32), {}, "tensor([[ 1.0000e+10, -1.0000e+00]])"),
    (np.array([1e300, 1e-300]), {}, "tensor([1.0000e+300, 1.0000e-300], dtype=torch.float64)"),
    (np.array([True, False]), {}, "tensor([ True, False])"),
    (np.array([1 + 2j, -0.5 - 1j], np.complex64), {}, "tensor([ 1.0000+2.j, -0.5000-1.j])"),
    (np.array([1 + 2j, -0.5 - 1j]), {},
     "tensor([ 1.0000+2.j, -0.5000-1.j], dtype=torch.complex128)"),
    (np.arange(1001), {}, "tensor([   0,    1,    2,  ...,  998,  999, 1000])"),
    (np.arange(30, dtype=f32) / 3, {},
     "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
     "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
     "        6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667, 8.0000, 8.3333, 8.6667,\n"
     "        9.0000, 9.3333, 9.6667])"),
    (np.arange(8).reshape(2, 2, 2), {},
     "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"),
    (np.arange(12, dtype=f32) * 1.25, {"requires_grad": True},
     "tensor([ 0.0000,  1.2500,  2.5000,  3.7500,  5.0000,  6.2500,  7.5000,  8.7500,\n"
     "        10.0000, 11.2500, 12.5000, 13.7500], requires_grad=True)"),
    # the suffix moves to its own line when it would pass the line width
    (np.arange(6, dtype=f32) * 1.25 + 100, {"requires_grad": True},
     "tensor([100.0000, 101.2500, 102.5000, 103.7500, 105.0000, 106.2500],\n"
     "       requires_grad=True)"),
    (np.full(3, 123456.5), {"grad_fn_name": "MulBackward0"},
     "tensor([123456.5000, 123456.5000, 123456.5000], dtype=torch.float64,\n"
     "       grad_fn=<MulBackward0>)"),
    (np.array([1.0, 2.0]), {"default_dtype": _dtype.float64}, "tensor([1., 2.])"),
    (np.array([1.0, 2.0], f32), {"default_dtype": np.float64},
     "tensor([1., 2.], dtype=torch.float32)"),
    (np.array([1j]), {"default_dtype": _dtype.float64}, "tensor([0.+1.j])"),
    (np.array([1.5, 250.0], f32), {"printoptions": {"precision": 2, "sci_mode": True}},
     "tensor([1.50e+00, 2.50e+02])"),
    (np.arange(6.0, dtype=f32).reshape(2, 3), {"printoptions": {"edgeitems": 0}},
     "tensor([[0., 1., 2.],\n        [3., 4., 5.]], size=(2, 3))"),
    (np.arange(2000), {"printoptions": {"edgeitems": 0}}, "tensor([...], size=(2000,))"),
    (np.arange(2000.0, dtype=f32).reshape(40, 50) / 3,
     {"printoptions": {"precision": 2, "edgeitems": 2}},
     "tensor([[0.00e+00, 3.33e-01,  ..., 1.60e+01, 1.63e+01],\n"
     "        [1.67e+01, 1.70e+01,  ..., 3.27e+01, 3.30e+01],\n"
     "        ...,\n"
     "        [6.33e+02, 6.34e+02,  ..., 6.49e+02, 6.50e+02],\n"
     "        [6.50e+02, 6.50e+02,  ..., 6.66e+02, 6.66e+02]])"),
]


@pytest.mark.parametrize("a, kwargs, expected", EXACT, ids=[repr(e[2][:40]) for e in EXACT])
def test_exact_strings(a, kwargs, expected):
    assert format_tensor(a, **kwargs) == expected


def test_default_dtype_follows_the_module_default():
    _dtype.set_default_dtype(_dtype.float64)
    assert format_tensor(np.array([1.5])) == "tensor([1.5000])"
    assert format_tensor(np.array([1.5], f32)) == "tensor([1.5000], dtype=torch.float32)"
    assert format_tensor(np.array([1j], np.complex64)) == "tensor([0.+1.j], dtype=torch.complex64)"


def test_set_and_get_printoptions():
    assert tf.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                     "linewidth": 80, "sci_mode": None}
    tf.set_printoptions(precision=2, sci_mode=True)
    assert format_tensor(np.array([1.12345], f32)) == "tensor([1.12e+00])"
    # every call sets sci_mode, None included; the other options stay
    tf.set_printoptions(threshold=5)
    assert tf.get_printoptions()["sci_mode"] is None
    assert format_tensor(np.array([1.12345], f32)) == "tensor([1.12])"
    assert format_tensor(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    tf.set_printoptions(profile="default")
    assert format_tensor(np.array([1.12345], f32)) == "tensor([1.1235])"
    assert format_tensor(np.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    tf.set_printoptions(profile="short", precision=3)
    assert tf.get_printoptions() == {"precision": 3, "threshold": 1000, "edgeitems": 2,
                                     "linewidth": 80, "sci_mode": None}
    tf.set_printoptions(profile="full")
    assert tf.get_printoptions()["threshold"] == math.inf
    assert format_tensor(np.zeros(1001, np.int64)).count("0") == 1001
    # the returned dict is a copy
    tf.get_printoptions()["precision"] = 9
    assert tf.get_printoptions()["precision"] == 4


def test_printoptions_context_and_overrides():
    with tf.printoptions(precision=1):
        assert format_tensor(np.array([0.25], f32)) == "tensor([0.2])"
        # a per-call override leaves the module state alone
        got = format_tensor(np.array([0.25], f32), printoptions={"precision": 3})
        assert got == "tensor([0.250])"
        assert tf.get_printoptions()["precision"] == 1
    assert tf.get_printoptions()["precision"] == 4
    with pytest.raises(TypeError, match="unknown print option.*'precison'"):
        format_tensor(np.zeros(1), printoptions={"precison": 2})


def test_unsupported_dtype_is_named():
    with pytest.raises(TypeError, match="uint16"):
        format_tensor(np.zeros(2, np.uint16))


# ---------------------------------------------------------------------------
# differential tests against PyTorch

def _picked_arrays():
    rng = np.random.default_rng(0)
    out = [a for a, _, _ in EXACT]
    floats = [
        [1e-5, 2e-5], [1e-300], [6e-8], [1e8, 2e8], [1e9], [1e100, 1e-100], [1e300, -1e300],
        [-1.5, 2.25, -3.125, 1000.0], [1.0, 1000.0], [1.0, 1000.5], [1e-4], [0.99e-4], [1e8],
        [1.0000001e8], [1.0, -2.0, 300.0], [0.0, 0.0], [-0.0], [0.0, -0.0], [1e7, 3.0],
        [np.nan], [np.inf, -np.inf], [np.nan, 1.5, np.inf], [np.nan, 2.0, -np.inf],
        [0.0, np.nan], [-0.0, 1.0], [-0.0, 0.5], [0.00005], [1.23456789], [0.5, 1.5, 2.5],
        [1.00005, 2.00015], [9.99996, 1.5], [-9.99996, 1.5], [99999.5, 1.0], [9.99995e-5, 1e-3],
        [65504.0, -65504.0], [0.1, 0.2], [1e-310, 1.0], [123456789.0, 1.0], [-1e-5, 1e-5],
    ]
    for vals in floats:
        for dt in (np.float16, np.float32, np.float64):
            with np.errstate(over="ignore", under="ignore"):
                out.append(np.array(vals, dtype=dt))
    for v in (np.nan, -np.inf, -0.0, 0.0, 1e-7, 12345.678, -3.0):
        out += [np.array(v, f32), np.array(v)]
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8):
        info = np.iinfo(dt)
        out += [np.arange(5, dtype=dt), np.array([info.min, info.max], dt), np.array(7, dt),
                np.arange(60, dtype=dt).reshape(3, 4, 5)]
    out += [
        np.array([2 ** 62, -(2 ** 63)]), np.array([1, -(10 ** 18)]),
        np.array([True]), np.array([False, True]), np.array(True), np.array(False),
        np.array([0j]), np.array([-0.0 - 0.0j], np.complex64), np.array([1e-5 + 1e5j]),
        np.array([complex(np.nan, np.inf), 1 - 1j]), np.array(1.5 - 2j), np.array(3j, np.complex64),
        np.array([[1 + 1j, 2.5 - 0.5j], [-3j, 4]], np.complex64),
        np.zeros(0), np.zeros((0, 3), np.int64), np.zeros((2, 0, 4), bool),
        np.zeros(0, np.complex64),
        np.zeros((1, 1, 1), f32), np.ones((1, 1, 1, 1), np.int32), np.full((1, 1, 1), 2.5),
        np.linspace(0, 1, 30, dtype=f32), np.arange(100) / 3.0, np.arange(50) * 10 ** 10,
        np.arange(25, dtype=f32) * 1e10, (np.arange(20) + 1j * np.arange(20)).astype(np.complex64),
        np.arange(1001, dtype=f32), np.arange(2000),
        np.arange(2500, dtype=f32).reshape(50, 50) - 1250.5,
        np.arange(1331, dtype=f32).reshape(11, 11, 11), np.arange(2000.0).reshape(10, 10, 10, 2),
        np.resize([True, False, False], 2000),
        (rng.normal(size=(40, 30)) * (1 + 1j)).astype(np.complex64),
        rng.normal(size=(2, 3, 4)).astype(f32), rng.integers(-50, 50, (2, 2, 2, 2)),
        rng.normal(size=(3, 1, 2)), rng.normal(size=(2, 3, 4, 5)).astype(np.float16),
        (rng.normal(size=(7, 13)) * 1e3).astype(f32), np.arange(24.0, dtype=f32).reshape(4, 6).T,
        rng.normal(size=(3, 40)).astype(f32), rng.integers(0, 10 ** 9, (4, 30)),
    ]
    return out


PICKED = _picked_arrays()

OPTIONS = [
    {"profile": "short"}, {"profile": "full"}, {"precision": 0}, {"precision": 1},
    {"precision": 8}, {"precision": 12}, {"threshold": 5}, {"threshold": 0},
    {"edgeitems": 0}, {"edgeitems": 1}, {"edgeitems": 5, "threshold": 20},
    {"linewidth": 20}, {"linewidth": 1}, {"linewidth": 200}, {"sci_mode": True},
    {"sci_mode": False}, {"precision": 2, "sci_mode": True},
    {"threshold": 10, "edgeitems": 1, "linewidth": 40},
]


def _check(torch, a, **extra):
    """Compare every suffix combination for ``a`` with PyTorch's repr."""
    t = torch.from_numpy(a.copy())
    expected = repr(t)
    assert str(t) == expected
    got = format_tensor(a, **extra)
    assert got == expected, f"\n{a.dtype} {a.shape}\ntorch: {expected!r}\nours:  {got!r}"
    if a.dtype.kind in "fc":
        leaf = t.clone().requires_grad_(True)
        assert format_tensor(a, requires_grad=True, **extra) == repr(leaf)
        child = leaf.clone()
        name = type(child.grad_fn).__name__
        assert format_tensor(a, grad_fn_name=name, **extra) == repr(child)
        assert format_tensor(a, requires_grad=True, grad_fn_name=name, **extra) == repr(child)


def test_against_torch_picked():
    torch = pytest.importorskip("torch")
    for a in PICKED:
        _check(torch, a)


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_against_torch_printoptions(options):
    torch = pytest.importorskip("torch")
    torch.set_printoptions(**options)
    tf.set_printoptions(**options)
    assert tf.get_printoptions() == torch._tensor_str.get_printoptions()
    for a in PICKED:
        _check(torch, a)
    # the same options given per call, the module state back at the defaults
    tf.set_printoptions(profile="default")
    overrides = torch._tensor_str.get_printoptions()
    for a in PICKED[::7]:
        _check(torch, a, printoptions=overrides)


@pytest.mark.parametrize("default", ["float64", "float16"])
def test_against_torch_default_dtype(default):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(getattr(torch, default))
    _dtype.set_default_dtype(getattr(_dtype, default))
    for a in PICKED:
        _check(torch, a)
    # an explicit default_dtype= wins over the module's default
    expected = [repr(torch.from_numpy(a.copy())) for a in PICKED[::5]]
    torch.set_default_dtype(torch.float32)
    _dtype.set_default_dtype(_dtype.float32)
    for a, want in zip(PICKED[::5], expected):
        assert format_tensor(a, default_dtype=getattr(_dtype, default)) == want


# hypothesis-generated arrays

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.bool_, np.complex64, np.complex128]
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0]


@st.composite
def _arrays(draw):
    """Arrays up to 4-D of every dtype, from a seeded generator (large ones included)."""
    # floats are where the formatting logic lives: drawn more often
    dtype = np.dtype(draw(st.sampled_from(DTYPES[:3] * 4 + DTYPES)))
    ndim = draw(st.integers(0, 4))
    big = draw(st.integers(0, 7)) == 0
    if big and ndim:
        shape = [draw(st.integers(2, 12)) for _ in range(ndim)]
        shape[0] = max(shape[0], 1001 // max(1, math.prod(shape[1:])) + 1)
    else:
        top = 40 if ndim == 1 else 5
        shape = [draw(st.integers(0, top)) for _ in range(ndim)]
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    style = draw(st.sampled_from(["whole", "moderate", "wide", "tiny", "huge"]))
    n = math.prod(shape)
    if style == "whole":
        vals = rng.integers(-300, 300, n).astype(np.float64)
    elif style == "moderate":
        vals = rng.normal(size=n) * 10.0 ** rng.integers(-1, 3)
    elif style == "wide":
        vals = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, n)
    elif style == "tiny":
        vals = rng.normal(size=n) * 1e-6
    else:
        vals = rng.normal(size=n) * 1e12
    if draw(st.booleans()):
        special = rng.random(n) < 0.2
        vals[special] = rng.choice(SPECIALS, special.sum())
    if dtype.kind == "c":
        imag = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
        vals = vals + 1j * np.where(rng.random(n) < 0.2, 0.0, imag)
    elif dtype.kind == "b":
        vals = rng.random(n) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = np.clip(np.nan_to_num(vals), info.min, info.max)
    with np.errstate(over="ignore", invalid="ignore"):
        return vals.astype(dtype).reshape(shape)


def _element_arrays(dtype):
    elements = {
        np.float16: st.floats(width=16), np.float32: st.floats(width=32), np.float64: st.floats(),
        np.complex64: st.complex_numbers(width=64), np.int32: st.integers(-(2 ** 31), 2 ** 31 - 1),
    }[dtype]
    return hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
                      elements=elements)


_SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(a=_arrays())
def test_against_torch_generated(a):
    torch = pytest.importorskip("torch")
    _check(torch, a)


@_SETTINGS
@given(a=st.sampled_from([np.float16, np.float32, np.float64, np.complex64, np.int32])
       .flatmap(_element_arrays))
def test_against_torch_generated_elements(a):
    torch = pytest.importorskip("torch")
    _check(torch, a)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(a=_arrays(), options=st.fixed_dictionaries({}, optional={
    "precision": st.integers(0, 10), "threshold": st.sampled_from([0, 1, 10, 100, 1000, math.inf]),
    "edgeitems": st.integers(0, 4), "linewidth": st.integers(1, 150),
    "sci_mode": st.sampled_from([None, True, False]),
    "profile": st.sampled_from(["default", "short", "full"])}))
def test_against_torch_generated_options(a, options):
    torch = pytest.importorskip("torch")
    torch.set_printoptions(**options)
    tf.set_printoptions(**options)
    try:
        _check(torch, a)
    finally:
        torch.set_printoptions(profile="default")
        tf.set_printoptions(profile="default")
