"""Differential tests against JAX (x64): values and derivatives to third order.

Every row of the tables below pairs a tracegrad function with its
``jax.numpy`` / ``jax.nn`` equivalent.  For each row the same derivative
*paths* are built in both libraries and evaluated at random points and at the
function's special points (0 and -0.0, +-1, integers, ties between arguments,
kinks, the ends of the domain, extreme tails, inf and NaN):

* elementwise unary ``f``: the value, ``D_rev f = grad(sum(f))`` and
  ``D_fwd f = jvp(f, ones)`` composed in every order up to three
  (``rr``, ``fr`` = fwd-over-rev, ``rf``, ``ff``, ``frr``, ``ffr``, ``rrr``)
  and the diagonal of ``hessian`` / ``jacfwd(jacrev)`` / ``jacrev(jacrev)``
  of ``sum(f)``;
* elementwise binary ``f(x, y)``: the same operators per argument, including
  the mixed partials ``d2/dxdy`` (rev-over-rev and fwd-over-rev) and third
  order mixed partials;
* reductions and vector functions ``s(x) = w . f(x)``: ``grad``, ``jacfwd``,
  ``hessian``, ``jacfwd(jacrev)``, ``jacrev(jacrev)``, ``jacrev(jacfwd)`` and
  third order ``jvp`` of the Hessian-vector product and ``jacrev`` cubed.

Each JAX path is compiled once (``jax.jit``) and evaluated on all points of a
row at once (elementwise functions act on the vector of points).

A disagreement is either fixed in tracegrad or listed in ``CONVENTIONS``
(row, path, point, tracegrad's value, JAX's value, why); a listed point is
checked to give exactly tracegrad's recorded value (and JAX's recorded value,
so a change on either side is noticed).  The README's "Semantics at the
edges" lists the same conventions.
"""
import math

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import tracegrad as tg  # noqa: E402
import tracegrad.nn as tnn  # noqa: E402
import tracegrad.numpy as tnp  # noqa: E402

INF, NAN = math.inf, math.nan
RTOL, ATOL = 1e-8, 1e-12

_rng = np.random.default_rng(20261202)
RANDOM = list(np.round(_rng.uniform(-3, 3, 6), 6))
COMMON = [0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, -0.5]
NONFINITE = [INF, -INF, NAN]
POS = [0.0, 1.0, 2.0, 0.5, 1e-300, 1e-8] + [abs(r) for r in RANDOM]
UNIT = [1.0, -1.0, 0.0, -0.0, 0.5, -0.5, 0.999999, -0.999999]


class _Lib:
    """The transforms and array helpers one derivative path needs."""

    def __init__(self, mod, np_, nn_):
        self.grad, self.jvp = mod.grad, mod.jvp
        self.hessian, self.jacfwd, self.jacrev = mod.hessian, mod.jacfwd, mod.jacrev
        self.np, self.nn = np_, nn_


TG = _Lib(tg, tnp, tnn)
JX = _Lib(jax, jnp, jax.nn)


# --------------------------------------------------------------------------
# derivative paths

def _d(lib, g, mode, i, nargs):
    """Derivative of elementwise ``g`` in argument ``i``, elementwise, by ``mode``."""
    if mode == "r":
        return lib.grad(lambda *a: lib.np.sum(g(*a)), argnums=i)

    def fwd(*a):
        tangents = tuple(lib.np.ones_like(v) if k == i else lib.np.zeros_like(v)
                         for k, v in enumerate(a))
        return lib.jvp(g, a, tangents)[1]
    return fwd


def _elementwise_path(lib, f, path, nargs):
    """``path`` is ``"f"`` (value), ``"hess"``/``"jfr"``/``"jrr"`` (diagonals of
    second-derivative matrices, unary only) or a string of steps ``<mode><arg>``
    applied innermost first, e.g. ``"r0f1"`` = ``D_fwd,y D_rev,x f``."""
    if path == "f":
        return f
    if path in ("hess", "jfr", "jrr"):
        s = lambda x: lib.np.sum(f(x))  # noqa: E731
        h = {"hess": lib.hessian(s), "jfr": lib.jacfwd(lib.jacrev(s)),
             "jrr": lib.jacrev(lib.jacrev(s))}[path]
        return lambda x: lib.np.diagonal(h(x))
    g = f
    for k in range(0, len(path), 2):
        g = _d(lib, g, path[k], int(path[k + 1]), nargs)
    return g


UNARY_PATHS = ["f", "r0", "f0", "r0r0", "r0f0", "f0r0", "f0f0",
               "r0r0f0", "r0r0r0", "hess", "jrr"]
BINARY_PATHS = ["f", "r0", "r1", "f0", "f1",
                "r0r0", "r1r1", "r0r1", "r0f1", "f0r1", "f1f1",
                "r0r0f1", "r0r1r1", "r1f1f0"]

# path labels for reports: steps are applied innermost first
_MODE_NAMES = {"r": "rev", "f": "fwd"}


def _vector_path(lib, f, path, w, v):
    """Paths for ``s(x) = w . f(x)`` (``f`` a reduction or vector function)."""
    def s(x):
        y = f(x)
        return lib.np.sum(y * w) if np.ndim(w) else y * w
    if path == "f":
        return s
    if path == "grad":
        return lib.grad(s)
    if path == "jacfwd":
        return lib.jacfwd(s)
    if path == "hess":
        return lib.hessian(s)
    if path == "jfr":
        return lib.jacfwd(lib.jacrev(s))
    if path == "jrr":
        return lib.jacrev(lib.jacrev(s))
    if path == "jrf":
        return lib.jacrev(lib.jacfwd(s))
    if path == "jvp3":  # D^3 s [v, v, .] by jvp of jvp of grad
        hvp = lambda x: lib.jvp(lib.grad(s), (x,), (v,))[1]  # noqa: E731
        return lambda x: lib.jvp(hvp, (x,), (v,))[1]
    if path == "jrrr":
        return lib.jacrev(lib.jacrev(lib.jacrev(s)))
    raise ValueError(path)


VECTOR_PATHS = ["f", "grad", "jacfwd", "hess", "jfr", "jrr", "jvp3", "jrrr"]


# --------------------------------------------------------------------------
# tables: name -> (tracegrad function, jax function, points)

def _u(name, tg_f=None, jax_f=None, extra=(), base=None):
    tg_f = tg_f or getattr(tnp, name)
    jax_f = jax_f or getattr(jnp, name)
    pts = list(COMMON + RANDOM + NONFINITE) if base is None else list(base)
    return name, tg_f, jax_f, pts + list(extra)


TAILS = [-700.0, 700.0, -40.0, 40.0, 20.0, -20.0, 1e-300, -1e-300]

UNARY = [
    _u("exp", extra=[-700.0, -740.0, 700.0]),
    _u("expm1", extra=[-700.0, 1e-300, 700.0]),
    _u("exp2", extra=[-1000.0]),
    _u("log", base=POS + [-1.0, INF, NAN]),
    _u("log1p", extra=[-1.0, 1e-300]),
    _u("log2", base=POS + [-1.0, INF]),
    _u("log10", base=POS + [-1.0, INF]),
    _u("sqrt", base=POS + [-1.0, -0.0, INF, NAN]),
    _u("cbrt", extra=[1e-300, -8.0]),
    _u("square"),
    _u("reciprocal"),
    _u("sin"), _u("cos"), _u("tan"),
    _u("arcsin", base=UNIT + [1.5, NAN]),
    _u("arccos", base=UNIT + [1.5, NAN]),
    _u("arctan", extra=[1e300]),
    _u("sinh", extra=[-700.0]), _u("cosh", extra=[-700.0]),
    _u("tanh", extra=[20.0, -20.0, 40.0]),
    _u("arcsinh", extra=[1e300]),
    _u("arccosh", base=[1.0, 1.5, 2.0, 10.0, 0.5, INF, NAN]),
    _u("arctanh", base=UNIT + [1.5, NAN]),
    _u("abs"), _u("sign"), _u("floor"), _u("rint"), _u("deg2rad"),
    _u("sinc", extra=[1e-8, -1e-8, 3.0, 1e-4]),
    _u("logaddexp_xx", lambda x: tnp.logaddexp(x, x), lambda x: jnp.logaddexp(x, x)),
    _u("maximum_xx", lambda x: tnp.maximum(x, x), lambda x: jnp.maximum(x, x)),
    _u("minimum_xx", lambda x: tnp.minimum(x, x), lambda x: jnp.minimum(x, x)),
    _u("clip", lambda x: tnp.clip(x, -1.0, 2.0), lambda x: jnp.clip(x, -1.0, 2.0)),
    _u("where", lambda x: tnp.where(x > 0, x ** 2, -x), lambda x: jnp.where(x > 0, x ** 2, -x)),
    _u("power_x_3", lambda x: tnp.power(x, 3.0), lambda x: jnp.power(x, 3.0)),
    _u("power_x_half", lambda x: tnp.power(x, 0.5), lambda x: jnp.power(x, 0.5)),
    _u("power_2_x", lambda x: tnp.power(2.0, x), lambda x: jnp.power(2.0, x)),
    _u("x_pow_int2", lambda x: x ** 2, lambda x: x ** 2),
    _u("hypot_x0", lambda x: tnp.hypot(x, 0.0), lambda x: jnp.hypot(x, 0.0)),
    _u("arctan2_x1", lambda x: tnp.arctan2(x, 1.0), lambda x: jnp.arctan2(x, 1.0)),
] + [
    _u(name, getattr(tnn, name), getattr(jax.nn, name), extra=TAILS)
    for name in ["relu", "relu6", "sigmoid", "log_sigmoid", "softplus", "silu",
                 "elu", "celu", "selu", "mish", "hard_tanh", "hard_sigmoid",
                 "hard_silu", "soft_sign", "squareplus", "sparse_plus",
                 "sparse_sigmoid", "tanh"]
] + [
    _u("gelu_tanh", lambda x: tnn.gelu(x, approximate=True),
       lambda x: jax.nn.gelu(x, approximate=True), extra=TAILS),
    _u("gelu_erf", lambda x: tnn.gelu(x, approximate=False),
       lambda x: jax.nn.gelu(x, approximate=False), extra=TAILS),
    _u("leaky_relu", lambda x: tnn.leaky_relu(x, 0.1),
       lambda x: jax.nn.leaky_relu(x, 0.1), extra=TAILS),
    _u("relu6_bounds", tnn.relu6, jax.nn.relu6, base=[0.0, 6.0, -0.0, 5.999, 6.001]),
    _u("log1mexp", tnn.log1mexp, jax.nn.log1mexp, base=POS + [40.0, 700.0, INF]),
]

_BX = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, INF, NAN] + RANDOM[:2]
_BY = [0.0, 1.0, -1.0, 2.0, 0.5, -2.0, INF] + RANDOM[2:4]
_PX = [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0]
_PY = [0.0, 1.0, 2.0, 3.0, 0.5, -1.0, -2.0, 2.5, 1.5]


def _b(name, tg_f=None, jax_f=None, xs=_BX, ys=None):
    tg_f = tg_f or getattr(tnp, name)
    jax_f = jax_f or getattr(jnp, name)
    ys = xs if ys is None else ys
    x, y = np.meshgrid(np.array(xs, float), np.array(ys, float), indexing="ij")
    return name, tg_f, jax_f, (x.ravel(), y.ravel())


BINARY = [
    _b("add"), _b("subtract"), _b("multiply"), _b("divide"),
    _b("maximum"), _b("minimum"), _b("fmax"), _b("fmin"),
    _b("arctan2"), _b("hypot"), _b("logaddexp"), _b("logaddexp2"),
    _b("copysign"),
    _b("power", xs=_PX, ys=_PY), _b("float_power", xs=_PX, ys=_PY),
    _b("where", lambda x, y: tnp.where(x > y, x, y), lambda x, y: jnp.where(x > y, x, y)),
    _b("clip_lo", lambda x, lo: tnp.clip(x, lo, 2.0), lambda x, lo: jnp.clip(x, lo, 2.0)),
]

_V = _rng.uniform(-2, 2, 4)
VECS = {
    "random": _V,
    "ties": np.array([1.0, 1.0, 0.5, -1.0]),
    "all_equal": np.array([2.0, 2.0, 2.0, 2.0]),
    "one_zero": np.array([0.0, 1.5, -2.0, 0.5]),
    "two_zeros": np.array([0.0, -0.0, 2.0, 3.0]),
    "big": np.array([700.0, -700.0, 1.0, 0.0]),
}
_POSVECS = {"random_pos": np.abs(_V) + 0.1, "ties_pos": np.array([1.0, 1.0, 0.5, 2.0])}
W = _rng.uniform(-1, 1, 4)

VECTOR = [
    (name, getattr(tnp, name), getattr(jnp, name), VECS, ())
    for name in ["sum", "prod", "max", "min", "mean", "var", "std", "cumsum",
                 "cumprod", "sort", "ptp", "median"]
] + [
    ("std_ddof1", lambda x: tnp.std(x, ddof=1), lambda x: jnp.std(x, ddof=1), VECS, ()),
    ("amax", tnp.amax, jnp.amax, VECS, ()),
    ("max_maximum", lambda x: tnp.maximum(x, x[::-1]).sum(),
     lambda x: jnp.maximum(x, x[::-1]).sum(), VECS, ()),
    ("linalg_norm", tnp.linalg.norm, jnp.linalg.norm, dict(VECS, zero=np.zeros(4)), ()),
    ("logsumexp", tnn.logsumexp, jax.nn.logsumexp,
     dict(VECS, ninf=np.array([-INF, 0.0, 1.0, 1.0])), ()),
    ("softmax", tnn.softmax, jax.nn.softmax, VECS, ()),
    ("log_softmax", tnn.log_softmax, jax.nn.log_softmax, VECS, ()),
    ("standardize", tnn.standardize, jax.nn.standardize, VECS, ()),
    ("glu", tnn.glu, jax.nn.glu, VECS, ()),
    ("geomean", lambda x: tnp.exp(tnp.mean(tnp.log(x))),
     lambda x: jnp.exp(jnp.mean(jnp.log(x))), _POSVECS, ()),
]


# --------------------------------------------------------------------------
# comparison

def _close(a, b):
    """Elementwise agreement: NaN with NaN, equal values (infinities), else
    close; a nonzero JAX value below 1e-30 must not underflow to 0 in
    tracegrad (tails where the derivative is tiny but representable)."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    a, b = np.broadcast_arrays(a, b)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        eq = a == b
        near = np.isfinite(a) & np.isfinite(b) & (np.abs(a - b) <= ATOL + RTOL * np.abs(b))
        underflow = (a == 0) & np.isfinite(b) & (b != 0) & (np.abs(b) < 1e-30)
    return both_nan | eq | (near & ~underflow)


def _fmt(p):
    if isinstance(p, tuple):
        return "(" + ", ".join(_fmt(q) for q in p) + ")"
    if isinstance(p, np.ndarray):
        return "[" + ", ".join(_fmt(q) for q in p) + "]"
    p = float(p)
    return "-0.0" if p == 0 and math.copysign(1, p) < 0 else repr(p)


# CONVENTIONS: (row, why, [(path, point, tracegrad's value, JAX's value), ...]).
# Paths: steps "<r|f><arg>" applied innermost first ("r0f0" = fwd of rev);
# "hess"/"jfr"/"jrr" diagonals of hessian/jacfwd(jacrev)/jacrev(jacrev) for
# elementwise rows; whole matrices (points "label[i, j]") for vector rows.
CONVENTIONS = [
    ('arctanh',
     'higher derivatives at +-1 are the signed infinite limits (2x/(1-x**2)**2); JAX gives NaN.',
     [
         ('r0r0', '1.0', INF, NAN),
         ('r0r0', '-1.0', -INF, NAN),
         ('r0f0', '1.0', INF, NAN),
         ('r0f0', '-1.0', -INF, NAN),
         ('f0r0', '1.0', INF, NAN),
         ('f0r0', '-1.0', -INF, NAN),
         ('f0f0', '1.0', INF, NAN),
         ('f0f0', '-1.0', -INF, NAN),
         ('r0r0f0', '1.0', INF, NAN),
         ('r0r0f0', '-1.0', INF, NAN),
         ('r0r0r0', '1.0', INF, NAN),
         ('r0r0r0', '-1.0', INF, NAN),
         ('hess', '1.0', INF, NAN),
         ('hess', '-1.0', -INF, NAN),
         ('jrr', '1.0', INF, NAN),
         ('jrr', '-1.0', -INF, NAN),
     ]),
    ('abs',
     "abs'(0) = 0 (kink convention, README); JAX takes 1. At NaN tracegrad's derivative is NaN, JAX's -1.",
     [
         ('r0', '0.0', 0.0, 1.0),
         ('r0', '-0.0', 0.0, 1.0),
         ('r0', 'nan', NAN, -1.0),
         ('f0', '0.0', 0.0, 1.0),
         ('f0', '-0.0', 0.0, 1.0),
         ('f0', 'nan', NAN, -1.0),
     ]),
    ('sinc',
     "near 0 tracegrad's derivatives are the Taylor values (sinc'(1e-8) = -pi**2/3 * 1e-8, sinc''(0) = -pi**2/3); JAX's lose digits to cancellation there.",
     [
         ('r0', '1e-08', -3.2898681336964526e-08, -2.1002231716731708e-08),
         ('r0', '-1e-08', 3.2898681336964526e-08, 2.1002231716731708e-08),
         ('f0', '1e-08', -3.2898681336964526e-08, -1.99842313842586e-08),
         ('f0', '-1e-08', 3.2898681336964526e-08, 1.99842313842586e-08),
         ('r0r0', '1e-08', -3.289868133696452, -3.413089535473857),
         ('r0r0', '-1e-08', -3.289868133696452, -3.413089535473857),
         ('r0f0', '1e-08', -3.289868133696452, -1.5707963267948966),
         ('r0f0', '-1e-08', -3.289868133696452, -1.5707963267948966),
         ('f0r0', '1e-08', -3.289868133696452, -3.413089535473857),
         ('f0r0', '-1e-08', -3.289868133696452, -3.413089535473857),
         ('f0f0', '1e-08', -3.289868133696452, -4.0),
         ('f0f0', '-1e-08', -3.289868133696452, -4.0),
         ('r0r0f0', '1e-08', 1.9481818206800482e-07, 843314856.5326262),
         ('r0r0f0', '-1e-08', -1.9481818206800482e-07, -843314856.5326262),
         ('r0r0f0', '0.0001', 0.0019481817977898294, 0.0023009711818284618),
         ('r0r0r0', '1e-08', 1.948181820680048e-07, 798451293.3651271),
         ('r0r0r0', '-1e-08', -1.948181820680048e-07, -798451293.3651271),
         ('r0r0r0', '0.0001', 0.0019481817977898296, 0.0031260750471031264),
         ('hess', '1e-08', -3.289868133696452, -1.5707963267948966),
         ('hess', '-1e-08', -3.289868133696452, -1.5707963267948966),
         ('jrr', '1e-08', -3.289868133696452, -3.413089535473857),
         ('jrr', '-1e-08', -3.289868133696452, -3.413089535473857),
     ]),
    ('logaddexp_xx',
     'logaddexp(x, x) at +-inf: derivative 1 (0.5 + 0.5, the limit); JAX gives 2 at inf and NaN at -inf.',
     [
         ('r0', 'inf', 1.0, 2.0),
         ('r0', '-inf', 1.0, NAN),
         ('f0', 'inf', 1.0, 2.0),
         ('f0', '-inf', 1.0, NAN),
         ('r0r0', '-inf', 0.0, NAN),
         ('r0f0', '-inf', 0.0, NAN),
         ('f0r0', '-inf', 0.0, NAN),
         ('f0f0', '-inf', 0.0, NAN),
         ('r0r0f0', '-inf', 0.0, NAN),
         ('r0r0r0', '-inf', 0.0, NAN),
         ('hess', '-inf', 0.0, NAN),
         ('jrr', '-inf', 0.0, NAN),
     ]),
    ('clip',
     'at a bound, clip(x, lo, hi) passes x through (lo <= x <= hi): derivative 1 in x; JAX splits 0.5.',
     [
         ('r0', '-1.0', 1.0, 0.5),
         ('r0', '2.0', 1.0, 0.5),
         ('f0', '-1.0', 1.0, 0.5),
         ('f0', '2.0', 1.0, 0.5),
     ]),
    ('power_x_half',
     'power(-inf, 0.5) is NaN, as in NumPy; JAX gives inf.',
     [
         ('f', '-inf', NAN, INF),
     ]),
    ('hypot_x0',
     'hypot(x, 0): derivative 0 at x = 0 (as norm at zero; JAX 0.5); fwd-over-fwd at +-inf is NaN in tracegrad, 0 in JAX.',
     [
         ('r0', '0.0', 0.0, 0.5),
         ('r0', '-0.0', 0.0, 0.5),
         ('f0', '0.0', 0.0, 0.5),
         ('f0', '-0.0', 0.0, 0.5),
         ('f0', 'inf', NAN, 0.0),
         ('f0', '-inf', NAN, 0.0),
         ('f0f0', 'inf', NAN, 0.0),
         ('f0f0', '-inf', NAN, 0.0),
     ]),
    ('gelu_tanh',
     "far in the left tail the second derivative underflows to 0 (true value below 1e-300); JAX's formula leaves rounding noise up to 1e-4.",
     [
         ('hess', '-700.0', -0.0, -0.00016869180163550817),
         ('hess', '-40.0', -0.0, 4.93351381854871e-11),
         ('hess', '-20.0', -0.0, 2.1920640334835924e-12),
         ('jrr', '-700.0', 0.0, 2.2974638892126625e-12),
     ]),
    ('log1mexp',
     'second derivative at inf is its limit 0 and third near 0 is +inf (the 2/x**3 limit); JAX gives NaN.',
     [
         ('r0r0', 'inf', 0.0, NAN),
         ('r0f0', 'inf', 0.0, NAN),
         ('f0r0', 'inf', 0.0, NAN),
         ('f0f0', 'inf', 0.0, NAN),
         ('r0r0f0', '0.0', INF, NAN),
         ('r0r0f0', '1e-300', INF, NAN),
         ('r0r0f0', 'inf', 0.0, NAN),
         ('r0r0r0', '0.0', INF, NAN),
         ('r0r0r0', '1e-300', INF, NAN),
         ('r0r0r0', 'inf', 0.0, NAN),
         ('hess', 'inf', 0.0, NAN),
         ('jrr', 'inf', 0.0, NAN),
     ]),
    ('fmax',
     "ties split the derivative 0.5/0.5 as max/maximum do (README); JAX's fmax gives it all to y.",
     [
         ('r0', '(0.0, 0.0)', 0.5, 0.0),
         ('r0', '(0.0, -0.0)', 0.5, 0.0),
         ('r0', '(-0.0, 0.0)', 0.5, 0.0),
         ('r0', '(-0.0, -0.0)', 0.5, 0.0),
         ('r0', '(1.0, 1.0)', 0.5, 0.0),
         ('r0', '(-1.0, -1.0)', 0.5, 0.0),
         ('r0', '(2.0, 2.0)', 0.5, 0.0),
         ('r0', '(-2.0, -2.0)', 0.5, 0.0),
         ('r0', '(0.5, 0.5)', 0.5, 0.0),
         ('r0', '(inf, inf)', 0.5, 0.0),
         ('r0', '(-0.732382, -0.732382)', 0.5, 0.0),
         ('r0', '(-2.042109, -2.042109)', 0.5, 0.0),
         ('r1', '(0.0, 0.0)', 0.5, 1.0),
         ('r1', '(0.0, -0.0)', 0.5, 1.0),
         ('r1', '(-0.0, 0.0)', 0.5, 1.0),
         ('r1', '(-0.0, -0.0)', 0.5, 1.0),
         ('r1', '(1.0, 1.0)', 0.5, 1.0),
         ('r1', '(-1.0, -1.0)', 0.5, 1.0),
         ('r1', '(2.0, 2.0)', 0.5, 1.0),
         ('r1', '(-2.0, -2.0)', 0.5, 1.0),
         ('r1', '(0.5, 0.5)', 0.5, 1.0),
         ('r1', '(inf, inf)', 0.5, 1.0),
         ('r1', '(-0.732382, -0.732382)', 0.5, 1.0),
         ('r1', '(-2.042109, -2.042109)', 0.5, 1.0),
         ('f0', '(0.0, 0.0)', 0.5, 0.0),
         ('f0', '(0.0, -0.0)', 0.5, 0.0),
         ('f0', '(-0.0, 0.0)', 0.5, 0.0),
         ('f0', '(-0.0, -0.0)', 0.5, 0.0),
         ('f0', '(1.0, 1.0)', 0.5, 0.0),
         ('f0', '(-1.0, -1.0)', 0.5, 0.0),
         ('f0', '(2.0, 2.0)', 0.5, 0.0),
         ('f0', '(-2.0, -2.0)', 0.5, 0.0),
         ('f0', '(0.5, 0.5)', 0.5, 0.0),
         ('f0', '(inf, inf)', 0.5, 0.0),
         ('f0', '(-0.732382, -0.732382)', 0.5, 0.0),
         ('f0', '(-2.042109, -2.042109)', 0.5, 0.0),
         ('f1', '(0.0, 0.0)', 0.5, 1.0),
         ('f1', '(0.0, -0.0)', 0.5, 1.0),
         ('f1', '(-0.0, 0.0)', 0.5, 1.0),
         ('f1', '(-0.0, -0.0)', 0.5, 1.0),
         ('f1', '(1.0, 1.0)', 0.5, 1.0),
         ('f1', '(-1.0, -1.0)', 0.5, 1.0),
         ('f1', '(2.0, 2.0)', 0.5, 1.0),
         ('f1', '(-2.0, -2.0)', 0.5, 1.0),
         ('f1', '(0.5, 0.5)', 0.5, 1.0),
         ('f1', '(inf, inf)', 0.5, 1.0),
         ('f1', '(-0.732382, -0.732382)', 0.5, 1.0),
         ('f1', '(-2.042109, -2.042109)', 0.5, 1.0),
     ]),
    ('fmin',
     "ties split the derivative 0.5/0.5 as min/minimum do (README); JAX's fmin gives it all to y.",
     [
         ('r0', '(0.0, 0.0)', 0.5, 0.0),
         ('r0', '(0.0, -0.0)', 0.5, 0.0),
         ('r0', '(-0.0, 0.0)', 0.5, 0.0),
         ('r0', '(-0.0, -0.0)', 0.5, 0.0),
         ('r0', '(1.0, 1.0)', 0.5, 0.0),
         ('r0', '(-1.0, -1.0)', 0.5, 0.0),
         ('r0', '(2.0, 2.0)', 0.5, 0.0),
         ('r0', '(-2.0, -2.0)', 0.5, 0.0),
         ('r0', '(0.5, 0.5)', 0.5, 0.0),
         ('r0', '(inf, inf)', 0.5, 0.0),
         ('r0', '(-0.732382, -0.732382)', 0.5, 0.0),
         ('r0', '(-2.042109, -2.042109)', 0.5, 0.0),
         ('r1', '(0.0, 0.0)', 0.5, 1.0),
         ('r1', '(0.0, -0.0)', 0.5, 1.0),
         ('r1', '(-0.0, 0.0)', 0.5, 1.0),
         ('r1', '(-0.0, -0.0)', 0.5, 1.0),
         ('r1', '(1.0, 1.0)', 0.5, 1.0),
         ('r1', '(-1.0, -1.0)', 0.5, 1.0),
         ('r1', '(2.0, 2.0)', 0.5, 1.0),
         ('r1', '(-2.0, -2.0)', 0.5, 1.0),
         ('r1', '(0.5, 0.5)', 0.5, 1.0),
         ('r1', '(inf, inf)', 0.5, 1.0),
         ('r1', '(-0.732382, -0.732382)', 0.5, 1.0),
         ('r1', '(-2.042109, -2.042109)', 0.5, 1.0),
         ('f0', '(0.0, 0.0)', 0.5, 0.0),
         ('f0', '(0.0, -0.0)', 0.5, 0.0),
         ('f0', '(-0.0, 0.0)', 0.5, 0.0),
         ('f0', '(-0.0, -0.0)', 0.5, 0.0),
         ('f0', '(1.0, 1.0)', 0.5, 0.0),
         ('f0', '(-1.0, -1.0)', 0.5, 0.0),
         ('f0', '(2.0, 2.0)', 0.5, 0.0),
         ('f0', '(-2.0, -2.0)', 0.5, 0.0),
         ('f0', '(0.5, 0.5)', 0.5, 0.0),
         ('f0', '(inf, inf)', 0.5, 0.0),
         ('f0', '(-0.732382, -0.732382)', 0.5, 0.0),
         ('f0', '(-2.042109, -2.042109)', 0.5, 0.0),
         ('f1', '(0.0, 0.0)', 0.5, 1.0),
         ('f1', '(0.0, -0.0)', 0.5, 1.0),
         ('f1', '(-0.0, 0.0)', 0.5, 1.0),
         ('f1', '(-0.0, -0.0)', 0.5, 1.0),
         ('f1', '(1.0, 1.0)', 0.5, 1.0),
         ('f1', '(-1.0, -1.0)', 0.5, 1.0),
         ('f1', '(2.0, 2.0)', 0.5, 1.0),
         ('f1', '(-2.0, -2.0)', 0.5, 1.0),
         ('f1', '(0.5, 0.5)', 0.5, 1.0),
         ('f1', '(inf, inf)', 0.5, 1.0),
         ('f1', '(-0.732382, -0.732382)', 0.5, 1.0),
         ('f1', '(-2.042109, -2.042109)', 0.5, 1.0),
     ]),
    ('hypot',
     "gradient 0 at (0, 0) (as norm at zero; JAX 0.5/0.5); at |x| == |y| tracegrad keeps the true curvature, JAX's max/min formulation gives 0; at an infinite argument tracegrad's limits differ from JAX's NaN.",
     [
         ('r0', '(0.0, 0.0)', 0.0, 0.5),
         ('r0', '(0.0, -0.0)', 0.0, 0.5),
         ('r0', '(0.0, inf)', 0.0, NAN),
         ('r0', '(-0.0, 0.0)', 0.0, 0.5),
         ('r0', '(-0.0, -0.0)', 0.0, 0.5),
         ('r0', '(-0.0, inf)', -0.0, NAN),
         ('r0', '(1.0, inf)', 0.0, NAN),
         ('r0', '(-1.0, inf)', -0.0, NAN),
         ('r0', '(2.0, inf)', 0.0, NAN),
         ('r0', '(-2.0, inf)', -0.0, NAN),
         ('r0', '(0.5, inf)', 0.0, NAN),
         ('r0', '(-0.732382, inf)', -0.0, NAN),
         ('r0', '(-2.042109, inf)', -0.0, NAN),
         ('r1', '(0.0, 0.0)', 0.0, 0.5),
         ('r1', '(0.0, -0.0)', 0.0, 0.5),
         ('r1', '(-0.0, 0.0)', 0.0, 0.5),
         ('r1', '(-0.0, -0.0)', 0.0, 0.5),
         ('r1', '(inf, 0.0)', 0.0, NAN),
         ('r1', '(inf, -0.0)', -0.0, NAN),
         ('r1', '(inf, 1.0)', 0.0, NAN),
         ('r1', '(inf, -1.0)', -0.0, NAN),
         ('r1', '(inf, 2.0)', 0.0, NAN),
         ('r1', '(inf, -2.0)', -0.0, NAN),
         ('r1', '(inf, 0.5)', 0.0, NAN),
         ('r1', '(inf, -0.732382)', -0.0, NAN),
         ('r1', '(inf, -2.042109)', -0.0, NAN),
         ('f0', '(0.0, 0.0)', 0.0, 0.5),
         ('f0', '(0.0, -0.0)', 0.0, 0.5),
         ('f0', '(0.0, inf)', NAN, 0.0),
         ('f0', '(-0.0, 0.0)', 0.0, 0.5),
         ('f0', '(-0.0, -0.0)', 0.0, 0.5),
         ('f0', '(-0.0, inf)', NAN, 0.0),
         ('f0', '(1.0, inf)', NAN, 0.0),
         ('f0', '(-1.0, inf)', NAN, 0.0),
         ('f0', '(2.0, inf)', NAN, 0.0),
         ('f0', '(-2.0, inf)', NAN, 0.0),
         ('f0', '(0.5, inf)', NAN, 0.0),
         ('f0', '(inf, 0.0)', NAN, 0.0),
         ('f0', '(inf, -0.0)', NAN, 0.0),
         ('f0', '(inf, 1.0)', NAN, 0.0),
         ('f0', '(inf, -1.0)', NAN, 0.0),
         ('f0', '(inf, 2.0)', NAN, 0.0),
         ('f0', '(inf, -2.0)', NAN, 0.0),
         ('f0', '(inf, 0.5)', NAN, 0.0),
         ('f0', '(inf, inf)', NAN, 0.0),
         ('f0', '(inf, nan)', NAN, 0.0),
         ('f0', '(inf, -0.732382)', NAN, 0.0),
         ('f0', '(inf, -2.042109)', NAN, 0.0),
         ('f0', '(nan, inf)', NAN, 0.0),
         ('f0', '(-0.732382, inf)', NAN, 0.0),
         ('f0', '(-2.042109, inf)', NAN, 0.0),
         ('f1', '(0.0, 0.0)', 0.0, 0.5),
         ('f1', '(0.0, -0.0)', 0.0, 0.5),
         ('f1', '(0.0, inf)', NAN, 0.0),
         ('f1', '(-0.0, 0.0)', 0.0, 0.5),
         ('f1', '(-0.0, -0.0)', 0.0, 0.5),
         ('f1', '(-0.0, inf)', NAN, 0.0),
         ('f1', '(1.0, inf)', NAN, 0.0),
         ('f1', '(-1.0, inf)', NAN, 0.0),
         ('f1', '(2.0, inf)', NAN, 0.0),
         ('f1', '(-2.0, inf)', NAN, 0.0),
         ('f1', '(0.5, inf)', NAN, 0.0),
         ('f1', '(inf, 0.0)', NAN, 0.0),
         ('f1', '(inf, -0.0)', NAN, 0.0),
         ('f1', '(inf, 1.0)', NAN, 0.0),
         ('f1', '(inf, -1.0)', NAN, 0.0),
         ('f1', '(inf, 2.0)', NAN, 0.0),
         ('f1', '(inf, -2.0)', NAN, 0.0),
         ('f1', '(inf, 0.5)', NAN, 0.0),
         ('f1', '(inf, inf)', NAN, 0.0),
         ('f1', '(inf, nan)', NAN, 0.0),
         ('f1', '(inf, -0.732382)', NAN, 0.0),
         ('f1', '(inf, -2.042109)', NAN, 0.0),
         ('f1', '(nan, inf)', NAN, 0.0),
         ('f1', '(-0.732382, inf)', NAN, 0.0),
         ('f1', '(-2.042109, inf)', NAN, 0.0),
         ('r0r0', '(0.0, inf)', 0.0, NAN),
         ('r0r0', '(-0.0, inf)', 0.0, NAN),
         ('r0r0', '(1.0, 1.0)', 0.3535533905932738, 0.0),
         ('r0r0', '(1.0, -1.0)', 0.3535533905932738, 0.0),
         ('r0r0', '(1.0, inf)', 0.0, NAN),
         ('r0r0', '(-1.0, 1.0)', 0.3535533905932738, 0.0),
         ('r0r0', '(-1.0, -1.0)', 0.3535533905932738, 0.0),
         ('r0r0', '(-1.0, inf)', 0.0, NAN),
         ('r0r0', '(2.0, 2.0)', 0.1767766952966369, 0.0),
         ('r0r0', '(2.0, -2.0)', 0.1767766952966369, 0.0),
         ('r0r0', '(2.0, inf)', 0.0, NAN),
         ('r0r0', '(-2.0, 2.0)', 0.1767766952966369, 0.0),
         ('r0r0', '(-2.0, -2.0)', 0.1767766952966369, 0.0),
         ('r0r0', '(-2.0, inf)', 0.0, NAN),
         ('r0r0', '(0.5, 0.5)', 0.7071067811865476, 0.0),
         ('r0r0', '(0.5, inf)', 0.0, NAN),
         ('r0r0', '(-0.732382, inf)', 0.0, NAN),
         ('r0r0', '(-0.732382, -0.732382)', 0.48274451118852424, -1.2133904742648732e-16),
         ('r0r0', '(-2.042109, inf)', 0.0, NAN),
         ('r0r0', '(-2.042109, -2.042109)', 0.17313149816844925, -3.2805553429691814e-17),
         ('r1r1', '(1.0, 1.0)', 0.3535533905932738, 0.0),
         ('r1r1', '(1.0, -1.0)', 0.3535533905932738, 0.0),
         ('r1r1', '(-1.0, 1.0)', 0.3535533905932738, 0.0),
         ('r1r1', '(-1.0, -1.0)', 0.3535533905932738, 0.0),
         ('r1r1', '(2.0, 2.0)', 0.1767766952966369, 0.0),
         ('r1r1', '(2.0, -2.0)', 0.1767766952966369, 0.0),
         ('r1r1', '(-2.0, 2.0)', 0.1767766952966369, 0.0),
         ('r1r1', '(-2.0, -2.0)', 0.1767766952966369, 0.0),
         ('r1r1', '(0.5, 0.5)', 0.7071067811865476, 0.0),
         ('r1r1', '(inf, 0.0)', 0.0, NAN),
         ('r1r1', '(inf, -0.0)', 0.0, NAN),
         ('r1r1', '(inf, 1.0)', 0.0, NAN),
         ('r1r1', '(inf, -1.0)', 0.0, NAN),
         ('r1r1', '(inf, 2.0)', 0.0, NAN),
         ('r1r1', '(inf, -2.0)', 0.0, NAN),
         ('r1r1', '(inf, 0.5)', 0.0, NAN),
         ('r1r1', '(inf, -0.732382)', 0.0, NAN),
         ('r1r1', '(inf, -2.042109)', 0.0, NAN),
         ('r1r1', '(-0.732382, -0.732382)', 0.48274451118852424, -1.2133904742648732e-16),
         ('r1r1', '(-2.042109, -2.042109)', 0.17313149816844925, -3.2805553429691814e-17),
         ('r0r1', '(1.0, 1.0)', -0.3535533905932737, 0.0),
         ('r0r1', '(1.0, -1.0)', 0.3535533905932737, 0.0),
         ('r0r1', '(-1.0, 1.0)', 0.3535533905932737, 0.0),
         ('r0r1', '(-1.0, -1.0)', -0.3535533905932737, 0.0),
         ('r0r1', '(2.0, 2.0)', -0.17677669529663684, 0.0),
         ('r0r1', '(2.0, -2.0)', 0.17677669529663684, 0.0),
         ('r0r1', '(-2.0, 2.0)', 0.17677669529663684, 0.0),
         ('r0r1', '(-2.0, -2.0)', -0.17677669529663684, 0.0),
         ('r0r1', '(0.5, 0.5)', -0.7071067811865474, 0.0),
         ('r0r1', '(-0.732382, -0.732382)', -0.48274451118852435, -1.2133904742648732e-16),
         ('r0r1', '(-2.042109, -2.042109)', -0.1731314981684493, -3.2805553429691814e-17),
         ('r0f1', '(1.0, 1.0)', -0.3535533905932737, 0.0),
         ('r0f1', '(1.0, -1.0)', 0.3535533905932737, 0.0),
         ('r0f1', '(-1.0, 1.0)', 0.3535533905932737, 0.0),
         ('r0f1', '(-1.0, -1.0)', -0.3535533905932737, 0.0),
         ('r0f1', '(2.0, 2.0)', -0.17677669529663684, 0.0),
         ('r0f1', '(2.0, -2.0)', 0.17677669529663684, 0.0),
         ('r0f1', '(-2.0, 2.0)', 0.17677669529663684, 0.0),
         ('r0f1', '(-2.0, -2.0)', -0.17677669529663684, 0.0),
         ('r0f1', '(0.5, 0.5)', -0.7071067811865474, 0.0),
         ('r0f1', '(-0.732382, -0.732382)', -0.48274451118852435, -1.6170769293729448e-16),
         ('r0f1', '(-2.042109, -2.042109)', -0.1731314981684493, -2.6105130533773446e-17),
         ('f0r1', '(1.0, 1.0)', -0.3535533905932737, 0.0),
         ('f0r1', '(1.0, -1.0)', 0.3535533905932737, 0.0),
         ('f0r1', '(-1.0, 1.0)', 0.3535533905932737, 0.0),
         ('f0r1', '(-1.0, -1.0)', -0.3535533905932737, 0.0),
         ('f0r1', '(2.0, 2.0)', -0.17677669529663684, 0.0),
         ('f0r1', '(2.0, -2.0)', 0.17677669529663684, 0.0),
         ('f0r1', '(-2.0, 2.0)', 0.17677669529663684, 0.0),
         ('f0r1', '(-2.0, -2.0)', -0.17677669529663684, 0.0),
         ('f0r1', '(0.5, 0.5)', -0.7071067811865474, 0.0),
         ('f0r1', '(-0.732382, -0.732382)', -0.48274451118852435, -1.2133904742648732e-16),
         ('f0r1', '(-2.042109, -2.042109)', -0.1731314981684493, -3.2805553429691814e-17),
         ('f1f1', '(0.0, inf)', NAN, 0.0),
         ('f1f1', '(-0.0, inf)', NAN, 0.0),
         ('f1f1', '(1.0, 1.0)', 0.3535533905932738, 0.0),
         ('f1f1', '(1.0, -1.0)', 0.3535533905932738, 0.0),
         ('f1f1', '(1.0, inf)', NAN, 0.0),
         ('f1f1', '(-1.0, 1.0)', 0.3535533905932738, 0.0),
         ('f1f1', '(-1.0, -1.0)', 0.3535533905932738, 0.0),
         ('f1f1', '(-1.0, inf)', NAN, 0.0),
         ('f1f1', '(2.0, 2.0)', 0.1767766952966369, 0.0),
         ('f1f1', '(2.0, -2.0)', 0.1767766952966369, 0.0),
         ('f1f1', '(2.0, inf)', NAN, 0.0),
         ('f1f1', '(-2.0, 2.0)', 0.1767766952966369, 0.0),
         ('f1f1', '(-2.0, -2.0)', 0.1767766952966369, 0.0),
         ('f1f1', '(-2.0, inf)', NAN, 0.0),
         ('f1f1', '(0.5, 0.5)', 0.7071067811865476, 0.0),
         ('f1f1', '(0.5, inf)', NAN, 0.0),
         ('f1f1', '(inf, 0.0)', NAN, 0.0),
         ('f1f1', '(inf, -0.0)', NAN, 0.0),
         ('f1f1', '(inf, 1.0)', NAN, 0.0),
         ('f1f1', '(inf, -1.0)', NAN, 0.0),
         ('f1f1', '(inf, 2.0)', NAN, 0.0),
         ('f1f1', '(inf, -2.0)', NAN, 0.0),
         ('f1f1', '(inf, 0.5)', NAN, 0.0),
         ('f1f1', '(inf, inf)', NAN, 0.0),
         ('f1f1', '(inf, nan)', NAN, 0.0),
         ('f1f1', '(inf, -0.732382)', NAN, 0.0),
         ('f1f1', '(inf, -2.042109)', NAN, 0.0),
         ('f1f1', '(nan, inf)', NAN, 0.0),
         ('f1f1', '(-0.732382, inf)', NAN, 0.0),
         ('f1f1', '(-0.732382, -0.732382)', 0.48274451118852424, -7.753500321753153e-17),
         ('f1f1', '(-2.042109, inf)', NAN, 0.0),
         ('f1f1', '(-2.042109, -2.042109)', 0.17313149816844925, -4.3799667413407376e-17),
         ('r0r0f1', '(1.0, 1.0)', 0.1767766952966368, 0.0),
         ('r0r0f1', '(1.0, -1.0)', -0.1767766952966368, 0.0),
         ('r0r0f1', '(-1.0, 1.0)', 0.1767766952966368, 0.0),
         ('r0r0f1', '(-1.0, -1.0)', -0.1767766952966368, 0.0),
         ('r0r0f1', '(2.0, 2.0)', 0.0441941738241592, 0.0),
         ('r0r0f1', '(2.0, -2.0)', -0.0441941738241592, 0.0),
         ('r0r0f1', '(-2.0, 2.0)', 0.0441941738241592, 0.0),
         ('r0r0f1', '(-2.0, -2.0)', -0.0441941738241592, 0.0),
         ('r0r0f1', '(0.5, 0.5)', 0.7071067811865472, 0.0),
         ('r0r0f1', '(-0.732382, -0.732382)', -0.3295715290575988, 2.890524920077546e-16),
         ('r0r0f1', '(-2.042109, -2.042109)', -0.04239036656918152, 2.5723220645108482e-17),
         ('r0r1r1', '(1.0, 1.0)', 0.1767766952966368, 0.0),
         ('r0r1r1', '(1.0, -1.0)', 0.1767766952966368, 0.0),
         ('r0r1r1', '(-1.0, 1.0)', -0.1767766952966368, 0.0),
         ('r0r1r1', '(-1.0, -1.0)', -0.1767766952966368, 0.0),
         ('r0r1r1', '(2.0, 2.0)', 0.0441941738241592, 0.0),
         ('r0r1r1', '(2.0, -2.0)', 0.0441941738241592, 0.0),
         ('r0r1r1', '(-2.0, 2.0)', -0.0441941738241592, 0.0),
         ('r0r1r1', '(-2.0, -2.0)', -0.0441941738241592, 0.0),
         ('r0r1r1', '(0.5, 0.5)', 0.7071067811865472, 0.0),
         ('r0r1r1', '(-0.732382, -0.732382)', -0.3295715290575988, 2.5708516844057127e-16),
         ('r0r1r1', '(-2.042109, -2.042109)', -0.04239036656918152, 9.934091403775145e-18),
         ('r1f1f0', '(1.0, 1.0)', 0.1767766952966368, 0.0),
         ('r1f1f0', '(1.0, -1.0)', 0.1767766952966368, 0.0),
         ('r1f1f0', '(-1.0, 1.0)', -0.1767766952966368, 0.0),
         ('r1f1f0', '(-1.0, -1.0)', -0.1767766952966368, 0.0),
         ('r1f1f0', '(2.0, 2.0)', 0.0441941738241592, 0.0),
         ('r1f1f0', '(2.0, -2.0)', 0.0441941738241592, 0.0),
         ('r1f1f0', '(-2.0, 2.0)', -0.0441941738241592, 0.0),
         ('r1f1f0', '(-2.0, -2.0)', -0.0441941738241592, 0.0),
         ('r1f1f0', '(0.5, 0.5)', 0.7071067811865472, 0.0),
         ('r1f1f0', '(-0.732382, -0.732382)', -0.3295715290575988, 2.9718191188983633e-16),
         ('r1f1f0', '(-2.042109, -2.042109)', -0.04239036656918152, 2.91926675970621e-17),
     ]),
    ('logaddexp',
     "with one argument +inf the other's derivative is its true limit 0 (JAX: exp(x), from inf - inf guarding).",
     [
         ('r0', '(0.0, inf)', 0.0, 1.0),
         ('r0', '(-0.0, inf)', 0.0, 1.0),
         ('r0', '(1.0, inf)', 0.0, 2.7182818284590455),
         ('r0', '(-1.0, inf)', 0.0, 0.3678794411714423),
         ('r0', '(2.0, inf)', 0.0, 7.38905609893065),
         ('r0', '(-2.0, inf)', 0.0, 0.1353352832366127),
         ('r0', '(0.5, inf)', 0.0, 1.6487212707001282),
         ('r0', '(inf, inf)', 0.5, 1.0),
         ('r0', '(-0.732382, inf)', 0.0, 0.480762448948423),
         ('r0', '(-2.042109, inf)', 0.0, 0.12975476930011592),
         ('r1', '(inf, 0.0)', 0.0, 1.0),
         ('r1', '(inf, -0.0)', 0.0, 1.0),
         ('r1', '(inf, 1.0)', 0.0, 2.7182818284590455),
         ('r1', '(inf, -1.0)', 0.0, 0.3678794411714423),
         ('r1', '(inf, 2.0)', 0.0, 7.38905609893065),
         ('r1', '(inf, -2.0)', 0.0, 0.1353352832366127),
         ('r1', '(inf, 0.5)', 0.0, 1.6487212707001282),
         ('r1', '(inf, inf)', 0.5, 1.0),
         ('r1', '(inf, -0.732382)', 0.0, 0.480762448948423),
         ('r1', '(inf, -2.042109)', 0.0, 0.12975476930011592),
         ('f0', '(0.0, inf)', 0.0, 1.0),
         ('f0', '(-0.0, inf)', 0.0, 1.0),
         ('f0', '(1.0, inf)', 0.0, 2.7182818284590455),
         ('f0', '(-1.0, inf)', 0.0, 0.3678794411714423),
         ('f0', '(2.0, inf)', 0.0, 7.38905609893065),
         ('f0', '(-2.0, inf)', 0.0, 0.1353352832366127),
         ('f0', '(0.5, inf)', 0.0, 1.6487212707001282),
         ('f0', '(inf, inf)', 0.5, 1.0),
         ('f0', '(-0.732382, inf)', 0.0, 0.480762448948423),
         ('f0', '(-2.042109, inf)', 0.0, 0.12975476930011592),
         ('f1', '(inf, 0.0)', 0.0, 1.0),
         ('f1', '(inf, -0.0)', 0.0, 1.0),
         ('f1', '(inf, 1.0)', 0.0, 2.7182818284590455),
         ('f1', '(inf, -1.0)', 0.0, 0.3678794411714423),
         ('f1', '(inf, 2.0)', 0.0, 7.38905609893065),
         ('f1', '(inf, -2.0)', 0.0, 0.1353352832366127),
         ('f1', '(inf, 0.5)', 0.0, 1.6487212707001282),
         ('f1', '(inf, inf)', 0.5, 1.0),
         ('f1', '(inf, -0.732382)', 0.0, 0.480762448948423),
         ('f1', '(inf, -2.042109)', 0.0, 0.12975476930011592),
         ('r0r0', '(0.0, inf)', 0.0, 1.0),
         ('r0r0', '(-0.0, inf)', 0.0, 1.0),
         ('r0r0', '(1.0, inf)', 0.0, 2.7182818284590455),
         ('r0r0', '(-1.0, inf)', 0.0, 0.3678794411714423),
         ('r0r0', '(2.0, inf)', 0.0, 7.38905609893065),
         ('r0r0', '(-2.0, inf)', 0.0, 0.1353352832366127),
         ('r0r0', '(0.5, inf)', 0.0, 1.6487212707001282),
         ('r0r0', '(-0.732382, inf)', 0.0, 0.480762448948423),
         ('r0r0', '(-2.042109, inf)', 0.0, 0.12975476930011592),
         ('r1r1', '(inf, 0.0)', 0.0, 1.0),
         ('r1r1', '(inf, -0.0)', 0.0, 1.0),
         ('r1r1', '(inf, 1.0)', 0.0, 2.7182818284590455),
         ('r1r1', '(inf, -1.0)', 0.0, 0.3678794411714423),
         ('r1r1', '(inf, 2.0)', 0.0, 7.38905609893065),
         ('r1r1', '(inf, -2.0)', 0.0, 0.1353352832366127),
         ('r1r1', '(inf, 0.5)', 0.0, 1.6487212707001282),
         ('r1r1', '(inf, -0.732382)', 0.0, 0.480762448948423),
         ('r1r1', '(inf, -2.042109)', 0.0, 0.12975476930011592),
         ('f1f1', '(inf, 0.0)', 0.0, 1.0),
         ('f1f1', '(inf, -0.0)', 0.0, 1.0),
         ('f1f1', '(inf, 1.0)', 0.0, 2.7182818284590455),
         ('f1f1', '(inf, -1.0)', 0.0, 0.3678794411714423),
         ('f1f1', '(inf, 2.0)', 0.0, 7.38905609893065),
         ('f1f1', '(inf, -2.0)', 0.0, 0.1353352832366127),
         ('f1f1', '(inf, 0.5)', 0.0, 1.6487212707001282),
         ('f1f1', '(inf, -0.732382)', 0.0, 0.480762448948423),
         ('f1f1', '(inf, -2.042109)', 0.0, 0.12975476930011592),
     ]),
    ('logaddexp2',
     "with one argument +inf the other's derivative is its true limit 0 (JAX: 2**x-like values, from inf - inf guarding).",
     [
         ('r0', '(0.0, inf)', 0.0, 1.0),
         ('r0', '(-0.0, inf)', 0.0, 1.0),
         ('r0', '(1.0, inf)', 0.0, 2.0),
         ('r0', '(-1.0, inf)', 0.0, 0.5),
         ('r0', '(2.0, inf)', 0.0, 4.0),
         ('r0', '(-2.0, inf)', 0.0, 0.25),
         ('r0', '(0.5, inf)', 0.0, 1.4142135623730951),
         ('r0', '(inf, inf)', 0.5, 1.0),
         ('r0', '(-0.732382, inf)', 0.0, 0.6019092946329663),
         ('r0', '(-2.042109, inf)', 0.0, 0.2428085282692839),
         ('r1', '(inf, 0.0)', 0.0, 1.0),
         ('r1', '(inf, -0.0)', 0.0, 1.0),
         ('r1', '(inf, 1.0)', 0.0, 2.0),
         ('r1', '(inf, -1.0)', 0.0, 0.5),
         ('r1', '(inf, 2.0)', 0.0, 4.0),
         ('r1', '(inf, -2.0)', 0.0, 0.25),
         ('r1', '(inf, 0.5)', 0.0, 1.4142135623730951),
         ('r1', '(inf, inf)', 0.5, 1.0),
         ('r1', '(inf, -0.732382)', 0.0, 0.6019092946329663),
         ('r1', '(inf, -2.042109)', 0.0, 0.2428085282692839),
         ('f0', '(0.0, inf)', 0.0, 1.0),
         ('f0', '(-0.0, inf)', 0.0, 1.0),
         ('f0', '(1.0, inf)', 0.0, 2.0),
         ('f0', '(-1.0, inf)', 0.0, 0.5),
         ('f0', '(2.0, inf)', 0.0, 4.0),
         ('f0', '(-2.0, inf)', 0.0, 0.25),
         ('f0', '(0.5, inf)', 0.0, 1.4142135623730951),
         ('f0', '(inf, inf)', 0.5, 1.0),
         ('f0', '(-0.732382, inf)', 0.0, 0.6019092946329663),
         ('f0', '(-2.042109, inf)', 0.0, 0.2428085282692839),
         ('f1', '(inf, 0.0)', 0.0, 1.0),
         ('f1', '(inf, -0.0)', 0.0, 1.0),
         ('f1', '(inf, 1.0)', 0.0, 2.0),
         ('f1', '(inf, -1.0)', 0.0, 0.5),
         ('f1', '(inf, 2.0)', 0.0, 4.0),
         ('f1', '(inf, -2.0)', 0.0, 0.25),
         ('f1', '(inf, 0.5)', 0.0, 1.4142135623730951),
         ('f1', '(inf, inf)', 0.5, 1.0),
         ('f1', '(inf, -0.732382)', 0.0, 0.6019092946329663),
         ('f1', '(inf, -2.042109)', 0.0, 0.2428085282692839),
         ('r0r0', '(0.0, inf)', 0.0, 0.6931471805599453),
         ('r0r0', '(-0.0, inf)', 0.0, 0.6931471805599453),
         ('r0r0', '(1.0, inf)', 0.0, 1.3862943611198906),
         ('r0r0', '(-1.0, inf)', 0.0, 0.34657359027997264),
         ('r0r0', '(2.0, inf)', 0.0, 2.772588722239781),
         ('r0r0', '(-2.0, inf)', 0.0, 0.17328679513998632),
         ('r0r0', '(0.5, inf)', 0.0, 0.9802581434685472),
         ('r0r0', '(-0.732382, inf)', 0.0, 0.41721173052766597),
         ('r0r0', '(-2.042109, inf)', 0.0, 0.1683020467857639),
         ('r1r1', '(inf, 0.0)', 0.0, 0.6931471805599453),
         ('r1r1', '(inf, -0.0)', 0.0, 0.6931471805599453),
         ('r1r1', '(inf, 1.0)', 0.0, 1.3862943611198906),
         ('r1r1', '(inf, -1.0)', 0.0, 0.34657359027997264),
         ('r1r1', '(inf, 2.0)', 0.0, 2.772588722239781),
         ('r1r1', '(inf, -2.0)', 0.0, 0.17328679513998632),
         ('r1r1', '(inf, 0.5)', 0.0, 0.9802581434685472),
         ('r1r1', '(inf, -0.732382)', 0.0, 0.41721173052766597),
         ('r1r1', '(inf, -2.042109)', 0.0, 0.1683020467857639),
         ('f1f1', '(inf, 0.0)', 0.0, 0.6931471805599453),
         ('f1f1', '(inf, -0.0)', 0.0, 0.6931471805599453),
         ('f1f1', '(inf, 1.0)', 0.0, 1.3862943611198906),
         ('f1f1', '(inf, -1.0)', 0.0, 0.34657359027997264),
         ('f1f1', '(inf, 2.0)', 0.0, 2.772588722239781),
         ('f1f1', '(inf, -2.0)', 0.0, 0.17328679513998632),
         ('f1f1', '(inf, 0.5)', 0.0, 0.9802581434685472),
         ('f1f1', '(inf, -0.732382)', 0.0, 0.41721173052766597),
         ('f1f1', '(inf, -2.042109)', 0.0, 0.1683020467857639),
     ]),
    ('copysign',
     "at x = NaN the derivative in x is the sign of y (as everywhere); JAX's is its negative (NaN's sign bit).",
     [
         ('r0', '(nan, 0.0)', 1.0, -1.0),
         ('r0', '(nan, -0.0)', -1.0, 1.0),
         ('r0', '(nan, 1.0)', 1.0, -1.0),
         ('r0', '(nan, -1.0)', -1.0, 1.0),
         ('r0', '(nan, 2.0)', 1.0, -1.0),
         ('r0', '(nan, -2.0)', -1.0, 1.0),
         ('r0', '(nan, 0.5)', 1.0, -1.0),
         ('r0', '(nan, inf)', 1.0, -1.0),
         ('r0', '(nan, nan)', 1.0, -1.0),
         ('r0', '(nan, -0.732382)', -1.0, 1.0),
         ('r0', '(nan, -2.042109)', -1.0, 1.0),
         ('f0', '(nan, 0.0)', 1.0, -1.0),
         ('f0', '(nan, -0.0)', -1.0, 1.0),
         ('f0', '(nan, 1.0)', 1.0, -1.0),
         ('f0', '(nan, -1.0)', -1.0, 1.0),
         ('f0', '(nan, 2.0)', 1.0, -1.0),
         ('f0', '(nan, -2.0)', -1.0, 1.0),
         ('f0', '(nan, 0.5)', 1.0, -1.0),
         ('f0', '(nan, inf)', 1.0, -1.0),
         ('f0', '(nan, nan)', 1.0, -1.0),
         ('f0', '(nan, -0.732382)', -1.0, 1.0),
         ('f0', '(nan, -2.042109)', -1.0, 1.0),
     ]),
    ('power',
     '0**y: derivatives in x at (0, 0) are 0 and log(0) is taken as 0 in the y-derivative (one-sided limits, README); JAX gives NaN.',
     [
         ('r0', '(0.0, 0.0)', 0.0, NAN),
         ('f0', '(0.0, 0.0)', 0.0, NAN),
         ('f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0', '(0.0, 1.0)', 0.0, NAN),
         ('r0r1', '(0.0, 0.0)', 0.0, NAN),
         ('r0f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0f1', '(0.0, 1.0)', 1.0, NAN),
         ('f0r1', '(0.0, 0.0)', 0.0, NAN),
         ('f1f1', '(0.0, 0.0)', 0.0, NAN),
         ('f1f1', '(0.0, 1.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 1.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 2.0)', 3.0, NAN),
         ('r0r1r1', '(0.0, 0.0)', 0.0, NAN),
         ('r1f1f0', '(0.0, 0.0)', 0.0, NAN),
         ('r1f1f0', '(0.0, 1.0)', 0.0, NAN),
     ]),
    ('float_power',
     'as power: derivatives at x = 0 take 0**0 derivatives as 0 and log(0) as 0; JAX gives NaN.',
     [
         ('r0', '(0.0, 0.0)', 0.0, NAN),
         ('f0', '(0.0, 0.0)', 0.0, NAN),
         ('f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0', '(0.0, 1.0)', 0.0, NAN),
         ('r0r1', '(0.0, 0.0)', 0.0, NAN),
         ('r0f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0f1', '(0.0, 1.0)', 1.0, NAN),
         ('f0r1', '(0.0, 0.0)', 0.0, NAN),
         ('f1f1', '(0.0, 0.0)', 0.0, NAN),
         ('f1f1', '(0.0, 1.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 0.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 1.0)', 0.0, NAN),
         ('r0r0f1', '(0.0, 2.0)', 3.0, NAN),
         ('r0r1r1', '(0.0, 0.0)', 0.0, NAN),
         ('r1f1f0', '(0.0, 0.0)', 0.0, NAN),
         ('r1f1f0', '(0.0, 1.0)', 0.0, NAN),
     ]),
    ('clip_lo',
     'at x == lo (or hi) the derivative goes wholly to x (1, bound 0); JAX splits 0.5/0.5.',
     [
         ('r0', '(0.0, 0.0)', 1.0, 0.5),
         ('r0', '(0.0, -0.0)', 1.0, 0.5),
         ('r0', '(-0.0, 0.0)', 1.0, 0.5),
         ('r0', '(-0.0, -0.0)', 1.0, 0.5),
         ('r0', '(1.0, 1.0)', 1.0, 0.5),
         ('r0', '(-1.0, -1.0)', 1.0, 0.5),
         ('r0', '(2.0, 0.0)', 1.0, 0.5),
         ('r0', '(2.0, -0.0)', 1.0, 0.5),
         ('r0', '(2.0, 1.0)', 1.0, 0.5),
         ('r0', '(2.0, -1.0)', 1.0, 0.5),
         ('r0', '(2.0, 2.0)', 1.0, 0.25),
         ('r0', '(2.0, -2.0)', 1.0, 0.5),
         ('r0', '(2.0, 0.5)', 1.0, 0.5),
         ('r0', '(2.0, -0.732382)', 1.0, 0.5),
         ('r0', '(2.0, -2.042109)', 1.0, 0.5),
         ('r0', '(-2.0, -2.0)', 1.0, 0.5),
         ('r0', '(0.5, 0.5)', 1.0, 0.5),
         ('r0', '(-0.732382, -0.732382)', 1.0, 0.5),
         ('r0', '(-2.042109, -2.042109)', 1.0, 0.5),
         ('r1', '(0.0, 0.0)', 0.0, 0.5),
         ('r1', '(0.0, -0.0)', 0.0, 0.5),
         ('r1', '(0.0, 2.0)', 1.0, 0.5),
         ('r1', '(-0.0, 0.0)', 0.0, 0.5),
         ('r1', '(-0.0, -0.0)', 0.0, 0.5),
         ('r1', '(-0.0, 2.0)', 1.0, 0.5),
         ('r1', '(1.0, 1.0)', 0.0, 0.5),
         ('r1', '(1.0, 2.0)', 1.0, 0.5),
         ('r1', '(-1.0, -1.0)', 0.0, 0.5),
         ('r1', '(-1.0, 2.0)', 1.0, 0.5),
         ('r1', '(2.0, 2.0)', 0.0, 0.25),
         ('r1', '(-2.0, 2.0)', 1.0, 0.5),
         ('r1', '(-2.0, -2.0)', 0.0, 0.5),
         ('r1', '(0.5, 2.0)', 1.0, 0.5),
         ('r1', '(0.5, 0.5)', 0.0, 0.5),
         ('r1', '(-0.732382, 2.0)', 1.0, 0.5),
         ('r1', '(-0.732382, -0.732382)', 0.0, 0.5),
         ('r1', '(-2.042109, 2.0)', 1.0, 0.5),
         ('r1', '(-2.042109, -2.042109)', 0.0, 0.5),
         ('f0', '(0.0, 0.0)', 1.0, 0.5),
         ('f0', '(0.0, -0.0)', 1.0, 0.5),
         ('f0', '(-0.0, 0.0)', 1.0, 0.5),
         ('f0', '(-0.0, -0.0)', 1.0, 0.5),
         ('f0', '(1.0, 1.0)', 1.0, 0.5),
         ('f0', '(-1.0, -1.0)', 1.0, 0.5),
         ('f0', '(2.0, 0.0)', 1.0, 0.5),
         ('f0', '(2.0, -0.0)', 1.0, 0.5),
         ('f0', '(2.0, 1.0)', 1.0, 0.5),
         ('f0', '(2.0, -1.0)', 1.0, 0.5),
         ('f0', '(2.0, 2.0)', 1.0, 0.25),
         ('f0', '(2.0, -2.0)', 1.0, 0.5),
         ('f0', '(2.0, 0.5)', 1.0, 0.5),
         ('f0', '(2.0, -0.732382)', 1.0, 0.5),
         ('f0', '(2.0, -2.042109)', 1.0, 0.5),
         ('f0', '(-2.0, -2.0)', 1.0, 0.5),
         ('f0', '(0.5, 0.5)', 1.0, 0.5),
         ('f0', '(-0.732382, -0.732382)', 1.0, 0.5),
         ('f0', '(-2.042109, -2.042109)', 1.0, 0.5),
         ('f1', '(0.0, 0.0)', 0.0, 0.5),
         ('f1', '(0.0, -0.0)', 0.0, 0.5),
         ('f1', '(0.0, 2.0)', 1.0, 0.5),
         ('f1', '(-0.0, 0.0)', 0.0, 0.5),
         ('f1', '(-0.0, -0.0)', 0.0, 0.5),
         ('f1', '(-0.0, 2.0)', 1.0, 0.5),
         ('f1', '(1.0, 1.0)', 0.0, 0.5),
         ('f1', '(1.0, 2.0)', 1.0, 0.5),
         ('f1', '(-1.0, -1.0)', 0.0, 0.5),
         ('f1', '(-1.0, 2.0)', 1.0, 0.5),
         ('f1', '(2.0, 2.0)', 0.0, 0.25),
         ('f1', '(-2.0, 2.0)', 1.0, 0.5),
         ('f1', '(-2.0, -2.0)', 0.0, 0.5),
         ('f1', '(0.5, 2.0)', 1.0, 0.5),
         ('f1', '(0.5, 0.5)', 0.0, 0.5),
         ('f1', '(-0.732382, 2.0)', 1.0, 0.5),
         ('f1', '(-0.732382, -0.732382)', 0.0, 0.5),
         ('f1', '(-2.042109, 2.0)', 1.0, 0.5),
         ('f1', '(-2.042109, -2.042109)', 0.0, 0.5),
     ]),
    ('std',
     'std of a constant input has gradient 0 (README), and so do its higher derivatives there; JAX gives NaN.',
     [
         ('grad', 'all_equal[0]', 0.0, NAN),
         ('grad', 'all_equal[1]', 0.0, NAN),
         ('grad', 'all_equal[2]', 0.0, NAN),
         ('grad', 'all_equal[3]', 0.0, NAN),
         ('jacfwd', 'all_equal[0]', 0.0, NAN),
         ('jacfwd', 'all_equal[1]', 0.0, NAN),
         ('jacfwd', 'all_equal[2]', 0.0, NAN),
         ('jacfwd', 'all_equal[3]', 0.0, NAN),
         ('hess', 'all_equal[0, 0]', 0.0, NAN),
         ('hess', 'all_equal[0, 1]', 0.0, NAN),
         ('hess', 'all_equal[0, 2]', 0.0, NAN),
         ('hess', 'all_equal[0, 3]', 0.0, NAN),
         ('hess', 'all_equal[1, 0]', 0.0, NAN),
         ('hess', 'all_equal[1, 1]', 0.0, NAN),
         ('hess', 'all_equal[1, 2]', 0.0, NAN),
         ('hess', 'all_equal[1, 3]', 0.0, NAN),
         ('hess', 'all_equal[2, 0]', 0.0, NAN),
         ('hess', 'all_equal[2, 1]', 0.0, NAN),
         ('hess', 'all_equal[2, 2]', 0.0, NAN),
         ('hess', 'all_equal[2, 3]', 0.0, NAN),
         ('hess', 'all_equal[3, 0]', 0.0, NAN),
         ('hess', 'all_equal[3, 1]', 0.0, NAN),
         ('hess', 'all_equal[3, 2]', 0.0, NAN),
         ('hess', 'all_equal[3, 3]', 0.0, NAN),
         ('jfr', 'all_equal[0, 0]', 0.0, NAN),
         ('jfr', 'all_equal[0, 1]', 0.0, NAN),
         ('jfr', 'all_equal[0, 2]', 0.0, NAN),
         ('jfr', 'all_equal[0, 3]', 0.0, NAN),
         ('jfr', 'all_equal[1, 0]', 0.0, NAN),
         ('jfr', 'all_equal[1, 1]', 0.0, NAN),
         ('jfr', 'all_equal[1, 2]', 0.0, NAN),
         ('jfr', 'all_equal[1, 3]', 0.0, NAN),
         ('jfr', 'all_equal[2, 0]', 0.0, NAN),
         ('jfr', 'all_equal[2, 1]', 0.0, NAN),
         ('jfr', 'all_equal[2, 2]', 0.0, NAN),
         ('jfr', 'all_equal[2, 3]', 0.0, NAN),
         ('jfr', 'all_equal[3, 0]', 0.0, NAN),
         ('jfr', 'all_equal[3, 1]', 0.0, NAN),
         ('jfr', 'all_equal[3, 2]', 0.0, NAN),
         ('jfr', 'all_equal[3, 3]', 0.0, NAN),
         ('jrr', 'all_equal[0, 0]', 0.0, NAN),
         ('jrr', 'all_equal[0, 1]', 0.0, NAN),
         ('jrr', 'all_equal[0, 2]', 0.0, NAN),
         ('jrr', 'all_equal[0, 3]', 0.0, NAN),
         ('jrr', 'all_equal[1, 0]', 0.0, NAN),
         ('jrr', 'all_equal[1, 1]', 0.0, NAN),
         ('jrr', 'all_equal[1, 2]', 0.0, NAN),
         ('jrr', 'all_equal[1, 3]', 0.0, NAN),
         ('jrr', 'all_equal[2, 0]', 0.0, NAN),
         ('jrr', 'all_equal[2, 1]', 0.0, NAN),
         ('jrr', 'all_equal[2, 2]', 0.0, NAN),
         ('jrr', 'all_equal[2, 3]', 0.0, NAN),
         ('jrr', 'all_equal[3, 0]', 0.0, NAN),
         ('jrr', 'all_equal[3, 1]', 0.0, NAN),
         ('jrr', 'all_equal[3, 2]', 0.0, NAN),
         ('jrr', 'all_equal[3, 3]', 0.0, NAN),
         ('jvp3', 'all_equal[0]', 0.0, NAN),
         ('jvp3', 'all_equal[1]', 0.0, NAN),
         ('jvp3', 'all_equal[2]', 0.0, NAN),
         ('jvp3', 'all_equal[3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 3]', 0.0, NAN),
     ]),
    ('std_ddof1',
     'std of a constant input has gradient 0 (README), and so do its higher derivatives there; JAX gives NaN.',
     [
         ('grad', 'all_equal[0]', 0.0, NAN),
         ('grad', 'all_equal[1]', 0.0, NAN),
         ('grad', 'all_equal[2]', 0.0, NAN),
         ('grad', 'all_equal[3]', 0.0, NAN),
         ('jacfwd', 'all_equal[0]', 0.0, NAN),
         ('jacfwd', 'all_equal[1]', 0.0, NAN),
         ('jacfwd', 'all_equal[2]', 0.0, NAN),
         ('jacfwd', 'all_equal[3]', 0.0, NAN),
         ('hess', 'all_equal[0, 0]', 0.0, NAN),
         ('hess', 'all_equal[0, 1]', 0.0, NAN),
         ('hess', 'all_equal[0, 2]', 0.0, NAN),
         ('hess', 'all_equal[0, 3]', 0.0, NAN),
         ('hess', 'all_equal[1, 0]', 0.0, NAN),
         ('hess', 'all_equal[1, 1]', 0.0, NAN),
         ('hess', 'all_equal[1, 2]', 0.0, NAN),
         ('hess', 'all_equal[1, 3]', 0.0, NAN),
         ('hess', 'all_equal[2, 0]', 0.0, NAN),
         ('hess', 'all_equal[2, 1]', 0.0, NAN),
         ('hess', 'all_equal[2, 2]', 0.0, NAN),
         ('hess', 'all_equal[2, 3]', 0.0, NAN),
         ('hess', 'all_equal[3, 0]', 0.0, NAN),
         ('hess', 'all_equal[3, 1]', 0.0, NAN),
         ('hess', 'all_equal[3, 2]', 0.0, NAN),
         ('hess', 'all_equal[3, 3]', 0.0, NAN),
         ('jfr', 'all_equal[0, 0]', 0.0, NAN),
         ('jfr', 'all_equal[0, 1]', 0.0, NAN),
         ('jfr', 'all_equal[0, 2]', 0.0, NAN),
         ('jfr', 'all_equal[0, 3]', 0.0, NAN),
         ('jfr', 'all_equal[1, 0]', 0.0, NAN),
         ('jfr', 'all_equal[1, 1]', 0.0, NAN),
         ('jfr', 'all_equal[1, 2]', 0.0, NAN),
         ('jfr', 'all_equal[1, 3]', 0.0, NAN),
         ('jfr', 'all_equal[2, 0]', 0.0, NAN),
         ('jfr', 'all_equal[2, 1]', 0.0, NAN),
         ('jfr', 'all_equal[2, 2]', 0.0, NAN),
         ('jfr', 'all_equal[2, 3]', 0.0, NAN),
         ('jfr', 'all_equal[3, 0]', 0.0, NAN),
         ('jfr', 'all_equal[3, 1]', 0.0, NAN),
         ('jfr', 'all_equal[3, 2]', 0.0, NAN),
         ('jfr', 'all_equal[3, 3]', 0.0, NAN),
         ('jrr', 'all_equal[0, 0]', 0.0, NAN),
         ('jrr', 'all_equal[0, 1]', 0.0, NAN),
         ('jrr', 'all_equal[0, 2]', 0.0, NAN),
         ('jrr', 'all_equal[0, 3]', 0.0, NAN),
         ('jrr', 'all_equal[1, 0]', 0.0, NAN),
         ('jrr', 'all_equal[1, 1]', 0.0, NAN),
         ('jrr', 'all_equal[1, 2]', 0.0, NAN),
         ('jrr', 'all_equal[1, 3]', 0.0, NAN),
         ('jrr', 'all_equal[2, 0]', 0.0, NAN),
         ('jrr', 'all_equal[2, 1]', 0.0, NAN),
         ('jrr', 'all_equal[2, 2]', 0.0, NAN),
         ('jrr', 'all_equal[2, 3]', 0.0, NAN),
         ('jrr', 'all_equal[3, 0]', 0.0, NAN),
         ('jrr', 'all_equal[3, 1]', 0.0, NAN),
         ('jrr', 'all_equal[3, 2]', 0.0, NAN),
         ('jrr', 'all_equal[3, 3]', 0.0, NAN),
         ('jvp3', 'all_equal[0]', 0.0, NAN),
         ('jvp3', 'all_equal[1]', 0.0, NAN),
         ('jvp3', 'all_equal[2]', 0.0, NAN),
         ('jvp3', 'all_equal[3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[0, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[1, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[2, 3, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 0, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 1, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 2, 3]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 0]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 1]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 2]', 0.0, NAN),
         ('jrrr', 'all_equal[3, 3, 3]', 0.0, NAN),
     ]),
    ('linalg_norm',
     'norm at the zero vector has gradient 0 and second derivative 0 (README); JAX gives NaN.',
     [
         ('grad', 'zero[0]', 0.0, NAN),
         ('grad', 'zero[1]', 0.0, NAN),
         ('grad', 'zero[2]', 0.0, NAN),
         ('grad', 'zero[3]', 0.0, NAN),
         ('jacfwd', 'zero[0]', 0.0, NAN),
         ('jacfwd', 'zero[1]', 0.0, NAN),
         ('jacfwd', 'zero[2]', 0.0, NAN),
         ('jacfwd', 'zero[3]', 0.0, NAN),
         ('hess', 'zero[0, 0]', 0.0, NAN),
         ('hess', 'zero[0, 1]', 0.0, NAN),
         ('hess', 'zero[0, 2]', 0.0, NAN),
         ('hess', 'zero[0, 3]', 0.0, NAN),
         ('hess', 'zero[1, 0]', 0.0, NAN),
         ('hess', 'zero[1, 1]', 0.0, NAN),
         ('hess', 'zero[1, 2]', 0.0, NAN),
         ('hess', 'zero[1, 3]', 0.0, NAN),
         ('hess', 'zero[2, 0]', 0.0, NAN),
         ('hess', 'zero[2, 1]', 0.0, NAN),
         ('hess', 'zero[2, 2]', 0.0, NAN),
         ('hess', 'zero[2, 3]', 0.0, NAN),
         ('hess', 'zero[3, 0]', 0.0, NAN),
         ('hess', 'zero[3, 1]', 0.0, NAN),
         ('hess', 'zero[3, 2]', 0.0, NAN),
         ('hess', 'zero[3, 3]', 0.0, NAN),
         ('jfr', 'zero[0, 0]', 0.0, NAN),
         ('jfr', 'zero[0, 1]', 0.0, NAN),
         ('jfr', 'zero[0, 2]', 0.0, NAN),
         ('jfr', 'zero[0, 3]', 0.0, NAN),
         ('jfr', 'zero[1, 0]', 0.0, NAN),
         ('jfr', 'zero[1, 1]', 0.0, NAN),
         ('jfr', 'zero[1, 2]', 0.0, NAN),
         ('jfr', 'zero[1, 3]', 0.0, NAN),
         ('jfr', 'zero[2, 0]', 0.0, NAN),
         ('jfr', 'zero[2, 1]', 0.0, NAN),
         ('jfr', 'zero[2, 2]', 0.0, NAN),
         ('jfr', 'zero[2, 3]', 0.0, NAN),
         ('jfr', 'zero[3, 0]', 0.0, NAN),
         ('jfr', 'zero[3, 1]', 0.0, NAN),
         ('jfr', 'zero[3, 2]', 0.0, NAN),
         ('jfr', 'zero[3, 3]', 0.0, NAN),
         ('jrr', 'zero[0, 0]', 0.0, NAN),
         ('jrr', 'zero[0, 1]', 0.0, NAN),
         ('jrr', 'zero[0, 2]', 0.0, NAN),
         ('jrr', 'zero[0, 3]', 0.0, NAN),
         ('jrr', 'zero[1, 0]', 0.0, NAN),
         ('jrr', 'zero[1, 1]', 0.0, NAN),
         ('jrr', 'zero[1, 2]', 0.0, NAN),
         ('jrr', 'zero[1, 3]', 0.0, NAN),
         ('jrr', 'zero[2, 0]', 0.0, NAN),
         ('jrr', 'zero[2, 1]', 0.0, NAN),
         ('jrr', 'zero[2, 2]', 0.0, NAN),
         ('jrr', 'zero[2, 3]', 0.0, NAN),
         ('jrr', 'zero[3, 0]', 0.0, NAN),
         ('jrr', 'zero[3, 1]', 0.0, NAN),
         ('jrr', 'zero[3, 2]', 0.0, NAN),
         ('jrr', 'zero[3, 3]', 0.0, NAN),
         ('jvp3', 'zero[0]', -0.0, NAN),
         ('jvp3', 'zero[1]', 0.0, NAN),
         ('jvp3', 'zero[2]', -0.0, NAN),
         ('jvp3', 'zero[3]', -0.0, NAN),
         ('jrrr', 'zero[0, 0, 0]', 0.0, NAN),
         ('jrrr', 'zero[0, 0, 1]', 0.0, NAN),
         ('jrrr', 'zero[0, 0, 2]', 0.0, NAN),
         ('jrrr', 'zero[0, 0, 3]', 0.0, NAN),
         ('jrrr', 'zero[0, 1, 0]', 0.0, NAN),
         ('jrrr', 'zero[0, 1, 1]', 0.0, NAN),
         ('jrrr', 'zero[0, 1, 2]', 0.0, NAN),
         ('jrrr', 'zero[0, 1, 3]', 0.0, NAN),
         ('jrrr', 'zero[0, 2, 0]', 0.0, NAN),
         ('jrrr', 'zero[0, 2, 1]', 0.0, NAN),
         ('jrrr', 'zero[0, 2, 2]', 0.0, NAN),
         ('jrrr', 'zero[0, 2, 3]', 0.0, NAN),
         ('jrrr', 'zero[0, 3, 0]', 0.0, NAN),
         ('jrrr', 'zero[0, 3, 1]', 0.0, NAN),
         ('jrrr', 'zero[0, 3, 2]', 0.0, NAN),
         ('jrrr', 'zero[0, 3, 3]', 0.0, NAN),
         ('jrrr', 'zero[1, 0, 0]', 0.0, NAN),
         ('jrrr', 'zero[1, 0, 1]', 0.0, NAN),
         ('jrrr', 'zero[1, 0, 2]', 0.0, NAN),
         ('jrrr', 'zero[1, 0, 3]', 0.0, NAN),
         ('jrrr', 'zero[1, 1, 0]', 0.0, NAN),
         ('jrrr', 'zero[1, 1, 1]', 0.0, NAN),
         ('jrrr', 'zero[1, 1, 2]', 0.0, NAN),
         ('jrrr', 'zero[1, 1, 3]', 0.0, NAN),
         ('jrrr', 'zero[1, 2, 0]', 0.0, NAN),
         ('jrrr', 'zero[1, 2, 1]', 0.0, NAN),
         ('jrrr', 'zero[1, 2, 2]', 0.0, NAN),
         ('jrrr', 'zero[1, 2, 3]', 0.0, NAN),
         ('jrrr', 'zero[1, 3, 0]', 0.0, NAN),
         ('jrrr', 'zero[1, 3, 1]', 0.0, NAN),
         ('jrrr', 'zero[1, 3, 2]', 0.0, NAN),
         ('jrrr', 'zero[1, 3, 3]', 0.0, NAN),
         ('jrrr', 'zero[2, 0, 0]', 0.0, NAN),
         ('jrrr', 'zero[2, 0, 1]', 0.0, NAN),
         ('jrrr', 'zero[2, 0, 2]', 0.0, NAN),
         ('jrrr', 'zero[2, 0, 3]', 0.0, NAN),
         ('jrrr', 'zero[2, 1, 0]', 0.0, NAN),
         ('jrrr', 'zero[2, 1, 1]', 0.0, NAN),
         ('jrrr', 'zero[2, 1, 2]', 0.0, NAN),
         ('jrrr', 'zero[2, 1, 3]', 0.0, NAN),
         ('jrrr', 'zero[2, 2, 0]', 0.0, NAN),
         ('jrrr', 'zero[2, 2, 1]', 0.0, NAN),
         ('jrrr', 'zero[2, 2, 2]', 0.0, NAN),
         ('jrrr', 'zero[2, 2, 3]', 0.0, NAN),
         ('jrrr', 'zero[2, 3, 0]', 0.0, NAN),
         ('jrrr', 'zero[2, 3, 1]', 0.0, NAN),
         ('jrrr', 'zero[2, 3, 2]', 0.0, NAN),
         ('jrrr', 'zero[2, 3, 3]', 0.0, NAN),
         ('jrrr', 'zero[3, 0, 0]', 0.0, NAN),
         ('jrrr', 'zero[3, 0, 1]', 0.0, NAN),
         ('jrrr', 'zero[3, 0, 2]', 0.0, NAN),
         ('jrrr', 'zero[3, 0, 3]', 0.0, NAN),
         ('jrrr', 'zero[3, 1, 0]', 0.0, NAN),
         ('jrrr', 'zero[3, 1, 1]', 0.0, NAN),
         ('jrrr', 'zero[3, 1, 2]', 0.0, NAN),
         ('jrrr', 'zero[3, 1, 3]', 0.0, NAN),
         ('jrrr', 'zero[3, 2, 0]', 0.0, NAN),
         ('jrrr', 'zero[3, 2, 1]', 0.0, NAN),
         ('jrrr', 'zero[3, 2, 2]', 0.0, NAN),
         ('jrrr', 'zero[3, 2, 3]', 0.0, NAN),
         ('jrrr', 'zero[3, 3, 0]', 0.0, NAN),
         ('jrrr', 'zero[3, 3, 1]', 0.0, NAN),
         ('jrrr', 'zero[3, 3, 2]', 0.0, NAN),
         ('jrrr', 'zero[3, 3, 3]', 0.0, NAN),
     ]),
]

_CONV = {}
for _row, _why, _pins in CONVENTIONS:
    for _path, _point, _tv, _jv in _pins:
        _CONV[(_row, _path, _point)] = (_tv, _jv, _why)


_MISMATCHES = []  # every unlisted disagreement seen, for reports


def _compare(name, path, tg_val, jax_val, point_of, problems):
    ok = _close(tg_val, jax_val)
    tv = np.broadcast_to(np.asarray(tg_val, float), ok.shape)
    jv = np.broadcast_to(np.asarray(jax_val, float), ok.shape)
    for idx in np.ndindex(ok.shape):
        key = (name, path, point_of(idx))
        if key in _CONV:
            want_tg, want_jax, _ = _CONV[key]
            # pinned: tracegrad's exact value, and JAX's (so a change on
            # either side is noticed)
            if not (np.array_equal(tv[idx], want_tg, equal_nan=True)
                    and _close(jv[idx], want_jax)):
                problems.append(f"convention {key}: tracegrad {tv[idx]!r} (pinned "
                                f"{want_tg!r}), jax {jv[idx]!r} (pinned {want_jax!r})")
        elif not ok[idx]:
            _MISMATCHES.append((name, path, key[2], float(tv[idx]), float(jv[idx])))
            problems.append(f"{name} {path} at {key[2]}: tracegrad {tv[idx]!r} jax {jv[idx]!r}")


def _run_tg(fn, *args):
    with np.errstate(all="ignore"):
        try:
            return np.asarray(fn(*args), float)
        except Exception as e:  # reported as a disagreement, not a crash
            return e


def _problems_unary(row):
    name, tg_f, jax_f, pts = row
    x = np.array(pts, float)
    problems = []
    point_of = lambda idx: _fmt(x[idx[0]])  # noqa: E731
    for path in UNARY_PATHS:
        jv = np.asarray(jax.jit(_elementwise_path(JX, jax_f, path, 1))(x))
        tv = _run_tg(_elementwise_path(TG, tg_f, path, 1), x)
        if isinstance(tv, Exception):
            problems.append(f"{name} {path}: tracegrad raised {tv!r}")
            continue
        _compare(name, path, tv, jv, point_of, problems)
    return problems


def _problems_binary(row):
    name, tg_f, jax_f, (x, y) = row
    problems = []
    point_of = lambda idx: f"({_fmt(x[idx[0]])}, {_fmt(y[idx[0]])})"  # noqa: E731
    for path in BINARY_PATHS:
        jv = np.asarray(jax.jit(_elementwise_path(JX, jax_f, path, 2))(x, y))
        tv = _run_tg(_elementwise_path(TG, tg_f, path, 2), x, y)
        if isinstance(tv, Exception):
            problems.append(f"{name} {path}: tracegrad raised {tv!r}")
            continue
        _compare(name, path, tv, jv, point_of, problems)
    return problems


def _problems_vector(row):
    name, tg_f, jax_f, vecs, _ = row
    problems = []
    out_shape = jax.eval_shape(jax_f, jnp.zeros(4)).shape
    w = W[:out_shape[0]] if out_shape else np.float64(1.0)
    v = np.array([0.3, -0.7, 0.5, 1.1])
    for path in VECTOR_PATHS:
        jf = jax.jit(_vector_path(JX, jax_f, path, w, v))
        tf = _vector_path(TG, tg_f, path, w, v)
        for label, vec in vecs.items():
            jv = np.asarray(jf(vec))
            tv = _run_tg(tf, vec)
            if isinstance(tv, Exception):
                problems.append(f"{name} {path} at {label}: tracegrad raised {tv!r}")
                continue
            point_of = lambda idx, label=label: f"{label}{list(map(int, idx))}"  # noqa: E731
            _compare(name, path, tv, jv, point_of, problems)
    return problems


@pytest.mark.parametrize("row", UNARY, ids=[r[0] for r in UNARY])
def test_unary(row):
    problems = _problems_unary(row)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("row", BINARY, ids=[r[0] for r in BINARY])
def test_binary(row):
    problems = _problems_binary(row)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("row", VECTOR, ids=[r[0] for r in VECTOR])
def test_vector(row):
    problems = _problems_vector(row)
    assert not problems, "\n".join(problems)


def test_conventions_are_disagreements_with_reasons():
    """Every pinned point is a real disagreement of a known row, with a reason."""
    names = {r[0] for r in UNARY + BINARY + VECTOR}
    for row, why, pins in CONVENTIONS:
        assert row in names and why.strip() and pins
        for path, point, tv, jv in pins:
            assert not _close(tv, jv), (row, path, point, "agrees: drop the pin")
