"""One table, one row per public differentiable function, checked by ``check_grads``.

Each row is written once as ``call(ns, *args)`` against a namespace ``ns``:
``TNP`` (``tracegrad.numpy`` with ``ns.linalg`` and ``ns.nn``) gives the
function under test, ``NP`` (NumPy, ``numpy.linalg`` and NumPy reference
formulas for ``nn``) gives the reference values.  Namespaces resolve names
when called, so a function that does not exist yet fails its own rows (with
a message naming it) instead of breaking collection.

Checks run over the table:

* ``check_grads(order=2, modes=("fwd", "rev"))`` in float64 (binary
  elementwise ops also on the broadcasting pairs (3,1)x(1,4), ()x(2,3),
  (1,)x(2,3), (2,3)x());
* the same on non-contiguous (transposed and strided) views, first order;
* float32 inputs, first order, looser tolerance, outputs stay float32;
* values (and dtypes) against NumPy.

Domains keep every input away from non-differentiable points (``log`` on
x > 0, ``arccosh`` on x > 1, ``max`` without ties, ``abs`` away from 0, ...).

``test_registry.py`` and ``test_numpy_protocol.py`` load this module to run
their own checks over the same rows.
"""
import importlib
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pytest

import tracegrad as tg
from tracegrad.core import Tracer
from tracegrad.test_util import check_grads
from tracegrad.tree_util import tree_leaves, tree_map


# --------------------------------------------------------------------------
# namespaces


class _Lazy:
    """Attributes of module ``modname``, looked up when used."""

    def __init__(self, modname, **children):
        self._modname = modname
        self._children = children

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._children:
            return self._children[name]
        try:
            mod = importlib.import_module(self._modname)
        except ImportError as e:
            pytest.fail(f"{self._modname} cannot be imported (not built yet?): {e}")
        fn = getattr(mod, name, None)
        if fn is None:
            pytest.fail(f"{self._modname}.{name} does not exist (not built yet?)")
        return fn


def _np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erfinv(x):
    import scipy.special  # lazy: scipy is only the reference here

    return scipy.special.erfinv(x)


class _NumpyNN:
    """NumPy reference formulas of ``tracegrad.nn`` (stable forms)."""

    sigmoid = staticmethod(lambda x: np.exp(-np.logaddexp(0.0, -x)))
    relu = staticmethod(lambda x: np.maximum(x, 0.0))
    silu = swish = staticmethod(lambda x: x * np.exp(-np.logaddexp(0.0, -x)))
    relu6 = staticmethod(lambda x: np.minimum(np.maximum(x, 0.0), 6.0))

    @staticmethod
    def gelu(x, approximate=True):
        if approximate:
            return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
        return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))

    @staticmethod
    def elu(x, alpha=1.0):
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))

    @staticmethod
    def leaky_relu(x, negative_slope=0.01):
        return np.where(x > 0, x, negative_slope * x)
    softplus = staticmethod(lambda x: np.logaddexp(x, 0.0))
    selu = staticmethod(lambda x: 1.0507009873554804934 * np.where(
        x > 0, x, 1.6732632423543772848 * np.expm1(np.minimum(x, 0.0))))
    celu = staticmethod(lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0) / alpha)))
    mish = staticmethod(lambda x: x * np.tanh(np.logaddexp(x, 0.0)))
    hard_tanh = staticmethod(lambda x: np.clip(x, -1.0, 1.0))
    hard_sigmoid = staticmethod(lambda x: np.clip(x + 3.0, 0.0, 6.0) / 6.0)
    hard_silu = hard_swish = staticmethod(lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0)
    soft_sign = staticmethod(lambda x: x / (np.abs(x) + 1.0))
    log1mexp = staticmethod(lambda x: np.log(-np.expm1(-x)))
    sparse_plus = staticmethod(lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4)))
    sparse_sigmoid = staticmethod(lambda x: np.clip((x + 1.0) / 2.0, 0.0, 1.0))
    squareplus = staticmethod(lambda x, b=4: (x + np.sqrt(x * x + b)) / 2)
    identity = staticmethod(lambda x: x)
    tanh = staticmethod(np.tanh)

    @staticmethod
    def glu(x, axis=-1):
        a, b = np.split(x, 2, axis=axis)
        return a * np.exp(-np.logaddexp(0.0, -b))

    @staticmethod
    def standardize(x, axis=-1, epsilon=1e-5, algorithm="fast"):
        m = np.mean(x, axis=axis, keepdims=True)
        return (x - m) / np.sqrt(np.var(x, axis=axis, keepdims=True) + epsilon)

    @staticmethod
    def dot_product_attention(q, k, v, bias=None, is_causal=False):
        g = q.shape[-2] // k.shape[-2]
        k, v = np.repeat(k, g, axis=-2), np.repeat(v, g, axis=-2)
        logits = np.einsum("...tnh,...snh->...nts", q, k) / np.sqrt(q.shape[-1])
        if bias is not None:
            logits = logits + bias
        if is_causal:
            t, s = logits.shape[-2:]
            logits = np.where(np.tril(np.ones((t, s), bool)), logits, -0.7 * np.finfo(np.float32).max)
        p = np.exp(logits - _np_logsumexp(logits, axis=-1, keepdims=True))
        return np.einsum("...nts,...snh->...tnh", p, v).reshape(q.shape)

    log_sigmoid = staticmethod(lambda x: -np.logaddexp(0.0, -x))
    logsumexp = staticmethod(_np_logsumexp)

    @staticmethod
    def softmax(x, axis=-1):
        return np.exp(x - _np_logsumexp(x, axis=axis, keepdims=True))

    @staticmethod
    def log_softmax(x, axis=-1):
        return x - _np_logsumexp(x, axis=axis, keepdims=True)


TNP = _Lazy(
    "tracegrad.numpy",
    linalg=_Lazy("tracegrad.numpy.linalg"),
    nn=_Lazy("tracegrad.nn"),
    ops=_Lazy("tracegrad.primitives.ops"),
    lax=_Lazy("tracegrad.lax"),
    scipy_linalg=_Lazy("tracegrad.scipy.linalg"),
    special=_Lazy("tracegrad.scipy.special"),
)


class _ScipySpecial:
    """``scipy.special``, imported when a row uses it (the reference of
    ``tracegrad.scipy.special``'s rows)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        sc = pytest.importorskip("scipy.special")
        return getattr(sc, name)


# NumPy's definitions of functions newer than the oldest supported NumPy (2.1)
_NP_FALLBACKS = {
    "matvec": lambda x1, x2: np.matmul(x1, x2[..., None])[..., 0],  # NumPy 2.2
    "vecmat": lambda x1, x2: np.matmul(np.conj(x1)[..., None, :], x2)[..., 0, :],  # 2.2
}


class _NP:
    def __getattr__(self, name):
        fn = getattr(np, name, None)
        return _NP_FALLBACKS[name] if fn is None and name in _NP_FALLBACKS else getattr(np, name)

    linalg = np.linalg
    nn = _NumpyNN
    special = _ScipySpecial()

    @property
    def scipy_linalg(self):
        import scipy.linalg  # lazy: SciPy is only the reference here

        return scipy.linalg

    class lax:
        """NumPy references of ``tracegrad.lax``'s convolutions (channels first, no groups)."""

        @staticmethod
        def conv_general_dilated(x, w, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None):
            n = x.ndim - 2
            rd = rhs_dilation or (1,) * n
            x = np.pad(x, ((0, 0), (0, 0)) + tuple(padding))
            k = tuple((s - 1) * d + 1 for s, d in zip(w.shape[2:], rd))
            win = np.lib.stride_tricks.sliding_window_view(x, k, axis=tuple(range(2, n + 2)))
            win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in rd)]
            win = win[(slice(None), slice(None)) + tuple(slice(None, None, s)
                                                         for s in window_strides)]
            return np.einsum("ncpqkl,ockl->nopq", win, w)

        @staticmethod
        def conv_general_dilated_patches(x, filter_shape, window_strides, padding):
            win = np.lib.stride_tricks.sliding_window_view(np.pad(
                x, ((0, 0), (0, 0)) + tuple(padding)), filter_shape, axis=(2, 3))
            win = win[:, :, ::window_strides[0], ::window_strides[1]]
            nb, c, p, q = win.shape[:4]
            return win.transpose(0, 1, 4, 5, 2, 3).reshape(nb, -1, p, q)

    class ops:
        """References of primitives public only through another layer (``torch.erf``)."""

        @staticmethod
        def lstm_cell(gates, c):  # gate blocks i, f, o (sigmoid) and g (tanh)
            n = c.shape[-1]
            s = 1.0 / (1.0 + np.exp(-gates[..., :3 * n]))
            c2 = s[..., n:2 * n] * c + s[..., :n] * np.tanh(gates[..., 3 * n:])
            return [s[..., 2 * n:] * np.tanh(c2), c2]

        erf = staticmethod(lambda x: _erf(x))
        erf_inv = staticmethod(lambda x: _erfinv(x))


NP = _NP()


class _NumpyAtIndex:
    def __init__(self, x, idx):
        self.x, self.idx = np.array(x), idx

    def set(self, v):
        self.x[self.idx] = v
        return self.x

    def add(self, v):
        np.add.at(self.x, self.idx, v)
        return self.x


class _NumpyAt:
    """NumPy reference of ``tnp.at(x)[idx].set(v)`` / ``.add(v)``."""

    def __init__(self, x):
        self.x = x

    def __getitem__(self, idx):
        return _NumpyAtIndex(self.x, idx)


_NP.at = _NumpyAt


def at(ns, x):
    """``x.at`` for tracers (the method), ``ns.at(x)`` for plain arrays.

    ``check_grads`` also evaluates the function on plain ndarrays, which
    have no ``.at``: there ``tnp.at(x)`` (or the NumPy reference) is used.
    """
    return x.at if isinstance(x, Tracer) else ns.at(x)


# --------------------------------------------------------------------------
# domains: (rng, shape) -> float64 array away from non-differentiable points


def normal(rng, shape):
    return rng.standard_normal(shape)


def wide(rng, shape):
    return 3.0 * rng.standard_normal(shape)


def pos(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def unit(rng, shape):
    return rng.uniform(-0.8, 0.8, shape)


def gt1(rng, shape):
    return rng.uniform(1.2, 3.0, shape)


def nonzero(rng, shape):
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)


def exponent(rng, shape):
    return rng.uniform(-1.5, 2.5, shape)


def frac(rng, shape):
    # integer + (0.15 .. 0.35): away from floor/ceil jumps (integers) and
    # from round's jumps (half-integers)
    return rng.integers(-2, 3, shape) + rng.uniform(0.15, 0.35, shape)


def distinct(rng, shape):
    # values at least 0.15 apart: no ties for max/min/sort along any axis
    n = int(np.prod(shape, dtype=np.int64))
    v = (rng.permutation(n) - n / 2) * 0.25 + rng.uniform(-0.05, 0.05, n)
    return v.reshape(shape)


def distinct_abs(rng, shape):
    # magnitudes at least 0.15 apart and >= 0.25, random signs
    n = int(np.prod(shape, dtype=np.int64))
    mags = 0.3 + 0.25 * rng.permutation(n) + rng.uniform(-0.05, 0.05, n)
    return (mags * rng.choice([-1.0, 1.0], n)).reshape(shape)


def sep_lo(rng, shape):
    # k + 0.25 (+-0.05) against sep_hi's k + 0.75: never closer than 0.4
    return rng.integers(-2, 3, shape) + rng.uniform(0.2, 0.3, shape)


def sep_hi(rng, shape):
    return rng.integers(-2, 3, shape) + rng.uniform(0.7, 0.8, shape)


def mod_x(rng, shape):
    # odd integer +-0.3 against mod_y ~ 2: x / y stays >= 0.1 from integers
    return 2 * rng.integers(-2, 2, shape) + 1 + rng.uniform(-0.3, 0.3, shape)


def mod_y(rng, shape):
    return rng.uniform(1.95, 2.05, shape)


def clip_x(rng, shape):
    # outside below, inside, outside above: never within 0.2 of the bounds
    pieces = [rng.uniform(-2.0, -1.4, shape), rng.uniform(-0.6, 0.6, shape),
              rng.uniform(1.4, 2.0, shape)]
    return np.choose(rng.integers(0, 3, shape), pieces)


def wellcond(rng, shape):
    n = shape[-1]
    return 3.0 * np.eye(n) + 0.3 * rng.standard_normal(shape)


def spd(rng, shape):
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym_distinct(rng, shape):
    # symmetric with well separated eigenvalues 1, 2.5, 4, ...
    n = shape[-1]
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return q @ np.diag(1.0 + 1.5 * np.arange(n)) @ q.T


def real_distinct_eig(rng, shape):
    # nonsymmetric with distinct real eigenvalues 1, 2.5, 4, ...
    n = shape[-1]
    p = np.eye(n) + 0.3 * rng.standard_normal((n, n))
    return p @ np.diag(1.0 + 1.5 * np.arange(n)) @ np.linalg.inv(p)


def wellcond_tensor(rng, shape):
    # a well-conditioned square matrix, reshaped to ``shape``
    k = int(np.sqrt(np.prod(shape)))
    return wellcond(rng, (k, k)).reshape(shape)


def A(*specs):
    """Argument generator from ``(domain, shape)`` pairs."""

    def make(rng):
        return tuple(np.asarray(dom(rng, shape), dtype=np.float64) for dom, shape in specs)

    make.specs = specs
    return make


# --------------------------------------------------------------------------
# the table


@dataclass
class Row:
    name: str  # the public function this row covers ("sum", "linalg.norm", ...)
    variant: str
    call: Callable  # call(ns, *args)
    args: Callable  # rng -> tuple of float64 arrays
    tol: Optional[float] = None  # check_grads atol = rtol in float64 (None: default)
    tol32: float = 5e-2
    eps32: Optional[float] = None
    extra: bool = True  # also run the non-contiguous variant
    same_dtype: bool = True  # float32 inputs give float32 outputs
    numpy_dispatch: bool = True  # the NumPy spelling also runs on tracers
    ref: Optional[Callable] = field(default=None)

    @property
    def id(self):
        return f"{self.name}-{self.variant}" if self.variant else self.name

    def fn(self, *args):
        return self.call(TNP, *args)

    def reference(self, *args):
        return self.call(NP, *args)

    def make_args(self, seed=0):
        return self.args(np.random.default_rng(seed))


TABLE = []


def row(name, variant, call, args, **opts):
    TABLE.append(Row(name, variant, call, args, **opts))


S = (2, 3)

UNARY = [
    ("negative", normal), ("abs", nonzero), ("absolute", nonzero), ("sign", nonzero),
    ("exp", normal), ("exp2", normal), ("expm1", normal), ("log", pos), ("log2", pos),
    ("log10", pos), ("log1p", pos), ("sqrt", pos), ("cbrt", nonzero), ("square", normal),
    ("reciprocal", nonzero), ("sin", normal), ("cos", normal), ("tan", unit),
    ("arcsin", unit), ("arccos", unit), ("arctan", normal), ("sinh", normal),
    ("cosh", normal), ("tanh", normal), ("arcsinh", normal), ("arccosh", gt1),
    ("arctanh", unit), ("floor", frac), ("ceil", frac), ("round", frac),
]
for _name, _dom in UNARY:
    row(_name, "", lambda ns, x, _n=_name: getattr(ns, _n)(x), A((_dom, S)))
    row(_name, "0d", lambda ns, x, _n=_name: getattr(ns, _n)(x), A((_dom, ())), extra=False)

BINARY = [
    ("add", normal, normal), ("subtract", normal, normal), ("multiply", normal, normal),
    ("divide", normal, nonzero), ("true_divide", normal, nonzero),
    ("power", pos, exponent), ("maximum", sep_lo, sep_hi), ("minimum", sep_hi, sep_lo),
    ("arctan2", nonzero, nonzero), ("hypot", nonzero, nonzero), ("mod", mod_x, mod_y),
    ("logaddexp", wide, wide),
]
BROADCAST_PAIRS = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((), (2, 3)), ((1,), (2, 3)),
                   ((2, 3), ())]
for _name, _dx, _dy in BINARY:
    for _sx, _sy in BROADCAST_PAIRS:
        row(_name, "" if _sx == _sy else f"{_sx}x{_sy}".replace(" ", ""),
            lambda ns, x, y, _n=_name: getattr(ns, _n)(x, y), A((_dx, _sx), (_dy, _sy)),
            extra=_sx == _sy)
row("maximum", "mixed-order", lambda ns, x, y: ns.maximum(x, y), A((sep_hi, S), (sep_lo, S)))

# Python-scalar operands and operators
row("power", "int-exponent-negative-base", lambda ns, x: ns.power(x, 3), A((normal, S)))
row("power", "float-exponent-negative-base", lambda ns, x: ns.power(x, 3.0), A((normal, S)))
row("power", "sqrt-exponent", lambda ns, x: ns.power(x, 0.5), A((pos, S)))
row("power", "scalar-base", lambda ns, y: ns.power(2.0, y), A((normal, S)))
row("power", "operator", lambda ns, x, y: x ** y + x ** 2 + 2.0 ** y, A((pos, S), (normal, S)))
row("multiply", "python-scalar", lambda ns, x: ns.multiply(x, 2.5) + ns.add(1.5, x), A((normal, S)))
row("operators", "", lambda ns, x, y: (x + y) * (x - y) / (2.5 - y) + (-x) ** 2 + abs(x) - 3.0 / y,
    A((nonzero, S), (sep_lo, S)))

# selection and clipping
_COND = np.array([[True, False, True], [False, False, True]])
row("where", "", lambda ns, x, y: ns.where(_COND, x, y), A((normal, S), (normal, S)))
row("where", "broadcast", lambda ns, x, y: ns.where(_COND, x, y), A((normal, (3,)), (normal, ())))
row("where", "traced-condition", lambda ns, x: ns.where(x > 0, x * 2.0, -x), A((nonzero, S)))
row("clip", "constant-bounds", lambda ns, x: ns.clip(x, -1.0, 1.0), A((clip_x, S)))
row("clip", "traced-bounds", lambda ns, x, lo, hi: ns.clip(x, lo, hi),
    A((clip_x, S), (lambda r, s: r.uniform(-1.1, -0.9, s), S),
      (lambda r, s: r.uniform(0.9, 1.1, s), S)))
row("clip", "broadcast-bounds", lambda ns, x, lo, hi: ns.clip(x, lo, hi),
    A((clip_x, S), (lambda r, s: r.uniform(-1.1, -0.9, s), ()),
      (lambda r, s: r.uniform(0.9, 1.1, s), (3,))))
row("clip", "upper-only", lambda ns, x: ns.clip(x, None, 1.0), A((clip_x, S)))

# reductions
S3 = (2, 3, 4)
for _variant, _kw in [("", {}), ("axis=0", {"axis": 0}), ("axis=-1", {"axis": -1}),
                      ("axis=(0,2)", {"axis": (0, 2)}), ("keepdims", {"axis": 1, "keepdims": True})]:
    row("sum", _variant, lambda ns, x, _kw=_kw: ns.sum(x, **_kw), A((normal, S3)))
    row("mean", _variant, lambda ns, x, _kw=_kw: ns.mean(x, **_kw), A((normal, S3)))
    row("max", _variant, lambda ns, x, _kw=_kw: ns.max(x, **_kw), A((distinct, S3)))
    row("min", _variant, lambda ns, x, _kw=_kw: ns.min(x, **_kw), A((distinct, S3)))
    row("var", _variant, lambda ns, x, _kw=_kw: ns.var(x, **_kw), A((normal, S3)))
    row("std", _variant, lambda ns, x, _kw=_kw: ns.std(x, **_kw), A((normal, S3)))
    row("prod", _variant, lambda ns, x, _kw=_kw: ns.prod(x, **_kw), A((nonzero, S3)))
row("amax", "axis=1", lambda ns, x: ns.amax(x, axis=1), A((distinct, S)))
row("amin", "axis=1", lambda ns, x: ns.amin(x, axis=1), A((distinct, S)))
row("var", "ddof=1", lambda ns, x: ns.var(x, axis=0, ddof=1), A((normal, (4, 3))))
row("std", "ddof=1", lambda ns, x: ns.std(x, ddof=1), A((normal, S)))
row("std", "ddof=1-axis=1-keepdims", lambda ns, x: ns.std(x, axis=1, ddof=1, keepdims=True),
    A((normal, (3, 4))))
_ZERO1 = np.array([[1.5, 0.0, -2.0], [0.7, 1.2, -0.4]])
_ZERO2 = np.array([[1.5, 0.0, 0.0], [0.7, 0.0, -0.4]])


def _zeroed(x, mask):
    """``x`` with zeros where ``mask`` is 0 (the dtype of ``x`` kept)."""
    return x * mask.astype(x.dtype)


row("prod", "one-zero", lambda ns, x: ns.prod(_zeroed(x, _ZERO1)), A((nonzero, S)))
row("prod", "two-zeros-axis=1", lambda ns, x: ns.prod(_zeroed(x + 1.0, _ZERO2), axis=1),
    A((nonzero, S)))
row("prod", "one-zero-axis=0", lambda ns, x: ns.prod(_zeroed(x, _ZERO1), axis=0), A((nonzero, S)))
for _variant, _kw in [("", {}), ("axis=0", {"axis": 0}), ("axis=-1", {"axis": -1})]:
    row("cumsum", _variant, lambda ns, x, _kw=_kw: ns.cumsum(x, **_kw), A((normal, S)))
    row("cumprod", _variant, lambda ns, x, _kw=_kw: ns.cumprod(x, **_kw), A((nonzero, S)))
row("cumprod", "with-zeros", lambda ns, x: ns.cumprod(_zeroed(x + 1.0, _ZERO2), axis=1),
    A((nonzero, S)))

# shape functions
row("reshape", "", lambda ns, x: ns.reshape(x, (3, 2)), A((normal, S)))
row("reshape", "minus-one", lambda ns, x: ns.reshape(x, (-1,)), A((normal, S3)))
row("reshape", "method", lambda ns, x: x.reshape(4, -1), A((normal, S3)))
row("ravel", "", lambda ns, x: ns.ravel(x), A((normal, S3)))
row("transpose", "", lambda ns, x: ns.transpose(x), A((normal, S3)))
row("transpose", "axes", lambda ns, x: ns.transpose(x, (1, 0, 2)), A((normal, S3)))
row("transpose", "T", lambda ns, x: x.T, A((normal, S)))
row("swapaxes", "", lambda ns, x: ns.swapaxes(x, 0, 2), A((normal, S3)))
row("moveaxis", "", lambda ns, x: ns.moveaxis(x, 0, -1), A((normal, S3)))
row("expand_dims", "", lambda ns, x: ns.expand_dims(x, 1), A((normal, S)))
row("expand_dims", "tuple", lambda ns, x: ns.expand_dims(x, (0, -1)), A((normal, S)))
row("squeeze", "", lambda ns, x: ns.squeeze(x), A((normal, (1, 3, 1))))
row("squeeze", "axis", lambda ns, x: ns.squeeze(x, axis=2), A((normal, (1, 3, 1))))
row("broadcast_to", "", lambda ns, x: ns.broadcast_to(x, (2, 3)), A((normal, (3,))))
row("broadcast_to", "stretch", lambda ns, x: ns.broadcast_to(x, (2, 2, 3)), A((normal, (2, 1, 3))))
row("concatenate", "", lambda ns, x, y: ns.concatenate([x, y]), A((normal, S), (normal, (1, 3))))
row("concatenate", "axis=-1", lambda ns, x, y: ns.concatenate((x, y, x), axis=-1),
    A((normal, S), (normal, (2, 1))))
row("stack", "", lambda ns, x, y: ns.stack([x, y]), A((normal, S), (normal, S)))
row("stack", "axis=-1", lambda ns, x, y: ns.stack([x, y, x], axis=-1), A((normal, S), (normal, S)))
row("hstack", "", lambda ns, x, y: ns.hstack([x, y]), A((normal, S), (normal, (2, 2))))
row("hstack", "1d", lambda ns, x, y: ns.hstack([x, y]), A((normal, (3,)), (normal, (2,))))
row("vstack", "", lambda ns, x, y: ns.vstack([x, y]), A((normal, S), (normal, (1, 3))))
row("vstack", "1d", lambda ns, x, y: ns.vstack([x, y]), A((normal, (3,)), (normal, (3,))))
row("split", "sections", lambda ns, x: ns.split(x, 2, axis=1), A((normal, (2, 4))))
row("split", "indices", lambda ns, x: ns.split(x, [1, 3]), A((normal, (4, 2))))
row("tile", "", lambda ns, x: ns.tile(x, 2), A((normal, (3,))))
row("tile", "2d", lambda ns, x: ns.tile(x, (2, 1, 2)), A((normal, S)))
row("repeat", "", lambda ns, x: ns.repeat(x, 2), A((normal, S)))
row("repeat", "axis", lambda ns, x: ns.repeat(x, [1, 0, 3], axis=1), A((normal, S)))
row("flip", "", lambda ns, x: ns.flip(x), A((normal, S)))
row("flip", "axis", lambda ns, x: ns.flip(x, axis=1), A((normal, S3)))
row("roll", "", lambda ns, x: ns.roll(x, 2), A((normal, S)))
row("roll", "axes", lambda ns, x: ns.roll(x, (1, -1), axis=(0, 1)), A((normal, S)))
row("pad", "", lambda ns, x: ns.pad(x, ((1, 0), (2, 1))), A((normal, S)))
row("pad", "int", lambda ns, x: ns.pad(x, 1), A((normal, (3,))))
row("diag", "1d", lambda ns, x: ns.diag(x), A((normal, (3,))))
row("diag", "1d-k", lambda ns, x: ns.diag(x, k=1), A((normal, (3,))))
row("diag", "2d", lambda ns, x: ns.diag(x, k=-1), A((normal, (3, 3))))
row("diagonal", "", lambda ns, x: ns.diagonal(x), A((normal, (3, 4))))
row("diagonal", "offset-axes", lambda ns, x: ns.diagonal(x, offset=1, axis1=0, axis2=2), A((normal, S3)))
row("trace", "", lambda ns, x: ns.trace(x), A((normal, (3, 3))))
row("trace", "offset", lambda ns, x: ns.trace(x, offset=1), A((normal, (3, 4))))
row("triu", "", lambda ns, x: ns.triu(x), A((normal, (3, 3))))
row("triu", "k", lambda ns, x: ns.triu(x, k=1), A((normal, (3, 4))))
row("tril", "", lambda ns, x: ns.tril(x), A((normal, (3, 3))))
row("tril", "k", lambda ns, x: ns.tril(x, k=-1), A((normal, (4, 3))))
row("take", "", lambda ns, x: ns.take(x, [2, 0, 2, 5]), A((normal, S)))
row("take", "axis", lambda ns, x: ns.take(x, [[0, 1], [1, 1]], axis=1), A((normal, S)))
row("sort", "", lambda ns, x: ns.sort(x), A((distinct, S)))
row("sort", "axis=0", lambda ns, x: ns.sort(x, axis=0), A((distinct, S)))
row("sort", "axis=None", lambda ns, x: ns.sort(x, axis=None), A((distinct, S)))
row("outer", "", lambda ns, x, y: ns.outer(x, y), A((normal, (3,)), (normal, (4,))))

# indexing
_MASK = np.array([[True, False, True], [False, True, True]])
for _variant, _idx in [
    ("int", 1), ("negative-int", -1), ("slice", (slice(None), slice(1, 3))),
    ("strided-reversed", (slice(None, None, 2), slice(None, None, -1))),
    ("none-ellipsis", (None, Ellipsis, 0)),
    ("repeated-int-array", [0, 0, 1, 0]),
    ("int-array-pair", ([0, 1, 1], [2, 2, 0])),
    ("mixed", (slice(1, None), [0, 2, 2])),
    ("bool-mask", _MASK),
    ("row-mask", np.array([True, False])),
]:
    row("getitem", _variant, lambda ns, x, _i=_idx: x[_i], A((normal, S)))
row("at.set", "", lambda ns, x, v: at(ns, x)[0, 1:].set(v), A((normal, S), (normal, (2,))))
row("at.set", "int-array", lambda ns, x, v: at(ns, x)[[0, 2]].set(v), A((normal, (4,)), (normal, ())))
row("at.add", "", lambda ns, x, v: at(ns, x)[:, 1].add(v), A((normal, S), (normal, (2,))))
row("at.add", "repeated-indices", lambda ns, x, v: at(ns, x)[[0, 2, 0, 0]].add(v),
    A((normal, (4,)), (normal, (4,))))

# creation with traced values (np.array/np.asarray/np.full cannot see the
# tracers inside a list or a fill value: only the tracegrad spelling works)
row("array", "scalars", lambda ns, a, b: ns.array([a, b, a]), A((normal, ()), (normal, ())),
    numpy_dispatch=False)
row("array", "nested", lambda ns, a, b: ns.array([[a, b], [b, a]]), A((normal, (2,)), (normal, (2,))),
    numpy_dispatch=False)
row("asarray", "", lambda ns, a: ns.asarray([a, a * 2.0]), A((normal, (3,))), numpy_dispatch=False)
row("full", "", lambda ns, v: ns.full((2, 3), v), A((normal, ())), numpy_dispatch=False)
row("full_like", "", lambda ns, x, v: ns.full_like(x, v) * x, A((normal, S), (normal, ())))
row("linspace", "", lambda ns, a, b: ns.linspace(a, b, 5), A((normal, ()), (normal, ())))

# linear algebra
row("dot", "vv", lambda ns, x, y: ns.dot(x, y), A((normal, (3,)), (normal, (3,))))
row("dot", "mv", lambda ns, x, y: ns.dot(x, y), A((normal, S), (normal, (3,))))
row("dot", "vm", lambda ns, x, y: ns.dot(x, y), A((normal, (2,)), (normal, S)))
row("dot", "mm", lambda ns, x, y: ns.dot(x, y), A((normal, S), (normal, (3, 2))))
row("dot", "scalar", lambda ns, x, y: ns.dot(x, y), A((normal, ()), (normal, S)))
row("matmul", "", lambda ns, x, y: ns.matmul(x, y), A((normal, S), (normal, (3, 4))))
row("matmul", "batched", lambda ns, x, y: ns.matmul(x, y), A((normal, (2, 2, 3)), (normal, (3, 2))))
row("matmul", "broadcast-batch", lambda ns, x, y: ns.matmul(x, y),
    A((normal, (1, 2, 3)), (normal, (2, 3, 2))))
row("matmul", "vm", lambda ns, x, y: ns.matmul(x, y), A((normal, (3,)), (normal, (3, 2))))
row("matmul", "mv", lambda ns, x, y: ns.matmul(x, y), A((normal, S), (normal, (3,))))
row("matmul", "vv", lambda ns, x, y: ns.matmul(x, y), A((normal, (3,)), (normal, (3,))))
row("matmul", "operator", lambda ns, x, y: x @ y, A((normal, S), (normal, (3, 2))))
row("tensordot", "axes=1", lambda ns, x, y: ns.tensordot(x, y, axes=1), A((normal, S), (normal, (3, 4))))
row("tensordot", "axes=2", lambda ns, x, y: ns.tensordot(x, y), A((normal, S3), (normal, (3, 4))))
row("tensordot", "axes-lists", lambda ns, x, y: ns.tensordot(x, y, axes=([1, 0], [0, 1])),
    A((normal, S), (normal, (3, 2))))
row("tensordot", "axes=0", lambda ns, x, y: ns.tensordot(x, y, axes=0), A((normal, (2,)), (normal, (3,))))
for _variant, _spec, _shapes in [
    ("matmul", "ij,jk->ik", [S, (3, 4)]), ("inner", "i,i->", [(3,), (3,)]),
    ("sum-axis", "ij->j", [S]), ("batched", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("trace", "ii->", [(3, 3)]), ("implicit", "ij,jk", [S, (3, 2)]),
    ("transpose", "ij->ji", [S]), ("outer", "i,j->ij", [(2,), (3,)]),
    ("three-operands", "ij,jk,k->i", [S, (3, 2), (2,)]),
]:
    row("einsum", _variant, lambda ns, *xs, _s=_spec: ns.einsum(_s, *xs),
        A(*[(normal, s) for s in _shapes]))

row("linalg.norm", "", lambda ns, x: ns.linalg.norm(x), A((normal, (4,))))
row("linalg.norm", "ord=1", lambda ns, x: ns.linalg.norm(x, ord=1), A((nonzero, (4,))))
row("linalg.norm", "ord=inf", lambda ns, x: ns.linalg.norm(x, ord=np.inf), A((distinct_abs, (4,))))
row("linalg.norm", "ord=3", lambda ns, x: ns.linalg.norm(x, ord=3), A((nonzero, (4,))))
row("linalg.norm", "matrix", lambda ns, x: ns.linalg.norm(x), A((normal, S)))
row("linalg.norm", "fro", lambda ns, x: ns.linalg.norm(x, "fro"), A((normal, S)))
row("linalg.norm", "matrix-ord=1", lambda ns, x: ns.linalg.norm(x, 1), A((nonzero, (3, 3))))
row("linalg.norm", "matrix-ord=inf", lambda ns, x: ns.linalg.norm(x, np.inf), A((nonzero, (3, 3))))
row("linalg.norm", "axis", lambda ns, x: ns.linalg.norm(x, axis=1), A((normal, S)))
row("linalg.norm", "axis-keepdims", lambda ns, x: ns.linalg.norm(x, axis=0, keepdims=True),
    A((normal, S)))
row("linalg.inv", "", lambda ns, a: ns.linalg.inv(a), A((wellcond, (3, 3))))
row("linalg.inv", "batched", lambda ns, a: ns.linalg.inv(a), A((wellcond, (2, 3, 3))))
row("linalg.solve", "vector", lambda ns, a, b: ns.linalg.solve(a, b), A((wellcond, (3, 3)), (normal, (3,))))
row("linalg.solve", "matrix", lambda ns, a, b: ns.linalg.solve(a, b),
    A((wellcond, (3, 3)), (normal, (3, 2))))
row("linalg.det", "", lambda ns, a: ns.linalg.det(a), A((normal, (3, 3))))
row("linalg.det", "batched", lambda ns, a: ns.linalg.det(a), A((wellcond, (2, 3, 3))))
row("linalg.slogdet", "", lambda ns, a: ns.linalg.slogdet(a)[1], A((normal, (3, 3))))
row("linalg.slogdet", "batched", lambda ns, a: ns.linalg.slogdet(a)[1], A((wellcond, (2, 3, 3))))
row("linalg.cholesky", "", lambda ns, a: ns.linalg.cholesky(0.5 * (a + a.T)), A((spd, (3, 3))))

# tracegrad.scipy.linalg (SciPy's functions as the reference; no NumPy spelling)
_sla = dict(numpy_dispatch=False)
row("scipy.linalg.solve_triangular", "lower", lambda ns, a, b: ns.scipy_linalg.solve_triangular(
    a, b, lower=True), A((wellcond, (3, 3)), (normal, (3, 2))), **_sla)
row("scipy.linalg.solve_triangular", "upper-T-vector", lambda ns, a, b: ns.scipy_linalg.solve_triangular(
    a, b, trans="T"), A((wellcond, (3, 3)), (normal, (3,))), **_sla)
row("scipy.linalg.solve_triangular", "unit-diagonal-C", lambda ns, a, b: ns.scipy_linalg.solve_triangular(
    a, b, trans=2, lower=True, unit_diagonal=True), A((wellcond, (3, 3)), (normal, (3, 2))), **_sla)
row("scipy.linalg.cho_solve", "lower", lambda ns, c, b: ns.scipy_linalg.cho_solve((c, True), b),
    A((wellcond, (3, 3)), (normal, (3, 2))), **_sla)
row("scipy.linalg.cho_solve", "upper-vector", lambda ns, c, b: ns.scipy_linalg.cho_solve((c, False), b),
    A((wellcond, (3, 3)), (normal, (3,))), **_sla)
row("scipy.linalg.cholesky", "upper", lambda ns, a: ns.scipy_linalg.cholesky(0.5 * (a + a.T)),
    A((spd, (3, 3))), **_sla)
row("scipy.linalg.solve", "pos", lambda ns, a, b: ns.scipy_linalg.solve(0.5 * (a + a.T), b, assume_a="pos"),
    A((spd, (3, 3)), (normal, (3, 2))), **_sla)
row("scipy.linalg.solve", "sym-lower", lambda ns, a, b: ns.scipy_linalg.solve(
    0.5 * (a + a.T), b, assume_a="sym", lower=True), A((wellcond, (3, 3)), (normal, (3,))), **_sla)
row("scipy.linalg.eigh", "generalized-eigvals", lambda ns, a, b: ns.scipy_linalg.eigh(
    0.5 * (a + a.T), 0.5 * (b + b.T), eigvals_only=True), A((sym_distinct, (3, 3)), (spd, (3, 3))), **_sla)
row("scipy.linalg.lu_factor", "", lambda ns, a: ns.scipy_linalg.lu_factor(a)[0], A((normal, (3, 3))),
    **_sla)
row("scipy.linalg.lu_solve", "", lambda ns, a, b: ns.scipy_linalg.lu_solve(ns.scipy_linalg.lu_factor(a), b),
    A((wellcond, (3, 3)), (normal, (3, 2))), **_sla)
row("scipy.linalg.lu", "", lambda ns, a: ns.scipy_linalg.lu(a)[1:], A((normal, (3, 3))), **_sla)
row("scipy.linalg.expm", "", lambda ns, a: ns.scipy_linalg.expm(a), A((normal, (3, 3))), **_sla)
row("scipy.linalg.expm_frechet", "", lambda ns, a, e: ns.scipy_linalg.expm_frechet(a, e, compute_expm=False),
    A((normal, (3, 3)), (normal, (3, 3))), **_sla)
row("scipy.linalg.toeplitz", "", lambda ns, c, r: ns.scipy_linalg.toeplitz(c, r),
    A((normal, (3,)), (normal, (4,))), **_sla)
row("scipy.linalg.block_diag", "", lambda ns, a, b, c: ns.scipy_linalg.block_diag(a, b, c),
    A((normal, (2, 2)), (normal, (3,)), (normal, ())), **_sla)


# tracegrad.scipy.linalg, issue 11: matrix functions (values from SciPy; sqrtm and
# logm are complex, SciPy returns the real root/logarithm when it is real)
def _quasi_triangular(rng, shape):
    # a real Schur form: a 2x2 block with complex eigenvalues on top, then 1x1 blocks
    t = np.triu(rng.standard_normal(shape))
    t[1, 1] = t[0, 0] + 0.1 * rng.standard_normal()
    t[0, 1], t[1, 0] = 1.0 + abs(rng.standard_normal()), -1.0 - abs(rng.standard_normal())
    return t


def _rsf2csf_parts(ns, t, z):
    # only the entries a real Schur form has (upper triangle and the block's
    # subdiagonal entry) are arguments; real and imaginary parts of T and Z
    mask = np.triu(np.ones(t.shape)) + np.eye(t.shape[0], k=-1) * (np.arange(t.shape[0]) == 1)[:, None]
    mask = mask.astype(t.dtype)
    tc, zc = ns.scipy_linalg.rsf2csf(t * mask, z)
    return ns.real(tc), ns.imag(tc), ns.real(zc), ns.imag(zc)


row("scipy.linalg.solve_sylvester", "", lambda ns, a, b, q: ns.scipy_linalg.solve_sylvester(a, b, q),
    A((wellcond, (3, 3)), (wellcond, (2, 2)), (normal, (3, 2))), **_sla)
row("scipy.linalg.sqrtm", "", lambda ns, a: ns.real(ns.scipy_linalg.sqrtm(a)), A((wellcond, (3, 3))),
    tol=1e-5, **_sla)
row("scipy.linalg.sqrtm", "complex", lambda ns, a, b: ns.real(
    ns.scipy_linalg.sqrtm(a + 0.3j * b) * (0.3 - 1.1j)), A((wellcond, (3, 3)), (normal, (3, 3))),
    tol=1e-5, same_dtype=False, **_sla)
row("scipy.linalg.logm", "", lambda ns, a: ns.real(ns.scipy_linalg.logm(a)), A((wellcond, (3, 3))),
    tol=1e-5, **_sla)
row("scipy.linalg.logm", "complex", lambda ns, a, b: ns.imag(
    ns.scipy_linalg.logm(a + 0.3j * b) * (1.0 + 0.5j)), A((wellcond, (3, 3)), (normal, (3, 3))),
    tol=1e-5, same_dtype=False, **_sla)
row("scipy.linalg.polar", "right", lambda ns, a: ns.scipy_linalg.polar(a), A((wellcond, (3, 3))),
    tol=1e-5, **_sla)
row("scipy.linalg.polar", "left-tall", lambda ns, a: ns.scipy_linalg.polar(a, side="left"),
    A((normal, (4, 3))), tol=1e-5, **_sla)
row("scipy.linalg.eigh_tridiagonal", "eigvals", lambda ns, d, e: ns.scipy_linalg.eigh_tridiagonal(
    d, e, eigvals_only=True), A((normal, (4,)), (normal, (3,))), tol=1e-5, **_sla)
row("scipy.linalg.eigh_tridiagonal", "vectors",
    # eigenvectors up to sign: fix the sign of each column's first entry
    lambda ns, d, e: (lambda w, v: (w, v * ns.sign(v[:1, :])))(*ns.scipy_linalg.eigh_tridiagonal(
        d, e, select="i", select_range=(1, 3))), A((normal, (4,)), (normal, (3,))), tol=1e-4, **_sla)
row("scipy.linalg.rsf2csf", "", _rsf2csf_parts, A((_quasi_triangular, (4, 4)), (normal, (4, 4))),
    tol=1e-5, **_sla)
# special matrices built from arrays
row("scipy.linalg.circulant", "", lambda ns, c: ns.scipy_linalg.circulant(c), A((normal, (4,))), **_sla)
row("scipy.linalg.circulant", "batched", lambda ns, c: ns.scipy_linalg.circulant(c), A((normal, (2, 3))),
    **_sla)
row("scipy.linalg.hankel", "", lambda ns, c, r: ns.scipy_linalg.hankel(c, r),
    A((normal, (3,)), (normal, (4,))), **_sla)
row("scipy.linalg.companion", "", lambda ns, a: ns.scipy_linalg.companion(a), A((pos, (2, 4))), **_sla)
row("scipy.linalg.fiedler", "", lambda ns, a: ns.scipy_linalg.fiedler(a), A((normal, (2, 4))), **_sla)
row("scipy.linalg.fiedler_companion", "", lambda ns, a: ns.scipy_linalg.fiedler_companion(a),
    A((pos, (6,))), **_sla)
row("scipy.linalg.leslie", "", lambda ns, f, s: ns.scipy_linalg.leslie(f, s),
    A((normal, (4,)), (normal, (3,))), **_sla)
# pivoted QR (the permutation is piecewise constant) and qr_multiply; R's
# diagonal signs made positive, as for linalg.qr
def _qr_signs(ns, q, r):
    d = ns.sign(ns.diagonal(r))
    return q * d, r * d[:, None]


row("scipy.linalg.qr", "pivoting-economic", lambda ns, a: _qr_signs(
    ns, *ns.scipy_linalg.qr(a, mode="economic", pivoting=True)[:2]), A((normal, (4, 3))), tol=1e-4, **_sla)
row("scipy.linalg.qr_multiply", "right", lambda ns, a, c: ns.scipy_linalg.qr_multiply(a, c)[0],
    A((wellcond, (3, 3)), (normal, (2, 3))), tol=1e-4, **_sla)
row("scipy.linalg.qr_multiply", "left-pivoting", lambda ns, a, c: ns.scipy_linalg.qr_multiply(
    a, c, mode="left", pivoting=True)[0], A((wellcond, (3, 3)), (normal, (3, 2))), tol=1e-4, **_sla)
for _mode in ("full", "same", "valid"):
    row("scipy.linalg.convolution_matrix", _mode, lambda ns, a, _m=_mode: ns.scipy_linalg.convolution_matrix(
        a, 4, _m), A((normal, (3,))), **_sla)
row("linalg.eigh", "eigenvalues",
    lambda ns, a: ns.linalg.eigh(0.5 * (a + a.T))[0], A((sym_distinct, (3, 3))))
row("linalg.eigh", "eigenvectors",
    # eigenvectors up to sign: fix the sign of each column's first entry
    lambda ns, a: (lambda w, v: v * ns.sign(v[:1, :]))(*ns.linalg.eigh(0.5 * (a + a.T))),
    A((sym_distinct, (3, 3))), tol=1e-4)

# tracegrad.nn
row("nn.sigmoid", "", lambda ns, x: ns.nn.sigmoid(x), A((wide, S)))
row("nn.relu", "", lambda ns, x: ns.nn.relu(x), A((nonzero, S)))
row("nn.softplus", "", lambda ns, x: ns.nn.softplus(x), A((wide, S)))
row("nn.log_sigmoid", "", lambda ns, x: ns.nn.log_sigmoid(x), A((wide, S)))
row("nn.softmax", "", lambda ns, x: ns.nn.softmax(x), A((wide, S)))
row("nn.softmax", "axis=0", lambda ns, x: ns.nn.softmax(x, axis=0), A((wide, S)))
row("nn.log_softmax", "", lambda ns, x: ns.nn.log_softmax(x), A((wide, S)))
row("nn.log_softmax", "axis=0", lambda ns, x: ns.nn.log_softmax(x, axis=0), A((wide, S)))
row("nn.logsumexp", "", lambda ns, x: ns.nn.logsumexp(x), A((wide, S)))
row("ops.erf", "", lambda ns, x: ns.ops.erf(x), A((normal, S)),
    numpy_dispatch=False)  # (NumPy has no erf ufunc for the reference to dispatch)
row("ops.erf_inv", "", lambda ns, x: ns.ops.erf_inv(x), A((unit, S)), numpy_dispatch=False)


def prob(rng, shape):
    return rng.uniform(0.1, 0.9, shape)


# tracegrad.scipy.special (one row per primitive of primitives/special.py and a
# few compositions); the references are SciPy's own functions
for _name, _dom in [("erfc", normal), ("erfcx", normal), ("ndtr", wide), ("log_ndtr", wide),
                    ("ndtri", prob), ("gammaln", pos), ("gamma", pos), ("digamma", pos),
                    ("logit", prob), ("entr", pos)]:
    row(f"special.{_name}", "", lambda ns, x, _n=_name: getattr(ns.special, _n)(x), A((_dom, S)),
        numpy_dispatch=False)
row("special.polygamma", "n=1", lambda ns, x: ns.special.polygamma(1, x), A((pos, S)),
    numpy_dispatch=False)
for _name in ("betaln", "xlogy", "rel_entr", "xlog1py", "beta", "poch"):
    for _sx, _sy in (((2, 3), (2, 3)), ((3, 1), (1, 4))):
        row(f"special.{_name}", "" if _sx == _sy else "(3,1)x(1,4)",
            lambda ns, x, y, _n=_name: getattr(ns.special, _n)(x, y), A((pos, _sx), (pos, _sy)),
            numpy_dispatch=False)
# spmore (issue 11): modified Bessel functions, exponential integrals, zeta in q
for _name, _dom in [("i0", wide), ("i0e", pos), ("i1", wide), ("i1e", pos), ("exp1", pos),
                    ("expi", pos)]:
    row(f"special.{_name}", "", lambda ns, x, _n=_name: getattr(ns.special, _n)(x), A((_dom, S)),
        numpy_dispatch=False)
row("special.expn", "n=2", lambda ns, x: ns.special.expn(2, x), A((pos, S)), numpy_dispatch=False)
row("special.zeta", "x=3", lambda ns, q: ns.special.zeta(3.0, q), A((pos, S)), numpy_dispatch=False)
row("special.boxcox", "", lambda ns, x, lm: ns.special.boxcox(x, lm), A((pos, S), (normal, S)),
    numpy_dispatch=False)
row("special.boxcox1p", "", lambda ns, x, lm: ns.special.boxcox1p(x, lm), A((pos, S), (normal, S)),
    numpy_dispatch=False)
# incomplete gamma and beta (issue 11, spinc): differentiable in x only, so the
# shape parameters are constants here (tests/test_scipy_incomplete.py checks the error)
row("special.gammainc", "x", lambda ns, x: ns.special.gammainc(2.5, x), A((pos, S)), numpy_dispatch=False)
row("special.gammaincc", "x", lambda ns, x: ns.special.gammaincc(0.7, x), A((pos, S)), numpy_dispatch=False)
row("special.betainc", "x", lambda ns, x: ns.special.betainc(2.5, 0.8, x), A((prob, S)), numpy_dispatch=False)
row("special.betaincc", "x", lambda ns, x: ns.special.betaincc(0.6, 3.0, x), A((prob, S)),
    numpy_dispatch=False)
# Bessel functions (primitives/bessel.py): one row per primitive, the order fixed
for _name in ("j0", "j1", "y0", "y1"):
    row(f"special.{_name}", "", lambda ns, x, _n=_name: getattr(ns.special, _n)(x), A((pos, S)),
        numpy_dispatch=False)
for _name, _v in (("jv", 2.5), ("yv", 1.5), ("iv", 0.5), ("ive", 1.0)):
    row(f"special.{_name}", f"v={_v}", lambda ns, x, _n=_name, _v=_v: getattr(ns.special, _n)(_v, x),
        A((pos, S)), numpy_dispatch=False)
# factorial, comb, poch, rgamma, dawsn, spence (issue 11)
row("special.dawsn", "", lambda ns, x: ns.special.dawsn(x), A((wide, S)), numpy_dispatch=False)
row("special.spence", "", lambda ns, x: ns.special.spence(x), A((pos, S)), numpy_dispatch=False)
row("special.rgamma", "", lambda ns, x: ns.special.rgamma(x), A((pos, S)), numpy_dispatch=False)
row("special.factorial", "", lambda ns, x: ns.special.factorial(x), A((pos, S)),
    numpy_dispatch=False)
row("special.comb", "", lambda ns, n, k: ns.special.comb(n + 3.0, k), A((pos, S), (pos, S)),
    numpy_dispatch=False)
row("nn.logsumexp", "axis=1", lambda ns, x: ns.nn.logsumexp(x, axis=1), A((wide, S)))
row("nn.logsumexp", "keepdims", lambda ns, x: ns.nn.logsumexp(x, axis=0, keepdims=True),
    A((wide, S)))

# call primitives: a custom_jvp function (its exact rule) and a checkpointed block


class _Calls:
    """tracegrad functions built with tg.custom_jvp, tg.checkpoint and tg.jit (made on
    first use, so collecting this table does not import tracegrad)."""

    _made = None

    @classmethod
    def get(cls):
        if cls._made is None:
            import tracegrad as tg
            import tracegrad.numpy as tnp

            @tg.custom_jvp
            def sin_cubed(x):
                return tnp.sin(x) ** 3

            @sin_cubed.defjvp
            def _sin_cubed_jvp(primals, tangents):
                (x,), (t,) = primals, tangents
                return sin_cubed(x), 3.0 * tnp.sin(x) ** 2 * tnp.cos(x) * t

            block = tg.checkpoint(lambda x, y: tnp.tanh(x * y) + tnp.sin(x))
            compiled = tg.jit(lambda x, y: tnp.tanh(x * y) + tnp.sin(x) * y)
            cls._made = {"sin_cubed": sin_cubed, "block": block, "compiled": compiled}
        return cls._made


row("custom_jvp", "sin_cubed",
    lambda ns, x: _Calls.get()["sin_cubed"](x) if ns is TNP else np.sin(x) ** 3,
    A((normal, S)))
row("checkpoint", "",
    lambda ns, x, y: _Calls.get()["block"](x, y) if ns is TNP else np.tanh(x * y) + np.sin(x),
    A((normal, S), (normal, S)))
row("jit", "",
    lambda ns, x, y: (_Calls.get()["compiled"](x, y) if ns is TNP
                      else np.tanh(x * y) + np.sin(x) * y),
    A((normal, S), (normal, S)))

# public functions beyond the issue's list (they reach primitives nothing else uses)
row("nn.silu", "", lambda ns, x: ns.nn.silu(x), A((wide, S)))
row("nn.swish", "", lambda ns, x: ns.nn.swish(x), A((wide, S)))
row("nn.gelu", "", lambda ns, x: ns.nn.gelu(x), A((wide, S)))
row("nn.gelu", "exact", lambda ns, x: ns.nn.gelu(x, approximate=False), A((wide, S)),
    numpy_dispatch=False)
row("nn.elu", "", lambda ns, x: ns.nn.elu(x, alpha=0.7), A((nonzero, S)))
row("nn.leaky_relu", "", lambda ns, x: ns.nn.leaky_relu(x, 0.1), A((nonzero, S)))
row("nn.relu6", "", lambda ns, x: ns.nn.relu6(x),
    A((lambda r, s: np.choose(r.integers(0, 3, s), [r.uniform(-2, -0.3, s), r.uniform(0.3, 5.7, s),
                                                    r.uniform(6.3, 8, s)]), S)))
row("nn.selu", "", lambda ns, x: ns.nn.selu(x), A((nonzero, S)))
row("nn.celu", "", lambda ns, x: ns.nn.celu(x, 0.6), A((nonzero, S)))
row("nn.mish", "", lambda ns, x: ns.nn.mish(x), A((wide, S)))
row("nn.hard_tanh", "", lambda ns, x: ns.nn.hard_tanh(x), A((clip_x, S)))
row("nn.hard_sigmoid", "", lambda ns, x: ns.nn.hard_sigmoid(x), A((lambda r, s: 3 * clip_x(r, s), S)))
row("nn.hard_silu", "", lambda ns, x: ns.nn.hard_silu(x), A((lambda r, s: 3 * clip_x(r, s), S)))
row("nn.hard_swish", "", lambda ns, x: ns.nn.hard_swish(x), A((lambda r, s: 3 * clip_x(r, s), S)))
row("nn.soft_sign", "", lambda ns, x: ns.nn.soft_sign(x), A((nonzero, S)))
row("nn.log1mexp", "", lambda ns, x: ns.nn.log1mexp(x), A((pos, S)))
row("nn.log1mexp", "small", lambda ns, x: ns.nn.log1mexp(x),
    A((lambda r, s: r.uniform(0.25, 0.6, s), S)))
row("nn.sparse_plus", "", lambda ns, x: ns.nn.sparse_plus(x), A((clip_x, S)))
row("nn.sparse_sigmoid", "", lambda ns, x: ns.nn.sparse_sigmoid(x), A((clip_x, S)))
row("nn.squareplus", "", lambda ns, x: ns.nn.squareplus(x, b=2.0), A((wide, S)))
row("nn.identity", "", lambda ns, x: ns.nn.identity(x), A((normal, S)))
row("nn.tanh", "", lambda ns, x: ns.nn.tanh(x), A((normal, S)))
row("nn.glu", "", lambda ns, x: ns.nn.glu(x, axis=0), A((normal, (4, 3))))
row("nn.standardize", "", lambda ns, x: ns.nn.standardize(x, epsilon=0.1), A((normal, (2, 4))))
row("nn.dot_product_attention", "", lambda ns, q, k, v, b: ns.nn.dot_product_attention(q, k, v, b),
    A((normal, (3, 2, 4)), (normal, (2, 1, 4)), (normal, (2, 1, 4)), (normal, (1, 2, 3, 2))),
    tol=1e-4)
row("nn.dot_product_attention", "causal",
    lambda ns, q, k, v: ns.nn.dot_product_attention(q, k, v, is_causal=True),
    A((normal, (1, 3, 2, 2)), (normal, (1, 3, 2, 2)), (normal, (1, 3, 2, 2))), tol=1e-4)
row("ops.lstm_cell", "", lambda ns, g, c: ns.ops.lstm_cell(g, c),
    A((normal, (3, 8)), (normal, (3, 2))), numpy_dispatch=False)
row("ops.lstm_cell", "broadcast", lambda ns, g, c: ns.ops.lstm_cell(g, c),
    A((normal, (2, 3, 4)), (normal, (2, 1, 1))), numpy_dispatch=False, extra=False)
row("lax.conv_general_dilated", "",
    lambda ns, x, w: ns.lax.conv_general_dilated(x, w, (2, 1), ((1, 0), (2, 1)),
                                                 rhs_dilation=(1, 2)),
    A((normal, (2, 3, 5, 4)), (normal, (2, 3, 2, 2))), numpy_dispatch=False)
row("lax.conv_general_dilated_patches", "",
    lambda ns, x: ns.lax.conv_general_dilated_patches(x, (2, 3), (1, 2), ((0, 1), (1, 1))),
    A((normal, (2, 2, 4, 5))), numpy_dispatch=False)
row("linalg.svd", "values", lambda ns, a: ns.linalg.svd(a, compute_uv=False), A((normal, (3, 2))))
row("linalg.svd", "vectors",
    # singular vectors up to sign: fix the sign of each column of u
    lambda ns, a: (lambda u, s, vh: (u * ns.sign(u[:1, :]), s, vh * ns.sign(u[:1, :]).T))(
        *ns.linalg.svd(a, full_matrices=False)),
    A((normal, (3, 2))), tol=1e-4)
row("linalg.qr", "",
    # factors up to the signs of r's diagonal: make it positive
    lambda ns, a: (lambda q, r: (q * ns.sign(ns.diagonal(r)), r * ns.sign(ns.diagonal(r))[:, None]))(
        *ns.linalg.qr(a)),
    A((normal, (3, 2))))
row("linalg.qr", "r", lambda ns, a: ns.abs(ns.linalg.qr(a, mode="r")), A((normal, (3, 3))))
# full_matrices=True / mode="complete": derivatives exist where no column is
# arbitrary (a square matrix for svd; square or wide for qr)
row("linalg.svd", "full_matrices-square",
    lambda ns, a: (lambda u, s, vh: (u * ns.sign(u[:1, :]), s, vh * ns.sign(u[:1, :]).T))(
        *ns.linalg.svd(a, full_matrices=True)),
    A((normal, (3, 3))), tol=1e-4)
for _shape in [(3, 3), (2, 3)]:
    row("linalg.qr", f"complete-{_shape[0]}x{_shape[1]}",
        lambda ns, a: (lambda q, r: (q * ns.sign(ns.diagonal(r)), r * ns.sign(ns.diagonal(r))[:, None]))(
            *ns.linalg.qr(a, mode="complete")),
        A((normal, _shape)))
row("linalg.svdvals", "", lambda ns, a: ns.linalg.svdvals(a), A((normal, (2, 3))))
row("linalg.norm", "matrix-ord=2", lambda ns, x: ns.linalg.norm(x, 2), A((normal, (3, 2))))
row("linalg.norm", "nuc", lambda ns, x: ns.linalg.norm(x, "nuc"), A((normal, (3, 2))))
row("linalg.pinv", "tall", lambda ns, a: ns.linalg.pinv(a), A((normal, (3, 2))))
row("linalg.pinv", "wide-batched", lambda ns, a: ns.linalg.pinv(a), A((normal, (2, 2, 3))))
row("linalg.lstsq", "x", lambda ns, a, b: ns.linalg.lstsq(a, b)[0],
    A((normal, (4, 2)), (normal, (4,))), tol=1e-4)
row("linalg.lstsq", "residuals", lambda ns, a, b: ns.linalg.lstsq(a, b)[1],
    A((normal, (4, 2)), (normal, (4, 2))), tol=1e-4)
row("linalg.eigvals", "real-distinct",
    # a nonsymmetric matrix with distinct real eigenvalues 1, 2.5, 4: sorted real parts
    lambda ns, a: ns.sort(ns.real(ns.linalg.eigvals(a))), A((real_distinct_eig, (3, 3))),
    tol=1e-4, same_dtype=False)
row("linalg.eig", "values-squared",
    # complex eigenvalues of a general matrix: Re(sum(w**2)) = trace(a @ a)
    lambda ns, a: ns.real(ns.sum(ns.linalg.eig(a)[0] ** 2)), A((normal, (3, 3))),
    tol=1e-4, same_dtype=False)
row("linalg.eig", "vectors",
    # |v|**2 does not depend on each eigenvector's sign
    lambda ns, a: ns.abs(ns.linalg.eig(a)[1]) ** 2, A((real_distinct_eig, (3, 3))),
    tol=1e-4, same_dtype=False)
row("linalg.cond", "", lambda ns, a: ns.linalg.cond(a), A((wellcond, (3, 3))), tol=1e-4)
row("linalg.cond", "fro", lambda ns, a: ns.linalg.cond(a, "fro"), A((wellcond, (3, 3))), tol=1e-4)
row("linalg.tensorsolve", "", lambda ns, a, b: ns.linalg.tensorsolve(a, b),
    A((wellcond_tensor, (2, 3, 6)), (normal, (2, 3))), tol=1e-4)
row("linalg.tensorinv", "", lambda ns, a: ns.linalg.tensorinv(a, ind=1),
    A((wellcond_tensor, (4, 2, 2))), tol=1e-4)
row("linalg.cross", "", lambda ns, a, b: ns.linalg.cross(a, b), A((normal, (2, 3)), (normal, (3,))))
row("linalg.trace", "", lambda ns, a: ns.linalg.trace(a, offset=1), A((normal, (2, 3, 3))))
row("linalg.outer", "", lambda ns, a, b: ns.linalg.outer(a, b), A((normal, (3,)), (normal, (2,))))
row("linalg.diagonal", "", lambda ns, a: ns.linalg.diagonal(a), A((normal, (2, 3, 4))))
row("linalg.eigvalsh", "", lambda ns, a: ns.linalg.eigvalsh(0.5 * (a + a.T)), A((sym_distinct, (3, 3))))
row("linalg.matrix_power", "", lambda ns, a: ns.linalg.matrix_power(a, 3), A((normal, (3, 3))))
row("linalg.matrix_power", "negative", lambda ns, a: ns.linalg.matrix_power(a, -2),
    A((wellcond, (3, 3))))
row("linalg.multi_dot", "", lambda ns, a, b, c: ns.linalg.multi_dot([a, b, c]),
    A((normal, S), (normal, (3, 4)), (normal, (4,))))
row("linalg.vector_norm", "", lambda ns, x: ns.linalg.vector_norm(x, axis=1, ord=3),
    A((nonzero, S)))
row("linalg.matrix_norm", "", lambda ns, x: ns.linalg.matrix_norm(x), A((normal, (2, 3, 3))))
row("vecdot", "", lambda ns, x, y: ns.vecdot(x, y), A((normal, S), (normal, (3,))))
row("matvec", "", lambda ns, x, y: ns.matvec(x, y), A((normal, S), (normal, (3,))))
row("vecmat", "", lambda ns, x, y: ns.vecmat(x, y), A((normal, (2,)), (normal, S)))
row("inner", "", lambda ns, x, y: ns.inner(x, y), A((normal, S), (normal, (4, 3))))
row("vdot", "", lambda ns, x, y: ns.vdot(x, y), A((normal, S), (normal, S)))
row("average", "weights", lambda ns, x, w: ns.average(x, axis=1, weights=w),
    A((normal, S), (pos, (3,))))
row("ptp", "", lambda ns, x: ns.ptp(x, axis=0), A((distinct, S)))
row("cumulative_sum", "", lambda ns, x: ns.cumulative_sum(x, axis=1, include_initial=True),
    A((normal, S)))
row("cumulative_prod", "", lambda ns, x: ns.cumulative_prod(x, axis=0), A((nonzero, S)))
row("take_along_axis", "", lambda ns, x: ns.take_along_axis(x, np.array([[2, 0], [1, 1]]), axis=1),
    A((normal, S)))
row("append", "", lambda ns, x, y: ns.append(x, y, axis=0), A((normal, S), (normal, (1, 3))))
row("array_split", "", lambda ns, x: ns.array_split(x, 2, axis=1), A((normal, S)))
row("column_stack", "", lambda ns, x, y: ns.column_stack([x, y]), A((normal, (3,)), (normal, (3, 2))))
row("dstack", "", lambda ns, x, y: ns.dstack([x, y]), A((normal, S), (normal, S)))
row("broadcast_arrays", "", lambda ns, x, y: ns.broadcast_arrays(x, y), A((normal, (3, 1)), (normal, (4,))))
row("astype", "float32-to-float64", lambda ns, x: ns.astype(x, np.float64) * 2.0,
    lambda rng: (rng.standard_normal(S).astype(np.float32),), same_dtype=False)
row("multiply", "float32-times-float64", lambda ns, x, y: x * y,
    lambda rng: (rng.standard_normal(S).astype(np.float32), rng.standard_normal((3,))),
    same_dtype=False)

# complex intermediates (real inputs and outputs: the table's checks are of
# real functions); tests/test_complex.py checks complex inputs against JAX
row("real", "", lambda ns, x, y: ns.real(ns.exp(x + 1j * y)), A((normal, S), (normal, S)))
row("imag", "", lambda ns, x, y: ns.imag(ns.sin(x + 1j * y) * (y - 0.5j)),
    A((normal, S), (normal, S)))
row("conj", "", lambda ns, x, y: ns.real(ns.conj(x + 1j * y) * (y + 2j * x)),
    A((normal, S), (normal, S)))
row("conjugate", "", lambda ns, x, y: ns.imag(ns.conjugate(ns.exp(x + 1j * y))),
    A((normal, S), (normal, S)))
row("angle", "", lambda ns, x, y: ns.angle(x + 1j * y), A((nonzero, S), (nonzero, S)))
row("angle", "deg", lambda ns, x, y: ns.angle(x * (1 + 0.5j) + y, deg=True),
    A((nonzero, S), (nonzero, S)))
row("abs", "complex", lambda ns, x, y: ns.abs(x + 1j * y), A((nonzero, S), (nonzero, S)))
row("real", "of-real", lambda ns, x: ns.real(x) * 2.0, A((normal, S)))

# more elementwise functions (tracegrad/numpy/_math.py)
for _name, _dom in [("acos", unit), ("asin", unit), ("atan", normal), ("acosh", gt1),
                    ("asinh", normal), ("atanh", unit), ("deg2rad", wide), ("rad2deg", normal),
                    ("degrees", normal), ("radians", wide), ("sinc", wide), ("fabs", nonzero)]:
    row(_name, "", lambda ns, x, _n=_name: getattr(ns, _n)(x), A((_dom, S)))
row("sinc", "near-zero", lambda ns, x: ns.sinc(x * 1e-4), A((normal, S)), tol=1e-5)
row("sinc", "0d", lambda ns, x: ns.sinc(x), A((unit, ())), extra=False)
for _name, _dx, _dy in [("atan2", nonzero, nonzero), ("fmod", mod_x, mod_y),
                        ("copysign", nonzero, nonzero), ("logaddexp2", wide, wide),
                        ("pow", pos, exponent)]:
    for _sx, _sy in [((2, 3), (2, 3)), ((3, 1), (1, 4))]:
        row(_name, "" if _sx == _sy else "broadcast",
            lambda ns, x, y, _n=_name: getattr(ns, _n)(x, y), A((_dx, _sx), (_dy, _sy)),
            extra=_sx == _sy)
row("fmod", "negative-divisor", lambda ns, x, y: ns.fmod(x, -y), A((mod_x, S), (mod_y, S)))
row("float_power", "", lambda ns, x, y: ns.float_power(x, y), A((pos, S), (exponent, S)),
    same_dtype=False)
_H1 = np.array([[-1.0, 0.0, 2.0], [0.0, 0.5, -0.0]])
row("heaviside", "", lambda ns, x: ns.heaviside(_H1.astype(x.dtype), x), A((normal, S)))
row("nan_to_num", "finite", lambda ns, x: ns.nan_to_num(x * 2.0), A((normal, S)))
row("real_if_close", "", lambda ns, x: ns.real_if_close(x) * x, A((normal, S)))
_E = np.array([[1, -2, 0], [3, 0, -1]])
row("ldexp", "", lambda ns, x: ns.ldexp(x, _E), A((normal, S)))
row("frexp", "mantissa", lambda ns, x: ns.frexp(x)[0], A((distinct_abs, S)))
row("concat", "", lambda ns, x, y: ns.concat([x, y], axis=1), A((normal, S), (normal, (2, 1))))
row("permute_dims", "", lambda ns, x: ns.permute_dims(x, (2, 0, 1)), A((normal, S3)))
row("matrix_transpose", "", lambda ns, x: ns.matrix_transpose(x), A((normal, S3)))

# NaN-ignoring reductions (tracegrad/numpy/_nan.py): NaNs added through a mask
_NANS = np.array([[0.0, np.nan, 0.0, 0.0], [0.0, 0.0, 0.0, np.nan], [np.nan, 0.0, 0.0, 0.0]])


def _with_nans(x):
    return x + _NANS.astype(x.dtype)


for _variant, _kw in [("", {}), ("axis=1", {"axis": 1}), ("axis=0-keepdims", {"axis": 0, "keepdims": True})]:
    for _name, _dom in [("nansum", normal), ("nanprod", nonzero), ("nanmean", normal),
                        ("nanvar", normal), ("nanstd", normal), ("nanmax", distinct),
                        ("nanmin", distinct)]:
        row(_name, _variant, lambda ns, x, _n=_name, _kw=_kw: getattr(ns, _n)(_with_nans(x), **_kw),
            A((_dom, (3, 4))))
row("nanvar", "ddof=1", lambda ns, x: ns.nanvar(_with_nans(x), axis=1, ddof=1), A((normal, (3, 4))))
row("nanstd", "ddof=1", lambda ns, x: ns.nanstd(_with_nans(x), ddof=1), A((normal, (3, 4))))
row("nancumsum", "", lambda ns, x: ns.nancumsum(_with_nans(x), axis=1), A((normal, (3, 4))))
row("nancumprod", "", lambda ns, x: ns.nancumprod(_with_nans(x), axis=0), A((nonzero, (3, 4))))

# quantiles and statistics (tracegrad/numpy/_statistics.py)
for _m in ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull",
           "median_unbiased", "normal_unbiased", "interpolated_inverted_cdf"]:
    row("quantile", _m, lambda ns, x, _m=_m: ns.quantile(x, [0.1, 0.35, 0.9], axis=1, method=_m),
        A((distinct, (3, 5))))
row("quantile", "axis=None-keepdims", lambda ns, x: ns.quantile(x, 0.3, keepdims=True), A((distinct, S)))
row("percentile", "", lambda ns, x: ns.percentile(x, [20.0, 75.0], axis=0), A((distinct, (5, 3))))
row("median", "even", lambda ns, x: ns.median(x, axis=1), A((distinct, (3, 4))))
row("median", "odd", lambda ns, x: ns.median(x), A((distinct, (5,))))
row("nanquantile", "", lambda ns, x: ns.nanquantile(_with_nans(x), [0.2, 0.6], axis=1),
    A((distinct, (3, 4))))
row("nanpercentile", "", lambda ns, x: ns.nanpercentile(_with_nans(x), 40.0, axis=0), A((distinct, (3, 4))))
row("nanmedian", "", lambda ns, x: ns.nanmedian(_with_nans(x), axis=1), A((distinct, (3, 4))))
row("cov", "", lambda ns, x: ns.cov(x), A((normal, (3, 5))), same_dtype=False)
row("cov", "rowvar=False-bias", lambda ns, x: ns.cov(x, rowvar=False, bias=True), A((normal, (5, 2))), same_dtype=False)
row("cov", "y", lambda ns, x, y: ns.cov(x, y), A((normal, (5,)), (normal, (2, 5))), same_dtype=False)
_FW = np.array([1, 2, 1, 3, 1])
row("cov", "weights", lambda ns, x, w: ns.cov(x, fweights=_FW, aweights=w * w + 0.5, ddof=0),
    A((normal, (2, 5)), (normal, (5,))), same_dtype=False)
row("corrcoef", "", lambda ns, x: ns.corrcoef(x), A((normal, (3, 5))), same_dtype=False)
row("diff", "", lambda ns, x: ns.diff(x), A((normal, S3)))
row("diff", "n=2-axis=0", lambda ns, x: ns.diff(x, n=2, axis=0), A((normal, (4, 3))))
row("diff", "prepend-append", lambda ns, x, y: ns.diff(x, prepend=y, append=1.5), A((normal, S), (normal, (2, 1))),
    same_dtype=False)  # NumPy: the float64 scalar 1.5 promotes
row("ediff1d", "", lambda ns, x, y: ns.ediff1d(x, to_begin=y, to_end=[2.0]), A((normal, S), (normal, (2,))))
_COORDS = np.array([0.0, 0.5, 1.75, 2.0, 3.5])
row("gradient", "", lambda ns, x: ns.gradient(x), A((normal, (4, 5))))
row("gradient", "edge_order=2-spacing", lambda ns, x: ns.gradient(x, 0.5, axis=1, edge_order=2), A((normal, (4, 5))))
row("gradient", "coordinates", lambda ns, x, c: ns.gradient(x, c + _COORDS, axis=-1),
    A((normal, (2, 5)), (lambda r, s: 0.05 * r.standard_normal(s), (5,))))
row("gradient", "coordinates-edge_order=2", lambda ns, x, c: ns.gradient(x, c + _COORDS, edge_order=2),
    A((normal, (5,)), (lambda r, s: 0.05 * r.standard_normal(s), (5,))))
row("trapezoid", "", lambda ns, x: ns.trapezoid(x), A((normal, S3)))
row("trapezoid", "x", lambda ns, y, c: ns.trapezoid(y, c + _COORDS[:3], axis=1),
    A((normal, (2, 3)), (lambda r, s: 0.05 * r.standard_normal(s), (3,))), same_dtype=False)
row("trapezoid", "dx-axis=0", lambda ns, y: ns.trapezoid(y, dx=0.25, axis=0), A((normal, S)))
_BINS_X = np.array([0, 3, 3, 1, 5, 0])
row("bincount", "weights", lambda ns, w: ns.bincount(_BINS_X, weights=w, minlength=7), A((normal, (6,))))
_HIST_X = np.array([0.1, 0.9, 0.45, 0.3, 0.75, 0.6])
row("histogram", "weights", lambda ns, w: ns.histogram(_HIST_X, bins=3, weights=w)[0], A((normal, (6,))))
row("histogram", "density", lambda ns, w: ns.histogram(_HIST_X, bins=[0.0, 0.5, 1.0], weights=w * w + 1.0,
                                                    density=True)[0], A((normal, (6,))),
    same_dtype=False)  # NumPy divides by float64 bin widths

# index helpers (tracegrad/numpy/_index_tricks.py)
# np.r_ and np.c_ are objects, not functions: their NumPy spelling cannot dispatch
row("r_", "", lambda ns, x, y: ns.r_[x, 1.5, y, 0:2], A((normal, (3,)), (normal, (2,))),
    numpy_dispatch=False, same_dtype=False)  # the int64 slice promotes float32, as in NumPy
row("r_", "directive", lambda ns, x, y: ns.r_["0,2,0", x, y], A((normal, (3,)), (normal, (3,))),
    numpy_dispatch=False)
row("c_", "", lambda ns, x, y: ns.c_[x, y], A((normal, (3,)), (normal, (3, 2))), numpy_dispatch=False)
row("meshgrid", "xy", lambda ns, x, y: ns.meshgrid(x, y), A((normal, (3,)), (normal, (2,))))
row("meshgrid", "ij-sparse", lambda ns, x, y, z: ns.meshgrid(x, y, z, indexing="ij", sparse=True),
    A((normal, (3,)), (normal, (2,)), (normal, (2,))))
row("ix_", "values", lambda ns, x, y: ns.ix_(x, y), A((normal, (3,)), (normal, (2,))))
row("select", "", lambda ns, x, y: ns.select([x > 0.5, x < -0.5], [x * y, y], 1.5),
    A((clip_x, S), (normal, S)))
row("piecewise", "", lambda ns, x: ns.piecewise(x, [x < -1.0, x > 1.0], [lambda v: -v, lambda v: v * v,
                                                                       lambda v: ns.sin(v)]),
    A((clip_x, S)))
row("choose", "", lambda ns, x, y: ns.choose(np.array([[0, 1, 1], [1, 0, 2]]), [x, y, 2.0]),
    A((normal, S), (normal, (3,))))
row("compress", "", lambda ns, x: ns.compress([True, False, True], x, axis=1), A((normal, S)))
row("extract", "", lambda ns, x: ns.extract(_COND, x), A((normal, S)))

# partial sorting and sets (tracegrad/numpy/_sets.py); repeated values come from
# the same tracer, so they stay equal when check_grads perturbs the input
row("partition", "kth", lambda ns, x: ns.partition(x, 2, axis=1)[:, 2], A((distinct, (2, 5))))
row("partition", "kth-list-axis=None", lambda ns, x: ns.partition(x, [0, 4], axis=None)[np.array([0, 4])],
    A((distinct, (2, 3))))


def _dups(ns, x):
    return ns.concatenate([ns.ravel(x), ns.ravel(x)[np.array([4, 0, 4])]])


row("unique", "", lambda ns, x: ns.unique(_dups(ns, x)), A((distinct, S)))
row("unique", "axis=0", lambda ns, x: ns.unique(ns.concatenate([x, x[:1]]), axis=0), A((distinct, S)))
row("unique_values", "", lambda ns, x: ns.unique_values(_dups(ns, x)), A((distinct, S)))
row("unique_counts", "", lambda ns, x: ns.unique_counts(_dups(ns, x)).values, A((distinct, S)))
row("unique_inverse", "", lambda ns, x: ns.unique_inverse(_dups(ns, x)).values, A((distinct, S)))
row("unique_all", "", lambda ns, x: ns.unique_all(_dups(ns, x)).values, A((distinct, S)))
row("intersect1d", "", lambda ns, x: ns.intersect1d(x, x[1, :2]), A((distinct, S)))
row("union1d", "", lambda ns, x, y: ns.union1d(_dups(ns, x), y), A((distinct, S), (distinct_abs, (2,))))
row("setdiff1d", "", lambda ns, x: ns.setdiff1d(_dups(ns, x), x[0]), A((distinct, S)))
row("setxor1d", "", lambda ns, x, y: ns.setxor1d(x[0], ns.concatenate([x[0, :1], y])),
    A((distinct, S), (distinct_abs, (2,))))

# rearranging and applying (tracegrad/numpy/_arrange.py)
row("copy", "", lambda ns, x: ns.copy(x) * 2.0, A((normal, S)))
row("block", "", lambda ns, x, y: ns.block([[x, y], [y, x]]), A((normal, S), (normal, (2, 2))))
row("unstack", "", lambda ns, x: ns.unstack(x, axis=1), A((normal, S3)))
row("rot90", "", lambda ns, x: ns.rot90(x), A((normal, S)))
row("rot90", "k=-1-axes", lambda ns, x: ns.rot90(x, -1, axes=(2, 0)), A((normal, S3)))
row("rot90", "k=2", lambda ns, x: ns.rot90(x, 2), A((normal, S)))
row("rollaxis", "", lambda ns, x: ns.rollaxis(x, 2), A((normal, S3)))
row("hsplit", "", lambda ns, x: ns.hsplit(x, 3), A((normal, S)))
row("vsplit", "", lambda ns, x: ns.vsplit(x, [1]), A((normal, (3, 2))))
row("dsplit", "", lambda ns, x: ns.dsplit(x, 2), A((normal, S3)))
row("insert", "", lambda ns, x, y: ns.insert(x, [1, 1, 3], y, axis=1), A((normal, S), (normal, (3,))))
row("insert", "scalar-index", lambda ns, x, y: ns.insert(x, 2, y), A((normal, S), (normal, (2,))))
row("delete", "", lambda ns, x: ns.delete(x, [0, 2], axis=1), A((normal, S)))
row("resize", "", lambda ns, x: ns.resize(x, (4, 2)), A((normal, (5,))))
row("trim_zeros", "", lambda ns, x: ns.trim_zeros(ns.concatenate([np.zeros(2), x, np.zeros(1)])),
    A((nonzero, (3,))), same_dtype=False)  # the float64 zeros promote, as in NumPy
row("logspace", "", lambda ns, a, b: ns.logspace(a, b, 5), A((normal, ()), (normal, ())))
row("logspace", "base", lambda ns, a, b: ns.logspace(a, b, 4, endpoint=False, base=2.0),
    A((normal, ()), (normal, ())))
row("geomspace", "", lambda ns, a, b: ns.geomspace(a, b, 5), A((pos, ()), (gt1, ())), same_dtype=False)
row("apply_along_axis", "", lambda ns, x: ns.apply_along_axis(lambda r: r * ns.sum(r), 1, x),
    A((normal, S3)))
row("apply_over_axes", "", lambda ns, x: ns.apply_over_axes(ns.sum, x, [0, 2]), A((normal, S3)))
row("vectorize", "", lambda ns, x, y: ns.vectorize(lambda a, b: a * b + a)(x, y), A((normal, S), (normal, (3,))),
    numpy_dispatch=False, same_dtype=False)

# products, signals and polynomials (_signal.py, _polynomial.py)
row("kron", "", lambda ns, x, y: ns.kron(x, y), A((normal, S), (normal, (2, 2))))
row("kron", "1d-2d", lambda ns, x, y: ns.kron(x, y), A((normal, (3,)), (normal, (2, 2))))
row("cross", "", lambda ns, x, y: ns.cross(x, y), A((normal, (4, 3)), (normal, (3,))))
row("cross", "2-and-3", lambda ns, x, y: ns.cross(x, y, axis=0), A((normal, (2, 4)), (normal, (3, 4))))
for _mode in ("full", "same", "valid"):
    row("convolve", _mode, lambda ns, x, y, _m=_mode: ns.convolve(x, y, _m), A((normal, (5,)), (normal, (3,))))
    row("correlate", _mode, lambda ns, x, y, _m=_mode: ns.correlate(x, y, _m), A((normal, (3,)), (normal, (5,))))
_XP = np.array([-1.0, 0.0, 0.5, 2.0])
row("interp", "", lambda ns, x, fp: ns.interp(x, _XP, fp), A((sep_lo, S), (normal, (4,))), same_dtype=False)
row("interp", "traced-xp", lambda ns, x, d, fp: ns.interp(x, _XP + d, fp, left=-3.0, right=3.0),
    A((sep_lo, (5,)), (lambda r, s: 0.01 * r.standard_normal(s), (4,)), (normal, (4,))), same_dtype=False)
row("polyval", "", lambda ns, p, x: ns.polyval(p, x), A((normal, (4,)), (normal, S)))
row("polyder", "", lambda ns, p: ns.polyder(p, 2), A((normal, (5,))),
    same_dtype=False)  # NumPy multiplies by an int64 arange: float32 becomes float64
row("polyint", "", lambda ns, p: ns.polyint(p, 2, k=[1.0, 2.0]), A((normal, (4,))), same_dtype=False)
# NumPy's vander promotes with int: float32 becomes float64
row("vander", "", lambda ns, x: ns.vander(x, 4), A((normal, (3,))), same_dtype=False)
row("vander", "increasing", lambda ns, x: ns.vander(x, increasing=True), A((normal, (4,))),
    same_dtype=False)
_FIT_X = np.array([-1.0, -0.4, 0.1, 0.7, 1.3, 2.0])
row("polyfit", "", lambda ns, x, y: ns.polyfit(x + _FIT_X, y, 2),
    A((lambda r, s: 0.05 * r.standard_normal(s), (6,)), (normal, (6,))), same_dtype=False, tol=1e-5)
row("polyfit", "weights-2d", lambda ns, y, w: ns.polyfit(_FIT_X, y, 1, w=w * w + 0.5),
    A((normal, (6, 2)), (normal, (6,))), same_dtype=False, tol=1e-5)

# more (tracegrad/numpy/_math.py, _polynomial.py, _arrange.py)
row("divmod", "remainder", lambda ns, x, y: ns.divmod(x, y)[1], A((mod_x, S), (mod_y, S)))
row("modf", "fraction", lambda ns, x: ns.modf(x)[0], A((frac, S)))
_PHASE = np.array([0.0, 3.0, 6.5, 2.5, 3.5, 10.0])
row("unwrap", "", lambda ns, x: ns.unwrap(x + _PHASE), A((lambda r, s: 0.1 * r.standard_normal(s), (6,))),
    same_dtype=False)
row("polyadd", "", lambda ns, x, y: ns.polyadd(x, y), A((normal, (3,)), (normal, (5,))))
row("polysub", "", lambda ns, x, y: ns.polysub(x, y), A((normal, (4,)), (normal, (2,))))
row("polymul", "", lambda ns, x, y: ns.polymul(x, y), A((normal, (3,)), (normal, (4,))))
row("polydiv", "", lambda ns, u, v: ns.polydiv(u, v + np.array([3.0, 0.0, 0.0])), A((normal, (5,)), (normal, (3,))),
    same_dtype=False)  # the float64 shift promotes, as in NumPy
row("poly", "", lambda ns, z: ns.poly(z), A((normal, (4,))), same_dtype=False)
row("diagflat", "", lambda ns, x: ns.diagflat(x, -1), A((normal, S)))

_HIST_Y = np.array([0.5, 0.2, 0.8, 0.35, 0.1, 0.95])
row("histogram2d", "weights", lambda ns, w: ns.histogram2d(_HIST_X, _HIST_Y, bins=2, weights=w)[0],
    A((normal, (6,))))
row("histogramdd", "weights-density", lambda ns, w: ns.histogramdd(np.stack([_HIST_X, _HIST_Y], 1), bins=(2, 3),
                                                                  weights=w * w + 1.0, density=True)[0],
    A((normal, (6,))), same_dtype=False)  # NumPy divides by float64 bin volumes

# numpy.fft: real functions of real inputs (complex intermediates), every
# transform, n/s larger and smaller than the input, odd and even lengths,
# all three norms; tests/test_fft.py checks complex values against JAX
_Z = (normal, (3, 4))
row("fft.fft", "n=5-axis=0", lambda ns, x, y: ns.real(ns.fft.fft(x + 1j * y, n=5, axis=0) * (0.3 - 1.1j)),
    A(_Z, _Z))
row("fft.fft", "real-ortho-crop", lambda ns, x: ns.imag(ns.fft.fft(x, n=3, norm="ortho")), A(_Z))
row("fft.ifft", "n=3-forward", lambda ns, x, y: ns.real(ns.fft.ifft(x + 1j * y, n=3, norm="forward") * (1 + 2j)),
    A(_Z, _Z))
row("fft.fft2", "", lambda ns, x: ns.abs(ns.fft.fft2(x)) ** 2, A(_Z))
row("fft.ifft2", "s", lambda ns, x, y: ns.imag(ns.fft.ifft2(x + 1j * y, s=(4, 2))), A(_Z, _Z))
row("fft.fftn", "axes-ortho", lambda ns, x: ns.real(ns.fft.fftn(x * (1 + 0.5j), axes=(0, 2), norm="ortho")),
    A((normal, (2, 3, 4))))
row("fft.ifftn", "", lambda ns, x, y: ns.imag(ns.fft.ifftn(x + 1j * y)), A(_Z, _Z))
row("fft.rfft", "n=6", lambda ns, x: ns.abs(ns.fft.rfft(x, n=6)) ** 2, A(_Z))
row("fft.rfft", "odd-axis=0-forward", lambda ns, x: ns.imag(ns.fft.rfft(x, axis=0, norm="forward")),
    A((normal, (5, 2))))
row("fft.irfft", "filter", lambda ns, x, w: ns.fft.irfft(ns.fft.rfft(x) * w), A((normal, (2, 6)), (normal, (4,))))
row("fft.irfft", "even-complex", lambda ns, x, y: ns.fft.irfft(x + 1j * y), A(_Z, _Z))
row("fft.irfft", "n=7-ortho", lambda ns, x, y: ns.fft.irfft(x + 1j * y, n=7, norm="ortho"), A(_Z, _Z))
row("fft.rfft2", "", lambda ns, x: ns.real(ns.fft.rfft2(x)) + ns.imag(ns.fft.rfft2(x)) ** 2, A(_Z))
row("fft.irfft2", "s", lambda ns, x, y: ns.fft.irfft2(x + 1j * y, s=(2, 5)), A(_Z, _Z))
row("fft.rfftn", "s-axes", lambda ns, x: ns.imag(ns.fft.rfftn(x, s=(3, 4), axes=(1, 0))), A((normal, (2, 5))))
row("fft.irfftn", "ortho", lambda ns, x, y: ns.fft.irfftn(x + 1j * y, axes=(0, 1), norm="ortho"), A(_Z, _Z))
row("fft.hfft", "n=5", lambda ns, x, y: ns.fft.hfft(x + 1j * y, n=5), A(_Z, _Z))
row("fft.ihfft", "", lambda ns, x: ns.imag(ns.fft.ihfft(x, norm="ortho")) + ns.real(ns.fft.ihfft(x)), A(_Z))
row("fft.fftshift", "", lambda ns, x: ns.fft.fftshift(x), A((normal, (3, 4))))
row("fft.ifftshift", "axes", lambda ns, x: ns.fft.ifftshift(x, axes=0), A((normal, (5, 2))))
row("fft.fftfreq", "d", lambda ns, d: ns.fft.fftfreq(5, d), A((pos, ())), same_dtype=False)
row("fft.rfftfreq", "d", lambda ns, d: ns.fft.rfftfreq(6, d), A((pos, ())), same_dtype=False)

# the rest of issue 9's differentiable names: remainder (NumPy's alias of mod),
# and the functional forms of NumPy's in-place put_along_axis/place (NumPy's
# references copy, then write in place; their NumPy spelling cannot return a
# new array, so it is not dispatched)
row("remainder", "", lambda ns, x, y: ns.remainder(x, y), A((mod_x, S), (mod_y, S)))
row("remainder", "broadcast", lambda ns, x, y: ns.remainder(x, y), A((mod_x, (3, 1)), (mod_y, (1, 4))),
    extra=False)
_PAL = np.array([[2, 0], [1, 1]])


def _put_along_axis(ns, a, i, v, axis):
    if ns is NP:
        a = np.array(a)
        np.put_along_axis(a, i, v, axis)
        return a
    return ns.put_along_axis(a, i, v, axis, inplace=False)


def _place(ns, a, m, v):
    if ns is NP:
        a = np.array(a)
        np.place(a, m, v)
        return a
    return ns.place(a, m, v, inplace=False)


row("put_along_axis", "", lambda ns, a, v: _put_along_axis(ns, a, _PAL, v, 1), A((normal, S), (normal, (2, 2))),
    numpy_dispatch=False)
row("put_along_axis", "broadcast-values-axis=0",
    lambda ns, a, v: _put_along_axis(ns, a, np.array([[1, 0, 1]]), v, 0), A((normal, S), (normal, (1, 1))),
    numpy_dispatch=False)
row("place", "", lambda ns, a, v: _place(ns, a, _COND, v), A((normal, S), (normal, (3,))), numpy_dispatch=False)
row("place", "cyclic-values", lambda ns, a, v: _place(ns, a, _COND, v), A((normal, S), (normal, (2,))),
    numpy_dispatch=False)


def _putmask(ns, a, m, v):
    if ns is NP:
        a = np.array(a)
        np.putmask(a, m, v)
        return a
    return ns.putmask(a, m, v, inplace=False)


row("putmask", "cyclic-values", lambda ns, a, v: _putmask(ns, a, _COND, v), A((normal, S), (normal, (4,))),
    numpy_dispatch=False)
row("putmask", "traced-mask-flat", lambda ns, a, v: _putmask(ns, a, ns.ravel(a) > 0, v),
    A((nonzero, S), (normal, ())), numpy_dispatch=False)


def _frompyfunc(ns, func, nin, *args):
    out = ns.frompyfunc(func, nin, 1)(*args)
    # NumPy's result is an object array: its reference values as float64
    return out.astype(np.float64) if ns is NP else out


row("frompyfunc", "", lambda ns, x, y: _frompyfunc(ns, lambda a, b: a * b + a * a, 2, x, y),
    A((normal, S), (normal, (3,))), numpy_dispatch=False, same_dtype=False)
row("frompyfunc", "unary-sin", lambda ns, x: _frompyfunc(ns, lambda a: ns.sin(a) * a, 1, x),
    A((normal, S)), numpy_dispatch=False, same_dtype=False)

# roots: simple roots only (at a repeated root the derivative is infinite); the
# order is LAPACK's, so the rows sort real parts or use symmetric functions
_ROOTS_REAL = np.poly([1.0, 2.5, 4.0])  # distinct real roots
_ROOTS_PAIR = np.poly([1.0 + 1.0j, 1.0 - 1.0j, -2.0]).real  # a complex pair and -2
row("roots", "real-distinct", lambda ns, p: ns.sort(ns.real(ns.roots(p))),
    A((lambda r, s: _ROOTS_REAL + 0.05 * r.standard_normal(s), (4,))), tol=1e-4, same_dtype=False)
row("roots", "complex-pair", lambda ns, p: (lambda z: ns.sum(ns.real(z) ** 3) + ns.sum(ns.imag(z) ** 4))(ns.roots(p)),
    A((lambda r, s: _ROOTS_PAIR + 0.05 * r.standard_normal(s), (4,))), tol=1e-4, same_dtype=False)
row("roots", "leading-zero", lambda ns, p: ns.sort(ns.real(ns.roots(ns.concatenate([np.zeros(2), p])))),
    A((lambda r, s: _ROOTS_REAL + 0.05 * r.standard_normal(s), (4,))), tol=1e-4, same_dtype=False)
row("roots", "trailing-zero-coefficient",
    # the last coefficient is 0 (a root at 0) and differentiated: the root moves
    lambda ns, p, c: ns.sort(ns.real(ns.roots(ns.concatenate([p, c])))),
    A((lambda r, s: _ROOTS_REAL + 0.05 * r.standard_normal(s), (4,)), (lambda r, s: np.zeros(s), (1,))),
    tol=1e-4, same_dtype=False)

IDS = [r.id for r in TABLE]
assert len(set(IDS)) == len(IDS), "duplicate row ids"


# --------------------------------------------------------------------------
# helpers


def cast(tree, dtype):
    return tree_map(lambda a: np.asarray(a).astype(dtype), tree)


def _transposed_view(a):
    # same values, axes reversed in memory: a non-contiguous view
    return np.ascontiguousarray(np.transpose(a)).transpose()


def _strided_view(a):
    # same values, every other element of a buffer twice as long along the
    # first axis of length > 1
    axis = next(i for i, n in enumerate(a.shape) if n > 1)
    shape = list(a.shape)
    shape[axis] *= 2
    base = np.zeros(shape, a.dtype)
    idx = (slice(None),) * axis + (slice(None, None, 2),)
    base[idx] = a
    return base[idx]


def noncontiguous(args):
    """Same values, as views that are not C-contiguous.

    Arrays of rank >= 2 become transposed views (every other one: strided
    views), others strided views; arrays of one element are kept.
    """
    out = []
    for k, a in enumerate(args):
        v = a
        if a.size > 1:
            if a.ndim >= 2 and k % 2 == 0:
                v = _transposed_view(a)
            if v.flags.c_contiguous:
                v = _strided_view(a)
            assert not v.flags.c_contiguous
        np.testing.assert_array_equal(v, a)
        out.append(v)
    return tuple(out)


def _has_noncontiguous_variant(r):
    return r.extra and any(np.size(a) > 1 for a in r.make_args())


# --------------------------------------------------------------------------
# the checks


@pytest.mark.parametrize("r", TABLE, ids=IDS)
def test_check_grads_float64(r):
    args = r.make_args()
    check_grads(r.fn, args, order=2, modes=("fwd", "rev"), atol=r.tol, rtol=r.tol)


NONCONTIG = [r for r in TABLE if _has_noncontiguous_variant(r)]


@pytest.mark.parametrize("r", NONCONTIG, ids=[r.id for r in NONCONTIG])
def test_check_grads_noncontiguous(r):
    args = noncontiguous(r.make_args())
    assert any(not a.flags.c_contiguous for a in args)
    np.testing.assert_allclose(
        np.concatenate([np.ravel(v) for v in tree_leaves(r.fn(*args))]),
        np.concatenate([np.ravel(v) for v in tree_leaves(r.reference(*r.make_args()))]),
        rtol=1e-10, atol=1e-12,
    )
    check_grads(r.fn, args, order=1, modes=("fwd", "rev"), atol=r.tol, rtol=r.tol)


@pytest.mark.parametrize("r", TABLE, ids=IDS)
def test_check_grads_float32(r):
    args = cast(r.make_args(), np.float32)
    out = r.fn(*args)
    for leaf in tree_leaves(out):
        assert np.asarray(leaf).dtype == np.float32 or not r.same_dtype, (
            f"{r.id}: float32 inputs gave a {np.asarray(leaf).dtype} output"
        )
    _, vjp_fun = tg.vjp(r.fn, *args)
    for g, a in zip(vjp_fun(tree_map(np.ones_like, out)), args):
        assert g.dtype == np.float32 and g.shape == a.shape
    check_grads(r.fn, args, order=1, modes=("fwd", "rev"), atol=r.tol32, rtol=r.tol32,
                eps=r.eps32)


@pytest.mark.parametrize("r", TABLE, ids=IDS)
def test_values_match_numpy(r):
    args = r.make_args()
    got = tree_leaves(r.fn(*args))
    want = tree_leaves(r.reference(*args))
    assert len(got) == len(want), f"{r.id}: {len(got)} outputs, NumPy gives {len(want)}"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{r.id}: shape {g.shape}, NumPy gives {w.shape}"
        assert g.dtype == w.dtype, f"{r.id}: dtype {g.dtype}, NumPy gives {w.dtype}"
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=r.id)


# --------------------------------------------------------------------------
# completeness: every name of the issue exists, every differentiable one has rows

ISSUE_NAMESPACE = {
    "tracegrad.numpy": """
        array asarray zeros ones full zeros_like ones_like full_like eye arange linspace
        negative abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt cbrt square
        reciprocal sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh
        floor ceil round clip add subtract multiply divide true_divide power maximum minimum
        arctan2 hypot mod logaddexp where equal not_equal less less_equal greater
        greater_equal logical_and logical_or logical_not logical_xor isnan isfinite
        sum mean prod max amax min amin var std cumsum cumprod argmax argmin all any
        reshape ravel transpose swapaxes moveaxis expand_dims squeeze broadcast_to
        concatenate stack hstack vstack split tile repeat flip roll pad diag diagonal trace
        triu tril take sort argsort outer dot matmul tensordot einsum
    """,
    "tracegrad.numpy.linalg": """norm inv solve det slogdet cholesky eigh pinv lstsq eig eigvals
                                  cond tensorsolve tensorinv cross trace outer diagonal""",
    "tracegrad.nn": "sigmoid relu softplus log_sigmoid softmax log_softmax logsumexp",
    "tracegrad": """grad value_and_grad vjp jvp jacfwd jacrev jacobian hessian
                    stop_gradient tree_util test_util""",
    "tracegrad.tree_util": "tree_flatten tree_unflatten tree_map tree_leaves register_pytree_node",
    "tracegrad.test_util": "check_grads",
}

# functions with no derivative (constant or integer/bool results)
NONDIFFERENTIABLE = set("""
    zeros ones zeros_like ones_like eye arange equal not_equal less less_equal greater
    greater_equal logical_and logical_or logical_not logical_xor isnan isfinite
    argmax argmin all any argsort
""".split())

_PREFIX = {"tracegrad.numpy": "", "tracegrad.numpy.linalg": "linalg.", "tracegrad.nn": "nn."}


def test_every_issue_function_exists():
    missing = []
    for modname, names in ISSUE_NAMESPACE.items():
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            missing.append(f"{modname} (the whole module)")
            continue
        missing += [f"{modname}.{n}" for n in names.split() if not callable(getattr(mod, n, None))
                    and not (n in ("tree_util", "test_util") and hasattr(mod, n))]
    assert not missing, f"{len(missing)} functions named in the issue are missing: {missing}"


def test_table_covers_every_differentiable_function():
    covered = {r.name for r in TABLE}
    wanted = {
        _PREFIX[mod] + n
        for mod, names in ISSUE_NAMESPACE.items()
        if mod in _PREFIX
        for n in names.split()
        if n not in NONDIFFERENTIABLE
    } | {"getitem", "at.set", "at.add"}
    assert not wanted - covered, f"no table rows for {sorted(wanted - covered)}"


# issue 9's lists ("the rest of NumPy"), names relative to tracegrad.numpy
ISSUE9_NAMES = {
    "elementwise": """acos asin atan atan2 acosh asinh atanh pow concat permute_dims matrix_transpose
        deg2rad rad2deg degrees radians sinc fabs fmod remainder copysign float_power logaddexp2
        heaviside nan_to_num real_if_close signbit ldexp frexp real imag conj conjugate angle""",
    "reductions and statistics": """nansum nanmean nanmax nanmin nanstd nanvar nanprod nanargmax
        nanargmin nancumsum median nanmedian quantile percentile cov corrcoef diff ediff1d gradient
        trapezoid count_nonzero histogram bincount digitize""",
    "shape and joining": """copy block unstack rot90 rollaxis hsplit vsplit dsplit insert delete
        resize trim_zeros""",
    "indexing helpers": """r_ c_ ix_ s_ index_exp mgrid ogrid meshgrid indices tril_indices
        triu_indices tril_indices_from triu_indices_from diag_indices unravel_index
        ravel_multi_index select piecewise choose compress extract put_along_axis place putmask""",
    "sorting and searching": """searchsorted partition argpartition lexsort unique unique_all
        unique_counts unique_inverse unique_values isin intersect1d union1d setdiff1d setxor1d""",
    "products and signals": """kron cross convolve correlate polyval polyfit polyder polyint roots
        interp hanning hamming blackman bartlett kaiser""",
    "comparisons and creation": "isclose allclose array_equal array_equiv logspace geomspace tri vander",
    "functional helpers": "vectorize apply_along_axis apply_over_axes frompyfunc",
    "fft": " ".join("fft." + n for n in """fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2
        rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift""".split()),
    "linalg": " ".join("linalg." + n for n in """pinv lstsq eig eigvals cond matrix_rank tensorsolve
        tensorinv cross trace outer diagonal matrix_norm vector_norm svd qr""".split()),
}


def _issue9_names():
    return [n for names in ISSUE9_NAMES.values() for n in names.split()]


def _tnp_lookup(name):
    obj = importlib.import_module("tracegrad.numpy")
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def test_every_issue9_function_exists():
    missing = [n for n in _issue9_names() if _tnp_lookup(n) is None]
    assert not missing, f"issue 9 names missing from tracegrad.numpy: {missing}"


def test_every_issue9_function_has_rows_or_a_value_test():
    """Differentiable names have check_grads rows (which also compare values with
    NumPy); names with integer, bool or constant results have a value test."""
    covered = ({r.name for r in TABLE} | {n for n, _ in NONDIFF_CALLS}
               | {n for n, _ in CONSTANT_CALLS})
    lacking = [n for n in _issue9_names() if n not in covered]
    assert not lacking, f"issue 9 names with neither table rows nor a value test: {lacking}"


# non-differentiable functions: NumPy's values, and no derivative flows (or breaks)
_X = np.array([[0.5, -1.0, 2.0], [np.nan, 3.0, -0.5]])
_Y = np.array([[0.5, 1.0, -2.0], [0.0, 3.5, -0.5]])
NONDIFF_CALLS = [
    ("zeros_like", lambda ns, x, y: ns.zeros_like(x)),
    ("ones_like", lambda ns, x, y: ns.ones_like(x)),
    ("equal", lambda ns, x, y: ns.equal(x, y)),
    ("not_equal", lambda ns, x, y: ns.not_equal(x, y)),
    ("less", lambda ns, x, y: ns.less(x, y)),
    ("less_equal", lambda ns, x, y: ns.less_equal(x, y)),
    ("greater", lambda ns, x, y: ns.greater(x, y)),
    ("greater_equal", lambda ns, x, y: ns.greater_equal(x, y)),
    ("logical_and", lambda ns, x, y: ns.logical_and(x > 0, y > 0)),
    ("logical_or", lambda ns, x, y: ns.logical_or(x > 0, y > 0)),
    ("logical_xor", lambda ns, x, y: ns.logical_xor(x > 0, y > 0)),
    ("logical_not", lambda ns, x, y: ns.logical_not(x > 0)),
    ("isnan", lambda ns, x, y: ns.isnan(x)),
    ("isfinite", lambda ns, x, y: ns.isfinite(x)),
    ("argmax", lambda ns, x, y: ns.argmax(y, axis=1)),
    ("argmin", lambda ns, x, y: ns.argmin(y)),
    ("all", lambda ns, x, y: ns.all(y > -1, axis=0)),
    ("any", lambda ns, x, y: ns.any(y > 3)),
    ("argsort", lambda ns, x, y: ns.argsort(y, axis=1)),
]


_SORTED = np.array([-1.0, 0.5, 0.5, 2.0, 3.0])
_IDX = np.array([[0, 1, 1], [2, 0, 2]])
NONDIFF_CALLS += [
    # issue 9's functions with integer or bool results
    ("signbit", lambda ns, x, y: ns.signbit(ns.concatenate([x, -y, y * 0.0, -(y * 0.0)]))),
    ("nanargmax", lambda ns, x, y: ns.nanargmax(x, axis=1)),
    ("nanargmin", lambda ns, x, y: ns.nanargmin(x)),
    ("count_nonzero", lambda ns, x, y: ns.count_nonzero(y + 0.5, axis=0)),
    ("digitize", lambda ns, x, y: ns.digitize(y, _SORTED[::2], right=True)),
    ("searchsorted", lambda ns, x, y: ns.searchsorted(_SORTED, y, side="right")),
    ("argpartition", lambda ns, x, y: ns.argpartition(y[1], 1)[:1]),  # the k-th position is unique
    ("lexsort", lambda ns, x, y: ns.lexsort((y[0], x[0] > 0))),
    ("isin", lambda ns, x, y: ns.isin(x, y)),
    ("isclose", lambda ns, x, y: ns.isclose(x, y, equal_nan=True)),
    ("allclose", lambda ns, x, y: ns.allclose(y, y + 1e-9)),
    ("array_equal", lambda ns, x, y: ns.array_equal(x, y)),
    ("array_equiv", lambda ns, x, y: ns.array_equiv(y[0], y[[0, 0]])),
    ("linalg.matrix_rank", lambda ns, x, y: ns.linalg.matrix_rank(ns.stack([y[0], y[0] * 2.0, y[1]]))),
    ("tril_indices_from", lambda ns, x, y: ns.tril_indices_from(x, 1)),
    ("triu_indices_from", lambda ns, x, y: ns.triu_indices_from(y, -1)),
    ("unravel_index", lambda ns, x, y: ns.unravel_index(ns.argmax(y, axis=1), (2, 2))),
    ("ravel_multi_index", lambda ns, x, y: ns.ravel_multi_index((_IDX[0], ns.argmin(y, axis=0)), (3, 4))),
]


@pytest.mark.parametrize("call", [c for _, c in NONDIFF_CALLS], ids=[n for n, _ in NONDIFF_CALLS])
def test_nondifferentiable_functions(call):
    want = tree_leaves(call(NP, _X, _Y))
    got = tree_leaves(call(TNP, _X, _Y))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert type(g) is type(w) or np.asarray(g).dtype == np.asarray(w).dtype
    # under forward and reverse mode: same values, no derivative (JAX's float0 for
    # integer and bool results, zeros for a float result that is locally constant)
    out, t = tg.jvp(lambda x, y: call(TNP, x, y), (_X, _Y), (np.ones_like(_X), np.ones_like(_Y)))
    for o, ti, w in zip(tree_leaves(out), tree_leaves(t), want):
        np.testing.assert_array_equal(o, w)
        if np.asarray(w).dtype.kind in "biu":
            assert np.asarray(ti).dtype == tg.float0 and np.shape(ti) == np.shape(w)
        else:
            assert not np.any(np.asarray(ti, dtype=float))
    g = tg.grad(lambda x: sum(TNP.sum(leaf * 1.0) for leaf in tree_leaves(call(TNP, x, _Y))))(_X)
    np.testing.assert_array_equal(g, np.zeros_like(_X))


# issue 9's constant-valued names (no array input: index objects, grids,
# index sets and windows of a given size): NumPy's values and dtypes
CONSTANT_CALLS = [
    ("s_", lambda ns: ns.s_[1:5:2, ::-1]),
    ("index_exp", lambda ns: ns.index_exp[2, 1:3]),
    ("mgrid", lambda ns: ns.mgrid[0:3, -1:1:5j]),
    ("ogrid", lambda ns: ns.ogrid[0:2, 0:1:3j]),
    ("indices", lambda ns: ns.indices((2, 3))),
    ("indices", lambda ns: ns.indices((2, 3), sparse=True)),
    ("tril_indices", lambda ns: ns.tril_indices(3, -1, 4)),
    ("triu_indices", lambda ns: ns.triu_indices(4, 1)),
    ("diag_indices", lambda ns: ns.diag_indices(3, 2)),
    ("hanning", lambda ns: ns.hanning(7)),
    ("hamming", lambda ns: ns.hamming(6)),
    ("blackman", lambda ns: ns.blackman(5)),
    ("bartlett", lambda ns: ns.bartlett(8)),
    ("kaiser", lambda ns: ns.kaiser(6, 2.5)),
    ("tri", lambda ns: ns.tri(3, 4, -1)),
    ("tri", lambda ns: ns.tri(2, dtype=np.int32)),
]


@pytest.mark.parametrize("call", [c for _, c in CONSTANT_CALLS], ids=[n for n, _ in CONSTANT_CALLS])
def test_constant_functions_match_numpy(call):
    want, got = call(NP), call(TNP)
    # (tracegrad.numpy returns its Array subclass where NumPy returns an ndarray)
    assert type(got) is type(want) or (type(want) is np.ndarray and type(got) is tg.Array)
    if isinstance(want, (slice, tuple)) and not any(isinstance(w, np.ndarray) for w in want):
        assert got == want
        return
    want, got = tree_leaves(want), tree_leaves(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_creation_functions_match_numpy():
    for call in [
        lambda ns: ns.zeros((2, 3)), lambda ns: ns.ones(4, dtype=np.float32),
        lambda ns: ns.full((2, 2), 3.5), lambda ns: ns.eye(3, k=1), lambda ns: ns.arange(1, 7, 2),
        lambda ns: ns.arange(5.0), lambda ns: ns.linspace(0.0, 1.0, 7),
        lambda ns: ns.array([[1, 2], [3, 4]]), lambda ns: ns.asarray([1.5, 2.5], dtype=np.float32),
        lambda ns: ns.full_like(np.ones((2, 2), np.float32), 2.0),
    ]:
        got, want = call(TNP), call(NP)
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == want.dtype
