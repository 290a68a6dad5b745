"""Errors users hit at the edge of the transforms.

Each error must have the documented type and a message that names the
problem (shapes, dtypes, the argument) and the fix (the function to use
instead, the cast to make).
"""
import re

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp

X = np.array([1.0, 2.0, 3.0])
ALL_GRADS = [tg.grad, tg.value_and_grad]
ALL_JACOBIANS = [tg.jacfwd, tg.jacrev, tg.jacobian, tg.hessian]


def message(excinfo):
    return str(excinfo.value)


def assert_mentions(msg, *patterns):
    for p in patterns:
        assert re.search(p, msg, flags=re.IGNORECASE), f"{p!r} not in error message: {msg!r}"


# --------------------------------------------------------------------------
# grad of non-scalar, complex, integer outputs


@pytest.mark.parametrize("transform", ALL_GRADS, ids=["grad", "value_and_grad"])
@pytest.mark.parametrize("out_shape", [(3,), (2, 3), (1,)])
def test_grad_of_non_scalar_output(transform, out_shape):
    x = np.ones(out_shape)
    with pytest.raises(TypeError) as e:
        transform(lambda x: x * 2.0)(x)
    assert_mentions(message(e), re.escape(str(out_shape)), "scalar", "jacrev", "vjp")


def test_grad_of_pytree_output_points_to_jacrev():
    with pytest.raises(TypeError) as e:
        tg.grad(lambda x: (x, x))(1.0)
    assert_mentions(message(e), "scalar", "jacrev|vjp")


def test_grad_of_complex_output():
    with pytest.raises(TypeError) as e:
        tg.grad(lambda x: x * 1j)(2.0)
    assert_mentions(message(e), "complex")


def test_grad_of_complex_input_with_complex_output():
    # a real-valued function of complex input is fine (tests/test_complex.py);
    # a complex output needs holomorphic=True, as in JAX
    with pytest.raises(TypeError) as e:
        tg.grad(lambda z: tnp.sum(z))(np.array([1 + 2j]))
    assert_mentions(message(e), "complex", "holomorphic=True", "vjp")


# --------------------------------------------------------------------------
# integer and bool inputs


@pytest.mark.parametrize("transform", [tg.grad, tg.value_and_grad, tg.jacfwd, tg.jacrev, tg.hessian],
                         ids=["grad", "value_and_grad", "jacfwd", "jacrev", "hessian"])
@pytest.mark.parametrize("bad", [np.array([1, 2]), 3, np.array([True, False]), True, np.int32(4)],
                         ids=["int-array", "python-int", "bool-array", "python-bool", "int32"])
def test_integer_or_bool_input(transform, bad):
    dtype = np.asarray(bad).dtype
    with pytest.raises(TypeError) as e:
        transform(lambda x: tnp.sum(x * 1.0))(bad)
    assert_mentions(message(e), "argument 0|argnums", re.escape(str(dtype)), "float")


@pytest.mark.parametrize("transform", [tg.grad, tg.jacfwd, tg.jacrev], ids=["grad", "jacfwd", "jacrev"])
def test_integer_input_names_the_argument(transform):
    with pytest.raises(TypeError) as e:
        transform(lambda x, n: tnp.sum(x * n), argnums=1)(X, np.array(2))
    assert_mentions(message(e), "argument 1|argnums=1", "int")
    with pytest.raises(TypeError) as e:
        transform(lambda d: tnp.sum(d["a"] * d["b"]))({"a": X, "b": np.array([1, 2, 3])})
    assert_mentions(message(e), "argument 0", "int")


# --------------------------------------------------------------------------
# vjp: cotangents of the wrong structure, shape or dtype


def test_vjp_cotangent_wrong_shape():
    _, vjp_fun = tg.vjp(lambda x: x * 2.0, X)
    with pytest.raises((ValueError, TypeError)) as e:
        vjp_fun(np.ones(4))
    assert_mentions(message(e), r"\(4,\)", r"\(3,\)", "shape")
    with pytest.raises((ValueError, TypeError)) as e:
        vjp_fun(np.ones((3, 1)))
    assert_mentions(message(e), r"\(3, 1\)", r"\(3,\)")


def test_vjp_cotangent_wrong_dtype():
    _, vjp_fun = tg.vjp(lambda x: x * 2.0, X)
    with pytest.raises((TypeError, ValueError)) as e:
        vjp_fun(np.ones(3, np.float32))
    assert_mentions(message(e), "float32", "float64", "dtype")
    with pytest.raises((TypeError, ValueError)) as e:
        vjp_fun(np.ones(3, np.int64))
    assert_mentions(message(e), "int64", "float64")


def test_vjp_cotangent_wrong_structure():
    _, vjp_fun = tg.vjp(lambda x: (x, x * 2.0), X)
    with pytest.raises((TypeError, ValueError)) as e:
        vjp_fun(np.ones(3))
    assert_mentions(message(e), "structure|tree")
    with pytest.raises((TypeError, ValueError)):
        vjp_fun((np.ones(3),))
    with pytest.raises((TypeError, ValueError)):
        vjp_fun([np.ones(3), np.ones(3)])


# --------------------------------------------------------------------------
# jvp: primal/tangent mismatches


def test_jvp_tree_mismatch():
    with pytest.raises((TypeError, ValueError)) as e:
        tg.jvp(lambda x: x, (X,), (X, X))
    assert_mentions(message(e), "structure|tree")
    with pytest.raises((TypeError, ValueError)) as e:
        tg.jvp(lambda d: d["a"], ({"a": X},), ({"b": X},))
    assert_mentions(message(e), "structure|tree")


def test_jvp_shape_mismatch():
    with pytest.raises((ValueError, TypeError)) as e:
        tg.jvp(lambda x: x, (X,), (np.ones(4),))
    assert_mentions(message(e), r"\(4,\)", r"\(3,\)", "shape")


def test_jvp_dtype_mismatch():
    with pytest.raises((TypeError, ValueError)) as e:
        tg.jvp(lambda x: x, (X,), (np.ones(3, np.float32),))
    assert_mentions(message(e), "float32", "float64", "dtype")


def test_jvp_primals_must_be_a_tuple_or_list():
    with pytest.raises(TypeError) as e:
        tg.jvp(lambda x: x, X, X)
    assert_mentions(message(e), "tuple|list")


# --------------------------------------------------------------------------
# argnums and has_aux


@pytest.mark.parametrize("transform", [tg.grad, tg.value_and_grad, tg.jacfwd, tg.jacrev, tg.hessian],
                         ids=["grad", "value_and_grad", "jacfwd", "jacrev", "hessian"])
@pytest.mark.parametrize("argnums", [2, -3, (0, 5)])
def test_argnums_out_of_range(transform, argnums):
    with pytest.raises((TypeError, ValueError)) as e:
        transform(lambda x, y: tnp.sum(x * y), argnums=argnums)(X, X)
    assert_mentions(message(e), "argnums", "2 positional|positional arguments|got 2|with 2")


@pytest.mark.parametrize("transform", [tg.grad, tg.value_and_grad, tg.jacfwd, tg.jacrev],
                         ids=["grad", "value_and_grad", "jacfwd", "jacrev"])
@pytest.mark.parametrize("ret", [lambda x: tnp.sum(x), lambda x: (tnp.sum(x), 1, 2), lambda x: [tnp.sum(x)]],
                         ids=["scalar", "triple", "one-list"])
def test_has_aux_requires_a_pair(transform, ret):
    with pytest.raises((TypeError, ValueError)) as e:
        transform(ret, has_aux=True)(X)
    assert_mentions(message(e), "has_aux", "pair|tuple of two|\\(output, aux")


def test_has_aux_requires_a_pair_in_vjp_and_jvp():
    with pytest.raises((TypeError, ValueError)) as e:
        tg.vjp(lambda x: x * 2.0, X, has_aux=True)
    assert_mentions(message(e), "has_aux", "pair|tuple of two|\\(output, aux")
    with pytest.raises((TypeError, ValueError)) as e:
        tg.jvp(lambda x: x * 2.0, (X,), (X,), has_aux=True)
    assert_mentions(message(e), "has_aux", "pair|tuple of two|\\(output, aux")


def test_non_callable():
    for transform in (tg.grad, tg.value_and_grad, tg.jacfwd, tg.jacrev):
        with pytest.raises(TypeError) as e:
            transform(3.0)
        assert_mentions(message(e), "callable")


def test_non_array_argument():
    with pytest.raises(TypeError) as e:
        tg.grad(lambda s: 1.0)("a string")
    assert_mentions(message(e), "argument 0|str", "float|valid")


# --------------------------------------------------------------------------
# the numpy namespace and tracers


def test_item_assignment_on_a_tracer_points_to_at():
    def f(x):
        x[0] = 1.0
        return tnp.sum(x)

    with pytest.raises(TypeError) as e:
        tg.grad(f)(X)
    assert_mentions(message(e), "immutable|in place|assignment", r"\.at\[")


def test_tracers_are_not_hashable():
    def f(x):
        return {x: 1}

    with pytest.raises(TypeError):
        tg.grad(f)(1.0)


# Errors name the transform the user called, not the one it is built on.
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: tg.hessian(lambda x: x ** 3)(1), "hessian"),
        (lambda: tg.hessian(3), "hessian"),
        (lambda: tg.grad(lambda x: x ** 2, has_aux=True)(3.0), "grad"),
        (lambda: tg.jacrev(lambda x: x, has_aux=True)(3.0), "jacrev"),
        (lambda: tg.jacfwd(lambda x: x, has_aux=True)(3.0), "jacfwd"),
    ],
)
def test_errors_name_the_public_transform(call, name):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(name)


def test_check_grads_rejects_order_zero():
    from tracegrad.test_util import check_grads

    with pytest.raises(ValueError, match="order"):
        check_grads(lambda x: x * 2.0, (1.0,), order=0)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: tg.jacrev(lambda x: x * 1j)(1.0), TypeError, "complex"),
        (lambda: tg.jacfwd(lambda z: z * 2.0)(1j), TypeError, "complex128.*holomorphic"),
        (lambda: tg.grad(lambda x: x, argnums=(0, 0))(1.0), ValueError, "twice"),
        (lambda: tg.grad(lambda x: x, argnums=1.5)(1.0), TypeError, "argnums"),
        (lambda: tg.grad(lambda x: x.sort())(np.ones(2)), TypeError, r"numpy\.sort"),
        (lambda: tg.grad(lambda x: np.float64(x) * x)(3.0), TypeError, "derivative"),
        (lambda: tg.grad(lambda x: float(x) * x)(3.0), TypeError, "stop_gradient"),
    ],
)
def test_bad_input_is_refused_with_the_fix(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_scatter_add_primitive_checks_bounds():
    from tracegrad.primitives import ops

    with pytest.raises(IndexError, match="indices"):
        ops.scatter_add(np.ones(3), np.array([0, 5, 1]), axis=0, size=3)
    with pytest.raises(IndexError, match="indices"):
        ops.scatter_add(np.ones(3), np.array([0, -1, 1]), axis=0, size=3)
