"""On plain arrays, tracegrad.numpy computes what NumPy computes (NaN rules,
integer and complex inputs, edge arguments); on tracers, the derivatives."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_ignore_nan_like_numpy(name):
    a = np.array([np.nan, 1.0, np.nan, 2.0])
    b = np.array([3.0, np.nan, np.nan, 1.0])
    np.testing.assert_array_equal(getattr(tnp, name)(a, b), getattr(np, name)(a, b))
    # the whole derivative goes to the non-NaN operand
    assert tg.grad(lambda x: getattr(tnp, name)(x, np.nan))(2.0) == 1.0
    assert tg.grad(lambda x: getattr(tnp, name)(np.nan, x))(2.0) == 1.0
    assert tg.grad(lambda x: getattr(tnp, name)(x, 2.0))(2.0) == 0.5


def test_conjugate_and_integer_reciprocal_match_numpy():
    z = np.array([1 + 2j, -3j])
    np.testing.assert_array_equal(tnp.conj(z), np.conj(z))
    np.testing.assert_array_equal(tnp.conjugate(z), np.conjugate(z))
    ints = np.array([1, 2, -1, 3])
    got = tnp.reciprocal(ints)
    assert got.dtype == ints.dtype
    np.testing.assert_array_equal(got, np.reciprocal(ints))
    assert tg.grad(lambda x: tnp.conj(x) * x)(3.0) == 6.0


def test_complex_first_operand_is_conjugated():
    x1 = np.array([1j, 1.0])
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tnp.vecdot(np.array([1j]), np.array([1j])),
                                  np.vecdot(np.array([1j]), np.array([1j])))
    np.testing.assert_array_equal(tnp.vecmat(x1, m), np.conj(x1) @ m)


@pytest.mark.parametrize(
    "fn, args",
    [
        ("matvec", (np.ones(3), np.ones(3))),
        ("vecmat", (np.ones(3), np.ones(3))),
        ("vecmat", (1.0, np.ones((2, 3)))),
        ("matvec", (np.ones((2, 3)), 1.0)),
    ],
)
def test_gufunc_core_dimensions_are_checked(fn, args):
    if hasattr(np, fn):  # NumPy >= 2.2
        with pytest.raises(ValueError, match="does not have enough dimensions"):
            getattr(np, fn)(*args)
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        getattr(tnp, fn)(*args)


def test_cumulative_of_0d_is_1d():
    for name in ("cumulative_sum", "cumulative_prod"):
        for initial in (False, True):
            np.testing.assert_array_equal(
                getattr(tnp, name)(np.float64(2.0), include_initial=initial),
                getattr(np, name)(np.float64(2.0), include_initial=initial),
            )


def test_size_with_axis_tuple():
    assert tnp.size(np.ones((2, 3, 4)), axis=(0, 2)) == 8  # NumPy >= 2.4 agrees


def test_traced_linspace_integer_dtype_floors_and_checks_num():
    out, _ = tg.jvp(lambda a: tnp.linspace(-1.0, a, 3, dtype=int), (0.5,), (1.0,))
    np.testing.assert_array_equal(out, np.linspace(-1.0, 0.5, 3, dtype=int))
    with pytest.raises(ValueError, match="non-negative"):
        tg.jvp(lambda a: tnp.linspace(0.0, a, -1), (1.0,), (1.0,))
