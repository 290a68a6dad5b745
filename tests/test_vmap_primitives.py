"""vmap of every primitive equals a Python loop over the batch plus a stack.

The table ``CASES`` has, for every primitive of the registry, one or more
variants: per-example argument generators, realistic static params and the
dtypes the primitive supports.  For each (primitive, variant, dtype) the
primitive is applied with ``prim.bind`` under ``tg.vmap`` for a set of
``in_axes``/``out_axes`` configurations:

* every argument mapped at axis 0, at axis -1, and in the middle;
* random mixtures (seeded per case) with some arguments unmapped (None),
  negative axes, and non-zero (and negative) ``out_axes``, one entry per
  output for multiple-result primitives;
* batch sizes 5, 4, 3, 2, 1 and 0 (an empty batch gives an empty result of
  the right shape and dtype); sizes that differ from the examples' own axis
  lengths catch rules that report the wrong batch dim.

The expected value is ``prim.bind`` on each example (an unmapped argument
is the same array for every example), stacked along the output axis.  A
primitive missing from ``CASES`` fails its own test, so a new primitive
must come with its vmap case (as ``test_registry.py`` does for rules).

For differentiable primitives a second test pins that the batching rule is
written with primitives, so vmap composes with the derivative transforms
in both orders: ``jvp(vmap(f))``, ``vjp(vmap(f))``, ``vmap(jvp(f))`` and
``vmap(vjp_fun)`` against loops of per-example ``jvp``/``vjp``.
"""
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.nn  # noqa: F401  (declares its primitives)
import tracegrad.lax  # noqa: F401  (binds the control-flow primitives under staging)
import tracegrad.numpy.linalg  # noqa: F401
from tracegrad.primitives import registry

F64, F32, I64, BOOL = np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int64), np.dtype(bool)
F = (F64, F32)
FI = (F64, F32, I64)
FIB = (F64, F32, I64, BOOL)


# --------------------------------------------------------------------------
# argument generators: gen(rng, dtype, previous_args) -> one example's value


@dataclass(frozen=True)
class Fixed:
    """A non-array argument (Python scalar, None): closed over, never mapped."""

    value: object


def _cast(x, dt):
    if dt == BOOL:
        return np.asarray(x) > 0
    if dt.kind in "iu":
        return np.rint(x).astype(dt)
    return np.asarray(x, dtype=dt)


def real(*shape, lo=-2.0, hi=2.0):
    return lambda r, dt, prev: _cast(r.uniform(lo, hi, shape), dt)


def pos(*shape):
    return real(*shape, lo=0.2, hi=3.0)


def unit(*shape):
    return real(*shape, lo=-0.9, hi=0.9)


def gt1(*shape):
    return real(*shape, lo=1.2, hi=3.0)


def ties(*shape):
    """Small integers (as ``dtype``): ties, zeros and equal pairs are common."""
    return lambda r, dt, prev: _cast(r.integers(-1, 3, shape), dt)


def nonzero(*shape):
    def gen(r, dt, prev):
        mag = r.integers(1, 4, shape) if dt.kind in "iu" else r.uniform(0.5, 2.0, shape)
        return _cast(np.where(r.random(shape) < 0.5, -mag, mag), dt)

    return gen


def boolean(*shape):
    return lambda r, dt, prev: r.random(shape) < 0.5


def specials(*shape):
    """Floats with NaN, +inf and -inf among finite values."""

    def gen(r, dt, prev):
        pool = np.array([np.nan, np.inf, -np.inf, 0.0, 1.5, -2.0])
        return pool[r.integers(0, len(pool), shape)].astype(dt)

    return gen


def index(n, *shape):
    return lambda r, dt, prev: r.integers(0, n, shape).astype(np.intp)


def wellcond(*shape):
    """Square matrices (stacks) safely away from singular."""
    n = shape[-1]
    return lambda r, dt, prev: (r.uniform(-1, 1, shape) + n * np.eye(n)).astype(dt)


def spd(*shape):
    def gen(r, dt, prev):
        a = r.uniform(-1, 1, shape)
        return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)

    return gen


def sym(*shape):
    def gen(r, dt, prev):
        a = r.uniform(-1, 1, shape)
        return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dt)

    return gen


def derived(fn):
    """An argument computed from the previous ones (e.g. ``ans = max(x)``)."""
    return lambda r, dt, prev: np.asarray(fn(*prev)).astype(prev[-1].dtype)


def _softmax(x, axes):
    e = np.exp(x - np.max(x, axis=axes, keepdims=True))
    return e / np.sum(e, axis=axes, keepdims=True)


# --------------------------------------------------------------------------
# the table


@dataclass
class V:
    """One variant of a primitive's case."""

    args: list
    params: dict
    dtypes: tuple = F
    groups: tuple = ()  # tuples of argument indices that are mapped (or not) together
    rtol32: float = 2e-5
    call: Callable = None  # a public wrapper to use instead of prim.bind
    multi: bool = False  # with ``call``: it returns a tuple of outputs
    modes: tuple = ("fwd", "rev")  # derivative modes the primitive supports


CASES = {}


def case(names, *variants):
    for n in names.split():
        assert n not in CASES, n
        CASES[n] = list(variants)


# unary elementwise math
for _names, _gen, _dts in [
    ("abs neg", real, FI),
    ("arcsinh arctan cbrt cosh exp2 expm1 sinh sigmoid softplus relu erf", real, F),
    ("arccos arcsin arctanh tan", unit, F),
    ("log log10 log2 log1p sqrt", pos, F),
    ("arccosh", gt1, F),
    ("floor ceil", real, F),
    ("sign", real, FI),
]:
    case(_names, V([_gen(2, 3)], {}, _dts), V([_gen()], {}, _dts))
# complex parts (complex examples, and real ones, where real/conj are the identity)
C = (np.dtype(np.complex128), np.dtype(np.complex64))


def cplx(*shape):
    def gen(r, dt, prev):
        z = r.uniform(-2, 2, shape) + 1j * r.uniform(-2, 2, shape)
        return z.astype(dt) if dt.kind == "c" else z.real.astype(dt)

    return gen


case("real_part imag_part conjugate", V([cplx(2, 3)], {}, C), V([cplx()], {}, C), V([real(4)], {}, F))
# exp/sin/cos/tanh run vectorized kernels on 128+ elements: one variant above, one below
case("exp sin cos tanh", V([real(3, 50)], {}), V([real(4)], {}))
case("gelu", V([real(2, 3)], {"approximate": False}, F), V([real(5)], {"approximate": True}, F))
case(
    "gelu_grad",
    V([real(2, 3), real(3)], {"approximate": False}, F),
    V([real(4), real(4)], {"approximate": True}, F),
    V([real(4), Fixed(1.5)], {"approximate": False}, F),
)
case("round", V([real(2, 3, hi=3.0)], {"decimals": 0}), V([real(5)], {"decimals": 1}))
case("stop_gradient", V([real(2, 3)], {}, FI))
case("isnan isinf isfinite", V([specials(2, 3)], {}), V([specials()], {}))
case("logical_not", V([boolean(2, 3)], {}, (BOOL,)), V([ties(4)], {}, (F64, I64)))

# binary elementwise math with NumPy broadcasting (and a weakly typed scalar)
for _names, _g0, _g1, _dts in [
    ("add sub mul", real, real, FI),
    ("maximum minimum", ties, ties, FI),
    ("div", real, nonzero, FI),
    ("floor_divide mod", real, nonzero, FI),
    ("arctan2 hypot logaddexp", real, real, F),
    ("pow", pos, real, F),
    ("eq ne lt le gt ge", ties, ties, FIB),
    ("logical_and logical_or logical_xor", ties, ties, (BOOL, F64)),
    ("sin_grad cos_grad softplus_grad", real, real, F),
    ("tanh_grad", real, unit, F),
    ("sigmoid_grad", real, pos, F),
]:
    case(
        _names,
        V([_g0(2, 3), _g1(3)], {}, _dts),
        V([_g0(), _g1(2, 3)], {}, _dts),
        V([_g0(4), Fixed(1.5)], {}, _dts),
    )
# primitives/elementwise_fused.py: a small variant (NumPy path) and one of 150
# elements (the Numba kernels run on 128+ same-shape float operands)
case("sinc", V([real(2, 3)], {}), V([real()], {}), V([real(3, 50)], {}))
case(
    "sinc_grad",
    V([real(2, 3), real(3)], {}),
    V([real(3, 50), real(3, 50)], {}),
    V([real(4), Fixed(1.5)], {}),
)
case("fmod", V([real(2, 3), nonzero(3)], {}, FI), V([real(4), Fixed(1.5)], {}, FI))
case(
    "fmod_grad",
    V([real(2, 3), real(3), nonzero(2, 3)], {}),
    V([real(3, 50), real(3, 50, lo=-9.0, hi=9.0), nonzero(3, 50)], {}),
)
case("logaddexp2", V([real(2, 3), real(3)], {}), V([real(4), Fixed(1.5)], {}))
case(
    "logaddexp_grad",
    V([real(2, 3), real(3), real(2, 3)], {"scale": 1.0}),
    V([real(3, 50), real(3, 50), real(3, 50)], {"scale": float(np.log(2.0))}),
)
case("ldexp", V([real(2, 3), index(5, 3)], {}), V([real(4), Fixed(3)], {}))
case(
    "unary_grad",
    V([real(2, 3), unit(3)], {"fn": "arcsin"}),
    V([real(3, 50), unit(3, 50)], {"fn": "arccos"}),
    V([real(4), real(4)], {"fn": "arctan"}),
    V([real(3, 50), real(3, 50)], {"fn": "arcsinh"}),
    V([real(2, 3), gt1(2, 3)], {"fn": "arccosh"}),
    V([real(3, 50), unit(3, 50)], {"fn": "arctanh"}),
    V([real(3), pos(2, 3)], {"fn": "log1p"}),
    V([real(3, 50), real(3, 50)], {"fn": "expm1"}),
    V([real(2, 3), pos(3)], {"fn": "exp2"}),
)
case(
    "arctan2_grad",
    V([real(2, 3), real(3), nonzero(2, 3)], {"wrt_x": False}),
    V([real(3, 50), real(3, 50), nonzero(3, 50)], {"wrt_x": True}),
)
case(
    "hypot_grad",
    V([real(2, 3), real(3), pos(2, 3)], {}),
    V([real(3, 50), real(3, 50), pos(3, 50)], {}),
)
case("cbrt_grad", V([real(2, 3), nonzero(3)], {}), V([real(3, 50), nonzero(3, 50)], {}))
# pow_grad_x's last operand must be power(x, y) (the kernel divides it by x)
_pow_xy = derived(lambda g, x, y: np.power(x, y))
case(
    "pow_grad_x",
    V([real(2, 3), pos(3), real(2, 3), _pow_xy], {}, groups=((1, 2, 3),)),
    V([real(3, 50), pos(3, 50), real(3, 50), _pow_xy], {}, groups=((1, 2, 3),)),
)
case(
    "pow_grad_y",
    V([real(2, 3), pos(3), pos(2, 3)], {}),
    V([real(3, 50), pos(3, 50), pos(3, 50)], {}),
)
case(
    "integer_pow",
    V([real(2, 3)], {"y": 3}, FI),
    V([real(4)], {"y": 2}, FI),
    V([real(3)], {"y": 0}),
)
case(
    "select",
    V([boolean(2, 3), real(2, 3), real(3)], {}, FIB),
    V([boolean(3), real(2, 3), Fixed(0.0)], {}),
)
case(
    "clip",
    V([real(2, 3), real(3, lo=-1.0, hi=0.0), real(lo=0.0, hi=1.0)], {}, FI),
    V([real(2, 3), Fixed(None), real(2, 3, lo=0.0, hi=1.0)], {}),
    V([real(4), real(4, lo=-1.0, hi=0.0), Fixed(None)], {}),
)

# structural
case(
    "reshape",
    V([real(2, 3, 4)], {"shape": (6, 4)}, FIB),
    V([real(4)], {"shape": (2, 2)}),
    V([real()], {"shape": (1, 1)}),
)
case(
    "transpose",
    V([real(2, 3, 4)], {"axes": (2, 0, 1)}, FIB),
    V([real(2, 3)], {"axes": (1, 0)}),
)
case(
    "broadcast_to",
    V([real(3, 1)], {"shape": (2, 3, 4)}, FIB),
    V([real()], {"shape": (2, 3)}),
    V([real(1, 3)], {"shape": (2, 3)}),
)
case(
    "sum_to_shape",
    V([real(2, 3, 4)], {"shape": (3, 1)}, FI),
    V([real(2, 3)], {"shape": (3,)}),
    V([real(2, 3)], {"shape": (1, 1)}),
)
case(
    "reduce_sum",
    V([real(2, 3, 4)], {"axes": (0, 2)}, FIB),
    V([real(3)], {"axes": (0,)}),
    V([real(2, 3)], {"axes": ()}),
)
case(
    "convert_element_type",
    V([real(2, 3)], {"dtype": F32}, (F64, I64, BOOL)),
    V([real(4)], {"dtype": I64}, F),
    V([real(2)], {"dtype": F64}, (F32,)),
)
case(
    "concatenate",
    V([real(2, 3), real(1, 3), real(4, 3)], {"axis": 0}, FIB),
    V([real(2, 1), real(2, 3)], {"axis": 1}),
)
case(
    "lstm_cell",
    V([real(3, 8), real(3, 2)], {}),
    V([real(4), real(1)], {}),
)
case(
    "split",
    V([real(5, 3)], {"sizes": (2, 0, 3), "axis": 0}, FIB),
    V([real(2, 4)], {"sizes": (1, 3), "axis": 1}),
)
case(
    "im2col",
    V([real(2, 3, 5, 4)], {"kernel_size": (2, 3), "stride": (2, 1), "padding": ((1, 0), (1, 2)),
                           "dilation": (1, 2), "pad_value": 0.0}),
    V([real(1, 2, 6)], {"kernel_size": (3,), "stride": (2,), "padding": ((1, 1),),
                        "dilation": (1,), "pad_value": -1.5}),
    V([real(1, 1, 3, 2, 3)], {"kernel_size": (2, 1, 2), "stride": (1, 1, 1),
                              "padding": ((0, 0), (0, 1), (1, 0)), "dilation": (1, 1, 1),
                              "pad_value": 0.0}),
)
case(
    "col2im",
    V([real(2, 3, 2, 3, 3, 3)], {"spatial": (5, 4), "kernel_size": (2, 3), "stride": (2, 1),
                                 "padding": ((1, 0), (1, 2)), "dilation": (1, 2)}),
    V([real(1, 2, 3, 3)], {"spatial": (6,), "kernel_size": (3,), "stride": (2,),
                           "padding": ((1, 1),), "dilation": (1,)}),
)
case(
    "slice",
    V([real(5, 6)], {"start_indices": (1, 0), "limit_indices": (4, 6), "strides": (2, 3)}, FIB),
    V([real(7)], {"start_indices": (2,), "limit_indices": (7,), "strides": (1,)}),
)
case(
    "pad",
    V([real(2, 3)], {"config": ((1, 2, 0), (0, 1, 1)), "value": 0.5}, FI),
    V([real(3)], {"config": ((0, 0, 2),), "value": 0.0}),
)
case(
    "rev",
    V([real(2, 3, 4)], {"axes": (0, 2)}, FIB),
    V([real(5)], {"axes": (0,)}),
)

# reductions and scans
case(
    "reduce_max reduce_min",
    V([ties(3, 4)], {"axes": (1,)}, FI),
    V([real(2, 3, 4)], {"axes": (0, 2)}),
    V([real(4)], {"axes": (0,)}),
)
_max1 = derived(lambda ct, x: np.max(x, axis=1))
_min01 = derived(lambda ct, x: np.min(x, axis=(0, 1)))
case(
    "extremum_grad",
    V([real(3), ties(3, 4), _max1], {"axes": (1,)}, groups=((1, 2),)),
    V([real(), ties(3, 4), _min01], {"axes": (0, 1)}, groups=((1, 2),)),
)
case(
    "extremum_tangent",
    V([real(3, 4), ties(3, 4), _max1], {"axes": (1,)}, groups=((1, 2),)),
    V([real(3, 4), ties(3, 4), _min01], {"axes": (0, 1)}, groups=((1, 2),)),
)
case(
    "reduce_prod",
    V([real(3, 4)], {"axes": (1,)}, FI),
    V([ties(2, 3, 4)], {"axes": (0, 2)}),
)
case(
    "cumsum",
    V([real(3, 4)], {"axis": 1, "reverse": False}, FIB),
    V([real(2, 3, 4)], {"axis": 0, "reverse": True}),
)
case(
    "cumprod",
    V([real(3, 4)], {"axis": 1, "reverse": False}, FI),
    V([real(2, 3, 4)], {"axis": 1, "reverse": True}),
)
case(
    "linear_recurrence",
    V([unit(4, 3), real(4, 3)], {"axis": 0, "reverse": False}),
    V([unit(2, 5), real(2, 5)], {"axis": 1, "reverse": True}),
)
case(
    "argmax argmin",
    V([ties(3, 4)], {"axes": (1,)}, FIB),
    V([real(5)], {"axes": (0,)}),
)
case(
    "reduce_all reduce_any",
    V([ties(3, 4)], {"axes": (1,)}, (BOOL, F64, I64)),
    V([ties(3, 4)], {"axes": (0, 1)}, (BOOL, F64)),
    V([ties(3)], {"axes": ()}, (BOOL,)),
)

# indexing
case(
    "gather",
    V([real(4, 3), index(4, 2, 5)], {"axis": 0}, FIB),
    V([real(2, 5), index(5, 3)], {"axis": 1}),
    V([real(4, 3), index(4)], {"axis": 0}),
)
case(
    "scatter_add",
    V([real(2, 5, 3), index(4, 5)], {"axis": 1, "size": 4}, FI),
    V([real(6), index(3, 6)], {"axis": 0, "size": 3}),
    V([real(2, 3, 4), index(5, 2, 3)], {"axis": 0, "size": 5}),
)
case(
    "argsort",
    V([ties(3, 5)], {"axis": 1, "kind": "stable"}, FIB),
    V([real(6)], {"axis": 0, "kind": None}),
)

# keyed random numbers (uint32 bit patterns; erf_inv on (-1, 1))
U32 = (np.dtype(np.uint32),)


def words(*shape):
    return lambda r, dt, prev: r.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)


case(
    "threefry2x32",
    V([words(), words(), words(5), words(5)], {}, U32),
    V([words(3, 1), words(3, 1), words(3, 4), words(4)], {}, U32),
)
case("uint_xor", V([words(3, 4), words(4)], {}, U32), V([ties(5), ties(5)], {}, (I64, BOOL)))
case("erf_inv", V([unit(3, 4)], {}, F))

# special functions (primitives/special.py); lgamma and gamma away from their poles
case("erfc erfcx ndtr log_ndtr", V([real(2, 3, lo=-4.0, hi=4.0)], {}, F), V([real()], {}, F))
case("lgamma gamma", V([pos(2, 3)], {}, F), V([real(4, lo=-2.9, hi=-2.1)], {}, F))
case("polygamma", V([pos(2, 3)], {"n": 0}, F), V([pos(4)], {"n": 2}, F),
     V([real(3, lo=-1.9, hi=-1.1)], {"n": 1}, F))
case("ndtri", V([real(2, 3, lo=0.05, hi=0.95)], {}, F))
case("betaln", V([pos(2, 3), pos(3)], {}, F), V([pos(), real(4, lo=12.0, hi=40.0)], {}, F))
# compositions fused into one kernel (issue 11)
case("logit", V([real(2, 3, lo=0.05, hi=0.95)], {}, F))
case("entr", V([pos(2, 3)], {}, F))
case("xlog1py xlogy beta poch", V([pos(2, 3), pos(3)], {}, F), V([pos(), pos(4)], {}, F))
# spmore (issue 11): modified Bessel functions, exponential integrals, zeta
case("bessel_i", V([real(2, 3, lo=-4.0, hi=4.0)], {"n": 0, "scaled": False}, F),
     V([real(4, lo=-30.0, hi=30.0)], {"n": 1, "scaled": True}, F))
case("exp1 expi", V([pos(2, 3)], {}, F))
case("expn", V([ties(2, 3), pos(2, 3)], {}, F), V([ties(3), pos(4, 3)], {}, F))
# (no derivative in zeta's x: the q-derivative is checked in tests/test_scipy_special_more.py)
case("zeta", V([gt1(2, 3), pos(3)], {}, F, modes=()))
case("riemann_zeta", V([real(2, 3, lo=-3.0, hi=0.9)], {}, F, modes=()))
# incomplete gamma and beta (issue 11, spinc)
case("igamma igammac", V([pos(2, 3), pos(3)], {}, F), V([pos(), pos(4)], {}, F))
case("betainc betaincc", V([pos(2, 3), pos(3), real(3, lo=0.05, hi=0.95)], {}, F),
     V([pos(4), pos(), real(4, lo=0.05, hi=0.95)], {}, F))
# Dawson's integral and Spence's function (issue 11)
case("dawsn", V([real(2, 3, lo=-3.0, hi=3.0)], {}, F))
case("spence", V([pos(2, 3)], {}, F))
# Bessel functions (primitives/bessel.py); the order v is a static param, Y on x > 0
case("bessel_j0 bessel_j1", V([real(2, 3, lo=-6.0, hi=6.0)], {}, F), V([real()], {}, F))
case("bessel_y0 bessel_y1", V([pos(2, 3)], {}, F))
case("bessel_jv bessel_yv bessel_iv bessel_ive", V([pos(2, 3)], {"v": 2.5}, F),
     V([pos(4)], {"v": 0.0}, F), V([pos()], {"v": -1.3}, F))
case("random_gamma", V([words(2), pos(3)], {"log_space": False}, F),
     V([words(2), pos(2, 3)], {"log_space": True}, F))
case("random_gamma_grad", V([pos(3), pos(3)], {}, F))
case("random_poisson", V([words(2), real(4, lo=0.0, hi=30.0)], {"dtype": I64}, (F32,)))

# linear algebra
case(
    "matmul",
    V([real(3, 4), real(4, 2)], {}, FI),
    V([real(2, 3, 4), real(4, 5)], {}),
    V([real(3, 4), real(2, 4, 2)], {}),
)
case(
    "einsum",
    V([real(3, 4), real(4, 2)], {"spec": "ij,jk->ik", "optimize": False}),
    V([real(2, 3, 4), real(2, 4, 5)], {"spec": "bij,bjk->bik", "optimize": False}),
    V([real(2, 3), real(3, 4), real(4, 2)], {"spec": "ij,jk,kl->il", "optimize": True}),
    V([real(3, 4), real(4)], {"spec": "ij,j->i", "optimize": False}),
)
_la = dict(rtol32=2e-4)
# the fft primitive: each transform type, one and several axes (not in order)
case(
    "fft",
    V([cplx(3, 4)], {"fft_type": "FFT", "axes": (1,), "lengths": (4,)}, C),
    V([cplx(2, 3, 4)], {"fft_type": "IFFT", "axes": (2, 0), "lengths": (4, 2)}, C),
    V([real(3, 5)], {"fft_type": "RFFT", "axes": (0, 1), "lengths": (3, 5)}, F),
    V([real(4, 2)], {"fft_type": "RFFT", "axes": (0,), "lengths": (4,)}, F),
    V([cplx(3, 4)], {"fft_type": "IRFFT", "axes": (1,), "lengths": (6,)}, C),
    V([cplx(2, 3, 4)], {"fft_type": "IRFFT", "axes": (2, 0), "lengths": (4, 2)}, C),
)
case("inv", V([wellcond(3, 3)], {}, **_la), V([wellcond(2, 3, 3)], {}, **_la))
case(
    "solve",
    V([wellcond(3, 3), real(3, 2)], {}, **_la),
    V([wellcond(2, 3, 3), real(3, 1)], {}, **_la),
)
case(
    "triangular_solve",
    V([wellcond(3, 3), real(3, 2)], {"lower": True, "trans": 0, "unit_diagonal": False}, **_la),
    V([wellcond(2, 3, 3), real(3, 1)], {"lower": False, "trans": 1, "unit_diagonal": True}, **_la),
    V([wellcond(3, 3), real(2, 3, 2)], {"lower": True, "trans": 2, "unit_diagonal": False}, **_la),
)
case("lu", V([real(3, 3)], {}, **_la), V([wellcond(2, 3, 3)], {}, **_la))
case("expm", V([real(3, 3)], {}, **_la), V([real(2, 2, 2)], {}, **_la))


def pivots(*shape):
    """Valid LAPACK row interchanges: entry i in [i, n) (n = shape[-1] + 1)."""
    n = shape[-1]
    return lambda r, dt, prev: np.stack(
        [r.integers(np.arange(n), n + 1) for _ in range(int(np.prod(shape[:-1])))]
    ).reshape(shape).astype(dt)


case("lu_pivots_to_permutation", V([pivots(4)], {"size": 5}, (I64,)),
     V([pivots(2, 3)], {"size": 4}, (I64,)))
case("det", V([wellcond(3, 3)], {}, **_la), V([real(2, 2, 2)], {}, **_la))
case("slogdet", V([real(3, 3)], {}, **_la), V([wellcond(2, 2, 2)], {}, **_la))
case(
    "cholesky",
    V([spd(3, 3)], {"upper": False}, **_la),
    V([spd(2, 3, 3)], {"upper": True}, **_la),
)
case(
    "eigh",
    V([sym(3, 3)], {"UPLO": "L"}, **_la),
    V([sym(2, 3, 3)], {"UPLO": "U"}, **_la),
)
case("eig", V([wellcond(3, 3)], {}, **_la), V([real(2, 3, 3)], {}, **_la))
case(
    "svd",
    V([real(4, 3)], {"full_matrices": False}, **_la),
    V([real(3, 4)], {"full_matrices": True}, **_la),
)
case(
    "qr",
    V([real(4, 3)], {"mode": "reduced"}, **_la),
    V([real(3, 4)], {"mode": "complete"}, **_la),
    V([real(2, 4, 3)], {"mode": "reduced"}, **_la),
)
# issue 11, tracegrad.scipy.linalg: matrix functions and decompositions from SciPy
case(
    "solve_sylvester",
    V([wellcond(3, 3), wellcond(2, 2), real(3, 2)], {}, **_la),
    V([wellcond(2, 3, 3), wellcond(2, 2), real(3, 2)], {}, **_la),
)
case("sqrtm logm", V([wellcond(3, 3)], {}, C, **_la), V([wellcond(2, 3, 3)], {}, C, **_la))
# schur and hessenberg raise when differentiated (no derivative, as in JAX)
case(
    "schur",
    V([real(3, 3)], {"output": "real"}, modes=(), **_la),
    V([cplx(2, 3, 3)], {"output": "complex"}, C, modes=(), **_la),
)
case("hessenberg", V([real(4, 4)], {}, modes=(), **_la), V([real(2, 3, 3)], {}, modes=(), **_la))
case("qr_pivots", V([real(4, 3)], {}), V([real(2, 3, 4)], {}))

# nn
case(
    "softmax log_softmax logsumexp",
    V([real(3, 4)], {"axes": (1,)}),
    V([real(2, 3, 4)], {"axes": (0, 2)}),
)
case(
    "softmax_grad",
    V([real(3, 4), derived(lambda g: _softmax(np.asarray(g) * 1.3, (1,)))], {"axes": (1,)}),
    V([real(2, 3, 4), derived(lambda g: _softmax(-np.asarray(g), (0, 2)))], {"axes": (0, 2)}),
)
case(
    "log_softmax_vjp log_softmax_jvp",
    V([real(3, 4), derived(lambda c: np.log(_softmax(np.asarray(c) * 1.3, (1,))))], {"axes": (1,)}),
    V([real(2, 3, 4), derived(lambda c: np.log(_softmax(-np.asarray(c), (0, 2))))], {"axes": (0, 2)}),
)
case(
    "logsumexp_grad",
    V([real(3), real(3, 4)], {"axes": (1,)}),
    V([real(3), real(2, 3, 4)], {"axes": (0, 2)}),
)


# call primitives: bound by the public wrappers, which build the functions
# that are their static params (JAX's interface)


def _custom_jvp_case():
    tnp = tracegrad.numpy

    @tg.custom_jvp
    def f(x, y):
        return tnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), tnp.cos(x) * y * tx + tnp.sin(x) * ty

    @tg.custom_jvp
    def g(x):  # two outputs
        return tnp.exp(x), tnp.sum(x * x)

    @g.defjvp
    def g_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return g(x), (tnp.exp(x) * t, tnp.sum(2.0 * x * t))

    return (V([real(2, 3), real(2, 3)], {}, call=f), V([real(4)], {}, call=g, multi=True))


def _custom_vjp_case():
    tnp = tracegrad.numpy

    @tg.custom_vjp
    def f(x, y):
        return x * tnp.tanh(y)

    def f_fwd(x, y):
        t = tnp.tanh(y)
        return x * t, (x, t)

    def f_bwd(res, ct):
        x, t = res
        return ct * t, ct * x * (1.0 - t * t)

    f.defvjp(f_fwd, f_bwd)
    # forward mode of a custom_vjp function is an error (as in JAX)
    return (V([real(2, 3), real(2, 3)], {}, call=f, modes=("rev",)),)


def _checkpoint_case():
    tnp = tracegrad.numpy

    @tg.checkpoint
    def f(x, y):
        return tnp.sin(x) * tnp.cos(y) + x

    return (V([real(2, 3), real(3)], {}, call=f),)


def _lazy_case(name, make):
    # the wrappers may not exist yet: that case then fails, not the collection
    def fail(*args, **kw):
        pytest.fail(f"{name}: its public wrapper is missing ({err})")

    try:
        CASES[name] = list(make())
    except AttributeError as e:
        err = e
        CASES[name] = [V([real(2, 3)], {}, call=fail)]


_lazy_case("custom_jvp_call", _custom_jvp_case)
_lazy_case("custom_vjp_call", _custom_vjp_case)
_lazy_case("remat_call", _checkpoint_case)


def _jit_case():
    tnp = tracegrad.numpy

    def f(x, y):
        return tnp.sin(x) * tnp.cos(y) + x

    def g(x):  # two outputs
        return tnp.exp(x), tnp.sum(x * x)

    jf, jg = tg.jit(f), tg.jit(g)

    # jit binds jit_call only under a transform (at top level it runs the
    # compiled program itself), which vmap is
    return (V([real(2, 3), real(3)], {}, call=jf), V([real(4)], {}, call=jg, multi=True))


_lazy_case("jit_call", _jit_case)


def _control_flow_cases():
    # lax binds scan/cond/while only under staging, so the calls are jitted:
    # vmap and the derivatives reach the primitives' rules inside the staged
    # program (tests/test_jit_registry.py unwraps them: jit of the plain function)
    tnp = tracegrad.numpy
    lax = tracegrad.lax

    def scan_f(h0, xs):
        h, ys = lax.scan(lambda h, x: (tnp.tanh(h * x + 0.5), h * x), h0, xs)
        return h + tnp.sum(ys, axis=0)

    def cond_f(p, x):
        return lax.cond(p > 0, lambda x: tnp.sin(x), lambda x: tnp.cos(x) * x, x)

    def while_f(x):
        return lax.while_loop(lambda c: c[1] < 3,
                              lambda c: (c[0] * 1.5 + tnp.sin(c[0]), c[1] + 1), (x, 0))[0]

    return {
        "scan": [V([real(3), real(4, 3)], {}, call=tg.jit(scan_f))],
        "cond": [V([real(), real(3)], {}, call=tg.jit(cond_f))],
        # reverse mode of while_loop raises, as in JAX
        "while": [V([real(3)], {}, call=tg.jit(while_f), modes=("fwd",))],
    }


try:
    CASES.update(_control_flow_cases())
except AttributeError as _err:  # the wrappers may not exist yet: those cases then fail
    _missing = _err
    CASES.update({n: [V([real(3)], {}, call=lambda *a: pytest.fail(f"{n}: {_missing}"))]
                  for n in ("scan", "cond", "while")})


# --------------------------------------------------------------------------
# running one configuration


def _seed(*parts):
    return zlib.crc32("/".join(map(str, parts)).encode())


def _examples(v, rng, dt, n):
    """``n`` examples, each a list of argument values (Fixed for closed-over ones)."""
    out = []
    for _ in range(n):
        args = []
        for g in v.args:
            args.append(g if isinstance(g, Fixed) else g(rng, dt, args))
        out.append(args)
    return out


def _slots(v):
    return [i for i, g in enumerate(v.args) if not isinstance(g, Fixed)]


def _stack(values, axis, like):
    """Stack per-example values along ``axis``; ``like`` gives the shape and
    dtype of one example when there are none."""
    if not values:
        like = np.asarray(like)
        return np.moveaxis(np.zeros((0,) + like.shape, like.dtype), 0, axis)
    return np.stack([np.asarray(x) for x in values], axis=axis)


def _multi(prim, v):
    return v.multi if v.call is not None else prim.multiple_results


def _apply(prim, v, args):
    """The primitive on one set of arguments: ``prim.bind`` or the case's public
    wrapper (call primitives bind functions built by their wrapper)."""
    out = (prim.bind if v.call is None else v.call)(*args, **v.params)
    return tuple(out) if _multi(prim, v) else out


def _outs(prim, v, out):
    return list(out) if _multi(prim, v) else [out]


@dataclass
class Config:
    label: str
    size: int
    in_axes: tuple  # one entry per array slot
    out_axes: object  # int, or a tuple (one per output) for multiple results

    def __str__(self):
        return f"{self.label}: batch {self.size}, in_axes={self.in_axes}, out_axes={self.out_axes}"


def _configs(prim, v, ex, rng, zero_batch=True):
    """The in_axes/out_axes configurations run for one variant."""
    slots = _slots(v)
    ranks = [np.ndim(ex[i]) for i in slots]
    ref = _outs(prim, v, _apply(prim, v, ex))
    out_ranks = [np.ndim(o) for o in ref]

    def per_out(fn):
        axes = tuple(fn(r) for r in out_ranks)
        return axes if _multi(prim, v) else axes[0]

    def rand_ax(r):
        return int(rng.integers(-(r + 1), r + 1))

    def random_in_axes():
        group_of = {}
        for g in v.groups:
            for i in g:
                group_of[i] = g
        while True:
            unmapped = {}
            for i in slots:
                key = group_of.get(i, (i,))
                if key not in unmapped:
                    unmapped[key] = len(slots) > 1 and rng.random() < 0.4
            axes = tuple(
                None if unmapped[group_of.get(i, (i,))] else rand_ax(r)
                for i, r in zip(slots, ranks)
            )
            if any(a is not None for a in axes):
                return axes

    def random_out():
        if _multi(prim, v) and rng.random() < 0.5:
            return tuple(rand_ax(r) for r in out_ranks)
        return rand_ax(min(out_ranks))

    cfgs = [
        Config("all at axis 0", 3, tuple(0 for _ in slots), per_out(lambda r: 0)),
        Config("all at axis -1", 5, tuple(-1 for _ in slots), per_out(lambda r: -1)),
        Config(
            "middle axes",
            4,
            tuple((r + 1) // 2 for r in ranks),
            per_out(lambda r: (r + 1) // 2),
        ),
        Config("random", 3, random_in_axes(), random_out()),
        Config("random", 2, random_in_axes(), random_out()),
        Config("batch of 1", 1, random_in_axes(), random_out()),
    ]
    if zero_batch:
        cfgs.append(Config("empty batch", 0, random_in_axes(), random_out()))
    return cfgs


def _batched_inputs(v, examples, in_axes, size):
    """The vmap inputs of the first ``size`` examples (an unmapped argument is
    example 0's), and each example's arguments as the loop sees them."""
    slots = _slots(v)
    per_ex, inputs = [], []
    for i, ax in zip(slots, in_axes):
        if ax is None:
            inputs.append(examples[0][i])
        else:
            inputs.append(_stack([e[i] for e in examples[:size]], ax, examples[0][i]))
    for e in examples[:size]:
        args = list(e)
        for i, ax in zip(slots, in_axes):
            if ax is None:
                args[i] = examples[0][i]
        per_ex.append(args)
    return inputs, per_ex


def _merge(v, template, values):
    args = list(template)
    for i, x in zip(_slots(v), values):
        args[i] = x
    return _fixed_values(args)


def _fixed_values(args):
    return [a.value if isinstance(a, Fixed) else a for a in args]


def _assert_same(actual, expected, dt, rtol32, what):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape}, the loop gives {expected.shape}"
    )
    assert actual.dtype == expected.dtype, (
        f"{what}: dtype {actual.dtype}, the loop gives {expected.dtype}"
    )
    if expected.dtype.kind in "fc":
        single = expected.dtype == F32 or dt == F32
        tol = rtol32 if single else 1e-12
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def _run_config(prim, v, dt, cfg, rng):
    examples = _examples(v, rng, dt, max(cfg.size, 1))
    inputs, per_ex = _batched_inputs(v, examples, cfg.in_axes, cfg.size)
    template = examples[0]

    def f(*xs):
        return _apply(prim, v, _merge(v, template, xs))

    with np.errstate(all="ignore"):
        loop = [_outs(prim, v, _apply(prim, v, _fixed_values(a))) for a in per_ex]
        like = _outs(prim, v, _apply(prim, v, _fixed_values(template)))
        actual = tg.vmap(f, in_axes=cfg.in_axes, out_axes=cfg.out_axes)(*inputs)
    actual = _outs(prim, v, actual)
    assert len(actual) == len(like), f"{len(actual)} outputs, expected {len(like)}"
    out_axes = cfg.out_axes if isinstance(cfg.out_axes, tuple) else (cfg.out_axes,) * len(like)
    for k, (a, ax) in enumerate(zip(actual, out_axes)):
        expected = _stack([o[k] for o in loop], ax, like[k])
        _assert_same(a, expected, dt, v.rtol32, f"output {k}")


# --------------------------------------------------------------------------
# the tests


def _variant_params():
    params = []
    for name in sorted(registry):
        variants = CASES.get(name)
        if not variants:
            params.append(pytest.param(name, None, None, id=f"{name}-NO-CASE"))
            continue
        for vi, v in enumerate(variants):
            for dt in v.dtypes:
                params.append(pytest.param(name, vi, dt, id=f"{name}-v{vi}-{dt.name}"))
    return params


def test_every_primitive_has_a_vmap_case():
    missing = sorted(set(registry) - set(CASES))
    assert not missing, (
        f"{len(missing)} primitives have no vmap case in tests/test_vmap_primitives.py "
        f"(add one to CASES): {missing}"
    )
    stale = sorted(set(CASES) - set(registry))
    assert not stale, f"CASES names primitives that are not in the registry: {stale}"


@pytest.mark.parametrize("name, vi, dt", _variant_params())
def test_vmap_matches_loop(name, vi, dt, monkeypatch):
    if vi is None:
        pytest.fail(f"primitive {name!r} has no vmap case: add one to CASES")
    prim = registry[name]
    v = CASES[name][vi]
    rng = np.random.default_rng(_seed(name, vi, dt))
    ex = _examples(v, rng, dt, 1)[0]
    rule_calls = []
    if prim.batch is not None:  # record that the case reaches this primitive's rule
        rule = prim.batch

        def recorded(*args, **params):
            rule_calls.append(1)
            return rule(*args, **params)

        monkeypatch.setattr(prim, "batch", recorded)
    failures = []
    for cfg in _configs(prim, v, _fixed_values(ex), rng):
        try:
            _run_config(prim, v, dt, cfg, rng)
        except NotImplementedError:
            raise
        except Exception as e:  # noqa: BLE001 - collect every configuration's failure
            failures.append(f"[{cfg}] {type(e).__name__}: {e}")
    assert not failures, (
        f"vmap of {name} (variant {vi}, {dt}, params {v.params}) differs from the loop in "
        f"{len(failures)} configurations:\n" + "\n".join(failures)
    )
    assert rule_calls, f"the {name} case never reached the primitive's batching rule"


# --------------------------------------------------------------------------
# composition with the derivative transforms, per differentiable primitive


# incomplete gamma and beta (issue 11, spinc): differentiable in their last
# operand x only (the shape-parameter derivative raises NotImplementedError)
X_ONLY = {"igamma", "igammac", "betainc", "betaincc"}


def _deriv_names():
    return [n for n in sorted(registry) if registry[n].differentiable]


def _float_slots(v, ex):
    return [i for i in _slots(v) if np.asarray(ex[i]).dtype.kind == "f"]


@pytest.mark.parametrize("name", _deriv_names())
def test_vmap_composes_with_derivatives(name):
    """The batching rule runs under jvp/vjp (and the derivative rules under
    vmap): all four orders equal loops of per-example jvp/vjp."""
    if not CASES.get(name):
        pytest.fail(f"primitive {name!r} has no vmap case: add one to CASES")
    prim = registry[name]
    v = CASES[name][0]
    rng = np.random.default_rng(_seed("deriv", name))
    size = 3
    examples = _examples(v, rng, F64, size)
    template = examples[0]
    cfg = _configs(prim, v, _fixed_values(template), rng, zero_batch=False)[3]
    inputs, per_ex = _batched_inputs(v, examples, cfg.in_axes, size)
    slots = _slots(v)
    fslots = _float_slots(v, template)
    if name in X_ONLY:  # their shape parameters are held constant
        fslots = [i for i in fslots if i == slots[-1]]
    oslots = [i for i in slots if i not in fslots]
    axis_of, input_of = dict(zip(slots, cfg.in_axes)), dict(zip(slots, inputs))
    faxes = tuple(axis_of[i] for i in fslots)
    oaxes = tuple(axis_of[i] for i in oslots)
    fin = [input_of[i] for i in fslots]
    others = [input_of[i] for i in oslots]
    n = len(fslots)

    def of_floats(other_vals):
        """One application as a function of the float arguments only."""

        def fn(*fs):
            vals = dict(zip(fslots, fs)) | dict(zip(oslots, other_vals))
            return _apply(prim, v, _merge(v, template, [vals[i] for i in slots]))

        return fn

    def body(*xs):  # float args, then the other array args
        return of_floats(xs[n:])(*xs[:n])

    def f_batched(*fs):
        return tg.vmap(body, in_axes=faxes + oaxes)(*fs, *others)

    tangents = [rng.standard_normal(np.shape(x)) for x in fin]
    outs0 = _outs(prim, v, _apply(prim, v, _fixed_values(per_ex[0])))
    cts = [rng.standard_normal((size,) + np.shape(o)).astype(np.asarray(o).dtype) for o in outs0]
    ct_batched = tuple(cts) if _multi(prim, v) else cts[0]

    # per-example references
    ref_t, ref_ct = [], []
    for b, args in enumerate(per_ex):
        fn = of_floats([args[i] for i in oslots])
        fx = [args[i] for i in fslots]
        tb = [t if ax is None else np.take(t, b, axis=ax) for t, ax in zip(tangents, faxes)]
        if "fwd" in v.modes:
            ref_t.append(_outs(prim, v, tg.jvp(fn, fx, tb)[1]))
        ct = [c[b] for c in cts]
        if "rev" in v.modes:
            ref_ct.append(tg.vjp(fn, *fx)[1](tuple(ct) if _multi(prim, v) else ct[0]))

    def check_tangents(tout):
        for k, t in enumerate(_outs(prim, v, tout)):
            _assert_same(t, np.stack([r[k] for r in ref_t]), F64, 0, f"tangent {k}")

    def check_cotangents(got, shared_summed):
        for k, ax in enumerate(faxes):
            per = [r[k] for r in ref_ct]
            if not shared_summed:  # vmap of vjp_fun: one cotangent per example
                exp = np.stack(per)
            elif ax is None:  # a shared argument collects every example's cotangent
                exp = np.sum(per, axis=0)
            else:
                exp = np.stack(per, axis=ax)
            _assert_same(got[k], exp, F64, 0, f"cotangent of float argument {k}")

    def jvp_of_vmap():
        check_tangents(tg.jvp(f_batched, fin, tangents)[1])

    def vjp_of_vmap():
        check_cotangents(tg.vjp(f_batched, *fin)[1](ct_batched), shared_summed=True)

    def vmap_of_jvp():
        def h(*xs):
            return tg.jvp(of_floats(xs[2 * n:]), xs[:n], xs[n:2 * n])[1]

        check_tangents(tg.vmap(h, in_axes=faxes + faxes + oaxes)(*fin, *tangents, *others))

    def vmap_of_vjp_fun():
        def h(*xs):
            return tg.vjp(of_floats(xs[n + 1:]), *xs[:n])[1](xs[n])

        got = tg.vmap(h, in_axes=faxes + (0,) + oaxes)(*fin, ct_batched, *others)
        check_cotangents(got, shared_summed=False)

    def vmap_of_recorded_vjp_fun():
        # vjp_fun recorded once, outside vmap, then mapped over cotangents
        args = per_ex[0]
        _, vjp_fun = tg.vjp(of_floats([args[i] for i in oslots]), *[args[i] for i in fslots])
        got = tg.vmap(vjp_fun)(ct_batched)
        for k in range(n):
            exp = np.stack([vjp_fun(tuple(c[b] for c in cts) if _multi(prim, v)
                                    else cts[0][b])[k] for b in range(size)])
            _assert_same(got[k], exp, F64, 0, f"cotangent of float argument {k}")

    failures = []
    with np.errstate(all="ignore"):
        for label, mode, check in [
            ("jvp(vmap(f))", "fwd", jvp_of_vmap),
            ("vjp(vmap(f))", "rev", vjp_of_vmap),
            ("vmap(jvp(f))", "fwd", vmap_of_jvp),
            ("vmap(lambda x, ct: vjp(f, x)[1](ct))", "rev", vmap_of_vjp_fun),
            ("vmap(vjp_fun)", "rev", vmap_of_recorded_vjp_fun),
        ]:
            if mode not in v.modes:
                continue
            try:
                check()
            except NotImplementedError as e:
                failures.append(f"{label}: NotImplementedError: {e}")
            except Exception as e:  # noqa: BLE001 - report every order
                failures.append(f"{label}: {type(e).__name__}: {e}")
    assert not failures, f"{name} (params {v.params}, {cfg}):\n" + "\n".join(failures)
