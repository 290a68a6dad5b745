"""``tracegrad.torch.testing``: assert_close (tolerances, messages, nesting) and make_tensor.

Messages are pinned word for word as PyTorch 2.13 prints them, and a
differential test runs one table of comparisons through both libraries
(skipped when torch is absent).
"""
import math
import warnings

import numpy as np
import pytest

import tracegrad.torch as torch
from tracegrad.torch.testing import assert_close, make_tensor

nan, inf = math.nan, math.inf


def message_of(actual, expected, **kw):
    with pytest.raises(Exception) as info:
        assert_close(actual, expected, **kw)
    return type(info.value), str(info.value)


# --------------------------------------------------------------------------
# default tolerances by dtype


@pytest.mark.parametrize("dtype, rtol, atol", [
    (torch.float16, 1e-3, 1e-5),
    (torch.float32, 1.3e-6, 1e-5),
    (torch.float64, 1e-7, 1e-7),
    (torch.complex64, 1.3e-6, 1e-5),
    (torch.complex128, 1e-7, 1e-7),
])
def test_default_tolerances_by_dtype(dtype, rtol, atol):
    expected = torch.tensor([0.0, 1000.0], dtype=dtype)
    inside = torch.tensor([atol * 0.5, 1000.0 * (1 + rtol * 0.5)], dtype=dtype)
    assert_close(inside, expected)
    outside = torch.tensor([atol * 4, 1000.0 * (1 + rtol * 4)], dtype=dtype)
    kind, text = message_of(outside, expected)
    assert kind is AssertionError
    assert f"(up to {atol} allowed)" in text and f"(up to {rtol} allowed)" in text
    assert "Mismatched elements: 2 / 2 (100.0%)" in text


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8, torch.bool])
def test_integers_and_bools_compare_exactly(dtype):
    assert_close(torch.tensor([1, 0], dtype=dtype), torch.tensor([1, 0], dtype=dtype))
    kind, text = message_of(torch.tensor([1, 0], dtype=dtype), torch.tensor([1, 1], dtype=dtype))
    assert text.startswith("Tensor-likes are not equal!") and "allowed" not in text


def test_mixed_dtypes_use_the_looser_tolerance_when_dtype_is_not_checked():
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([1.0, 2.000005], dtype=torch.float64)  # 2.5e-6 relative: float32's 1e-5 atol
    assert_close(a, b, check_dtype=False)
    assert message_of(a, b) == (
        AssertionError,
        "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.",
    )


def test_python_scalars_use_float64_and_int64_tolerances():
    assert_close(1.0, 1.0 + 1e-8)
    assert_close(0.0, 1e-8)
    assert message_of(1.0, 1.0001) == (AssertionError, (
        "Scalars are not close!\n\nExpected 1.0001 but got 1.0.\n"
        "Absolute difference: 9.999999999998899e-05 (up to 1e-07 allowed)\n"
        "Relative difference: 9.9990000999889e-05 (up to 1e-07 allowed)"))
    assert message_of(1, 2) == (AssertionError, (
        "Scalars are not equal!\n\nExpected 2 but got 1.\n"
        "Absolute difference: 1\nRelative difference: 0.5"))


# --------------------------------------------------------------------------
# PyTorch's messages, pinned


def test_tensor_mismatch_message():
    assert message_of(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 4.0])) == (
        AssertionError,
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 1.0 at index (2,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.25 at index (2,) (up to 1.3e-06 allowed)",
    )


def test_two_dimensional_index_and_float32_relative_difference():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert message_of(a, b)[1] == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1, 1) (up to 1.3e-06 allowed)"
    )


def test_zero_dim_tensors_report_as_scalars():
    assert message_of(torch.tensor(0.1), torch.tensor(0.2))[1] == (
        "Scalars are not close!\n\nExpected 0.20000000298023224 but got 0.10000000149011612.\n"
        "Absolute difference: 0.10000000149011612 (up to 1e-05 allowed)\n"
        "Relative difference: 0.5 (up to 1.3e-06 allowed)"
    )
    assert message_of(torch.tensor(True), torch.tensor(False))[1] == (
        "Scalars are not equal!\n\nExpected False but got True.\n"
        "Absolute difference: 1\nRelative difference: inf"
    )


def test_integer_differences_are_int64_and_relative_ones_float32():
    a = torch.tensor([250, 2], dtype=torch.uint8)
    b = torch.tensor([1, 200], dtype=torch.uint8)
    assert message_of(a, b)[1] == (
        "Tensor-likes are not equal!\n\nMismatched elements: 2 / 2 (100.0%)\n"
        "Greatest absolute difference: 249 at index (0,)\n"
        "Greatest relative difference: 249.0 at index (0,)"
    )
    assert message_of(torch.tensor([1, 2]), torch.tensor([1, 3]))[1].endswith(
        "Greatest relative difference: 0.3333333432674408 at index (1,)")
    assert message_of(torch.tensor([1, 3]), torch.tensor([1, 0]))[1].endswith(
        "Greatest relative difference: inf at index (1,)")


def test_nan_and_infinity():
    assert_close(torch.tensor([1.0, inf, -inf]), torch.tensor([1.0, inf, -inf]))
    assert_close(torch.tensor([1.0, nan]), torch.tensor([1.0, nan]), equal_nan=True)
    assert message_of(torch.tensor([1.0, nan]), torch.tensor([1.0, nan]))[1] == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)"
    )
    assert message_of(torch.tensor([1.0, inf]), torch.tensor([1.0, -inf]))[1].split("\n")[3:] == [
        "Greatest absolute difference: inf at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)",
    ]
    # a NaN difference is the greatest, wherever it is
    text = message_of(torch.tensor([0.0, 5.0, 1.0, nan]), torch.tensor([0.0, 1.0, 1.0, 1.0]))[1]
    assert "Greatest absolute difference: nan at index (3,)" in text
    assert message_of(nan, nan)[1].startswith("Scalars are not close!\n\nExpected nan but got nan.")
    assert_close(nan, nan, equal_nan=True)


def test_explicit_tolerances_are_printed_as_given():
    a, b = torch.tensor([1, 2]), torch.tensor([1, 5])
    assert_close(torch.tensor([1, 2]), torch.tensor([1, 4]), rtol=0.5, atol=0)
    assert message_of(a, b, rtol=0.0, atol=1)[1] == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 3 at index (1,) (up to 1 allowed)\n"
        "Greatest relative difference: 0.6000000238418579 at index (1,) (up to 0.0 allowed)"
    )


def test_attribute_mismatches():
    assert message_of(torch.ones(2), torch.ones(3)) == (
        AssertionError,
        "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).",
    )
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_close(x.t(), torch.tensor([[1.0, 3.0], [2.0, 4.0]]))
    assert message_of(x.t(), torch.tensor([[1.0, 3.0], [2.0, 4.0]]), check_stride=True) == (
        AssertionError, "The values for attribute 'stride()' do not match: (1, 2) != (2, 1).")
    assert message_of(1.0, 2) == (
        AssertionError, "The (d)types do not match: <class 'float'> != <class 'int'>.")
    assert_close(1.0, 1, check_dtype=False)


def test_msg_replaces_or_wraps_the_message():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5])
    assert message_of(a, b, msg="custom") == (AssertionError, "custom")
    kind, text = message_of(a, b, msg=lambda m: f"Header\n\n{m}\n\nFooter")
    assert text.startswith("Header\n\nTensor-likes are not close!") and text.endswith("\n\nFooter")


# --------------------------------------------------------------------------
# inputs: numbers, None, bools, arrays, nesting


def test_accepted_inputs():
    assert_close(None, None)
    assert_close(True, True)
    assert_close(np.float32(1.0), 1.0)
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert_close([torch.tensor([1.0]), 2.0, np.array(3.0)], (torch.tensor([1.0]), 2.0, np.array(3.0)))
    assert_close({"a": torch.ones(2), "b": [1, 2]}, {"b": (1, 2), "a": torch.ones(2)})
    assert_close(torch.Size([2, 3]), torch.Size([2, 3]))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert_close(x * 2, torch.tensor([2.0, 4.0]))  # compares values, records nothing new
    assert_close(torch.nn.Parameter(torch.ones(2)), torch.ones(2))
    torch.testing.assert_close(torch.ones(2) * 3, torch.full((2,), 3.0))  # the lazy submodule
    assert_close(np.array([1, 2], dtype=np.uint16), np.array([1, 2], dtype=np.uint16))
    assert message_of(np.array([1], dtype=np.uint16), np.array([1], dtype=np.int64))[1] == (
        "The values for attribute 'dtype' do not match: torch.uint16 != torch.int64.")
    days = np.array(["2020-01-01"], dtype="datetime64[D]")
    assert message_of(days, days)[0] is TypeError


def test_rejected_and_mismatched_inputs():
    assert message_of(None, 1) == (AssertionError, "None mismatch: None is not 1")
    assert message_of(True, False) == (AssertionError, "Booleans mismatch: True is not False")
    assert message_of(torch.ones(2), [1.0, 1.0]) == (
        TypeError, "No comparison pair was able to handle inputs of type "
                   "<class 'torch.Tensor'> and <class 'list'>.")
    assert message_of(torch.ones(2), np.ones(2))[0] is TypeError
    assert message_of(torch.ones(2), 1.0)[0] is TypeError
    assert message_of("a", "a")[0] is TypeError
    assert message_of(torch.nn.Parameter(torch.ones(2)), torch.ones(2), allow_subclasses=False) == (
        TypeError, "No comparison pair was able to handle inputs of type "
                   "<class 'torch.nn.parameter.Parameter'> and <class 'torch.Tensor'>.")


def test_nested_failures_name_the_item():
    assert message_of([1.0, 2.0], [1.0, 3.0])[1].endswith("\n\nThe failure occurred for item [1]")
    text = message_of({"a": [1.0, {"b": 2.0}]}, {"a": [1.0, {"b": 3.0}]})[1]
    assert text.endswith("The failure occurred for item ['a'][1]['b']")
    assert message_of([[torch.tensor([1.0, 2.0])]], [[torch.tensor([1.0, 3.0])]])[1].endswith(
        "The failure occurred for item [0][0]")
    assert message_of({"a": 1.0}, {"b": 1.0}) == (AssertionError, (
        "The keys of the mappings do not match:\n"
        "Missing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['a']"))
    assert message_of([1.0, 2.0], [1.0]) == (
        AssertionError, "The length of the sequences mismatch: 2 != 1")


def test_structure_errors_come_first_and_keep_their_message():
    # item 0 differs, but the length mismatch inside item 1 is found first, and
    # msg does not replace a structural error (as in PyTorch)
    actual = [torch.tensor(1.0), [2.0, 3.0]]
    expected = [torch.tensor(2.0), [2.0]]
    assert message_of(actual, expected, msg="m") == (
        AssertionError, "The length of the sequences mismatch: 2 != 1\n\n"
                        "The failure occurred for item [1]")
    assert message_of([torch.tensor(1.0), 2.0], [torch.tensor(2.0), 3.0], msg="m") == (
        AssertionError, "m")


def test_rtol_without_atol_is_a_value_error():
    assert message_of(torch.ones(2), torch.ones(2), rtol=1e-3) == (
        ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.")
    assert message_of([torch.ones(1), 2.0], [torch.ones(1), 3.0], atol=1.0) == (
        ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                    "rtol.\n\nThe failure occurred for item [0]")
    assert_close(None, None, rtol=1.0)  # None and bool pairs take no tolerance


# --------------------------------------------------------------------------
# the same comparisons through PyTorch


def _case_table():
    T = lambda data, dtype=None: ("T", data, dtype)  # noqa: E731
    return [
        (T([1.0, 2.0, 3.0]), T([1.0, 2.5, 3.0]), {}),
        (T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 2.0], [3.0, 5.0]]), {}),
        (T(1.0), T(2.0), {}), (T(3), T(4), {}), (T(True), T(False), {}),
        (T([1, 2, 3]), T([1, 2, 4]), {}), (T([True, False]), T([True, True]), {}),
        (T([1.0, 2.0]), T([1.0, 2.0], "float64"), {}),
        (T([1.0, 2.0]), T([1.0, 2.5], "float64"), {"check_dtype": False}),
        (T([1, 2]), T([1.0, 2.5]), {"check_dtype": False}),
        (T([1, 2], "int32"), T([1, 5]), {"check_dtype": False}),
        (T([1.0, 2.0]), T([1.0, 2.0, 3.0]), {}),
        (T([1.0, nan]), T([1.0, nan]), {}), (T([1.0, nan]), T([1.0, nan]), {"equal_nan": True}),
        (T([inf, -inf]), T([inf, inf]), {}), (T([0.0, 5.0, 1.0, nan]), T([0.0, 1.0, 1.0, 1.0]), {}),
        (T([1.0, 2.0], "float16"), T([1.0, 2.5], "float16"), {}),
        (T([1.0, 2.0], "float64"), T([1.0, 2.0 + 1e-6], "float64"), {}),
        (T([1.0 + 1j, 2.0]), T([1.0 + 1j, 2.5]), {}),
        (T([250, 2], "uint8"), T([1, 200], "uint8"), {}),
        (T([-100, 2], "int8"), T([100, 2], "int8"), {}),
        (T([1, 2]), T([1, 5]), {"rtol": 0.5, "atol": 0}),
        (T([1e-8]), T([0.0]), {"rtol": 0.0, "atol": 0.0}),
        (T(list(range(10))), T(list(range(1, 11))), {}),
        (T([1e10, 1.0]), T([1e10 + 1e5, 1.0]), {}),
        (T([1.0, 2.0]), T([1.0, 2.5]), {"msg": "custom"}),
        (T([1.0, 2.0]), T([1.0, 2.5]), {"msg": lambda m: "H\n" + m + "\nF"}),
        (T([1.0, 2.0]), T([1.0, 2.5]), {"rtol": 1e-3}),
        (T([1.0, 2.0]), [1.0, 2.0], {}), (T([1.0, 2.0]), 1.0, {}),
        (1.0, 1.0001, {}), (1, 2, {}), (1.0, 2, {}), (1.0, 1, {"check_dtype": False}),
        (nan, nan, {}), (inf, -inf, {}), (1 + 1j, 1 + 2j, {}),
        (None, 1, {}), (True, False, {}), ("a", "b", {}),
        (np.float32(1.0), np.float32(1.1), {}), (np.array([1, 2]), np.array([1, 3]), {}),
        ([1.0, 2.0], [1.0], {}), ([1, [2, 3]], [1, [2]], {}),
        ([T(1.0), [2.0, 3.0]], [T(2.0), [2.0]], {"msg": "m"}),
        ([T(1.0), 2.0], [T(1.0), 3.0], {"rtol": 1.0}),
        ({"a": [1.0, {"b": 2.0}]}, {"a": [1.0, {"b": 3.0}]}, {}),
        ({"a": T(1.0)}, {"b": T(2.0)}, {}), ({1: 1.0, "a": 2.0}, {1: 1.0, "a": 3.0}, {}),
    ]


def _build(lib, x):
    if isinstance(x, tuple) and len(x) == 3 and x[0] == "T":
        return lib.tensor(x[1], dtype=None if x[2] is None else getattr(lib, x[2]))
    if isinstance(x, list):
        return [_build(lib, v) for v in x]
    if isinstance(x, dict):
        return {k: _build(lib, v) for k, v in x.items()}
    return x


def _outcome(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as e:  # noqa: BLE001 - the outcome is the exception
        return type(e).__name__, str(e)
    return ("passed",)


def test_same_outcome_and_message_as_pytorch():
    real = pytest.importorskip("torch")
    different = []
    for actual, expected, kw in _case_table():
        theirs = _outcome(real.testing.assert_close, _build(real, actual), _build(real, expected), **kw)
        ours = _outcome(assert_close, _build(torch, actual), _build(torch, expected), **kw)
        if theirs != ours:
            different.append(f"{actual!r} vs {expected!r} {kw}:\n  torch: {theirs}\n  ours:  {ours}")
    assert not different, "\n".join(different)


def test_same_outcome_as_pytorch_for_views_and_parameters():
    real = pytest.importorskip("torch")

    def pairs(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        p = lib.nn.Parameter(x.clone())
        return [
            ((x.t(), lib.tensor([[1.0, 3.0], [2.0, 4.0]])), {"check_stride": True}),
            ((p, x), {"allow_subclasses": False}), ((p, x), {}),
            ((x.numpy(), x), {}), ((x.shape, lib.Size([2, 3])), {}),
            ((lib.zeros(2, 0), lib.zeros(2, 1)), {}), ((lib.zeros(0), lib.zeros(0)), {}),
        ]

    for ((a, b), kw), ((c, d), _) in zip(pairs(real), pairs(torch)):
        assert _outcome(real.testing.assert_close, a, b, **kw) == _outcome(assert_close, c, d, **kw)


# --------------------------------------------------------------------------
# make_tensor


@pytest.mark.parametrize("dtype, low, high", [
    (torch.float32, -9, 9), (torch.float64, -9, 9), (torch.float16, -9, 9),
    (torch.int64, -9, 10), (torch.int32, -9, 10), (torch.int8, -9, 10),
    (torch.uint8, 0, 10), (torch.bool, 0, 2),
])
def test_make_tensor_default_ranges(dtype, low, high):
    t = make_tensor(50, 4, dtype=dtype, device="cpu")
    assert t.shape == torch.Size([50, 4]) and t.dtype == dtype and t.is_leaf
    values = t.numpy().astype(np.float64)
    assert values.min() >= low and values.max() < high
    assert len(np.unique(values)) > 1


def test_make_tensor_options():
    t = make_tensor((3, 4), dtype=torch.float32, device="cpu", low=-1, high=1, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.shape == (3, 4)
    c = make_tensor(6, dtype=torch.complex64, device="cpu", low=0, high=1)
    assert c.dtype == torch.complex64
    z = c.numpy()
    assert (z.real >= 0).all() and (z.real < 1).all() and (z.imag >= 0).all() and (z.imag < 1).all()
    n = make_tensor(2, 3, dtype=torch.float64, device="cpu", noncontiguous=True)
    assert not n.is_contiguous() and n.shape == (2, 3)
    assert make_tensor(1, dtype=torch.float64, device="cpu", noncontiguous=True).is_contiguous()
    assert make_tensor((), dtype=torch.float32, device="cpu").shape == ()
    ones = make_tensor(20, dtype=torch.int64, device="cpu", low=0, high=1, exclude_zero=True)
    assert ones.tolist() == [1] * 20
    assert make_tensor(4, dtype=torch.int64, device="cpu", low=3, high=4).tolist() == [3, 3, 3, 3]
    assert make_tensor(4, dtype=torch.int64, device="cpu", low=2.5, high=3.5).tolist() == [3, 3, 3, 3]
    big = make_tensor(100, dtype=torch.float16, device="cpu", low=-1e10, high=1e10).numpy()
    assert np.isfinite(big).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FutureWarning, match="low==high"):
            make_tensor(2, dtype=torch.float32, device="cpu", low=1.0, high=1.0)


def test_make_tensor_is_seeded_by_manual_seed():
    torch.manual_seed(3)
    a = make_tensor(5, dtype=torch.float32, device="cpu")
    torch.manual_seed(3)
    b = make_tensor(5, dtype=torch.float32, device="cpu")
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("kw, error, text", [
    ({"dtype": torch.int64, "low": 1, "high": 1}, ValueError,
     "`low` must be less than `high`, but got 1 >= 1"),
    ({"dtype": torch.float32, "low": nan}, ValueError,
     "`low` and `high` cannot be NaN, but got low=nan and high=9"),
    ({"dtype": torch.int64, "requires_grad": True}, ValueError,
     "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
     "dtype=torch.int64"),
    ({"dtype": torch.uint8, "low": -5, "high": -1}, ValueError,
     "The value interval specified by `low` and `high` is [-5, -1), but torch.uint8 only "
     "supports [0, 256)"),
    ({"dtype": torch.float32, "noncontiguous": True, "memory_format": "channels_last"}, ValueError,
     "The parameters `noncontiguous` and `memory_format` are mutually exclusive"),
    ({"dtype": torch.float32, "memory_format": "channels_last"}, NotImplementedError,
     "no memory formats"),
    ({"dtype": torch.float32, "device": "cuda"}, RuntimeError, "CPU only"),
])
def test_make_tensor_errors(kw, error, text):
    kw = {"device": "cpu", **kw}
    with pytest.raises(error) as info:
        make_tensor(3, **kw)
    assert text in str(info.value)


def test_make_tensor_errors_match_pytorch():
    real = pytest.importorskip("torch")
    for kw in ({"dtype": "int64", "low": 1, "high": 1}, {"dtype": "float32", "low": nan},
               {"dtype": "int64", "requires_grad": True},
               {"dtype": "uint8", "low": -5, "high": -1}):
        theirs = _outcome(real.testing.make_tensor, 3, device="cpu",
                          **{**kw, "dtype": getattr(real, kw["dtype"])})
        ours = _outcome(make_tensor, 3, device="cpu", **{**kw, "dtype": getattr(torch, kw["dtype"])})
        assert theirs == ours
