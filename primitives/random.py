"""Primitives of keyed random numbers: the Threefry-2x32 block cipher, and
the two integer/float helpers the samplers of :mod:`tracegrad.random` need.

``threefry2x32(k1, k2, x1, x2)`` encrypts the counter pairs ``(x1, x2)``
under the key ``(k1, k2)`` (all ``uint32``, broadcast together) with 20
rounds of Threefry-2x32 (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3", SC 2011), the hash behind JAX's default PRNG.  None of the
first two has a derivative (their inputs are bit patterns); ``erf_inv`` has
one, for the samplers' real parameters (``truncated_normal``'s bounds).
"""
import math

import numpy as np

from . import ops
from .batching import batch_size, bdim_to_front, defbatch_elementwise
from .core import Primitive, ShapedArray, def_nondifferentiable, defjvp, defvjp, dtype_of, shape_of
from .kernels import call_ufunc
from .special import PARALLEL_MIN_SIZE as _SPECIAL_PARALLEL_MIN_SIZE

# (the keyed samplers random_gamma, random_gamma_grad and random_poisson are used
# by tracegrad.random only, so they are not re-exported by ops)
__all__ = ["threefry2x32", "uint_xor", "erf_inv"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _check_u32(name, avals):
    bad = [str(a.dtype) for a in avals if np.dtype(a.dtype) != np.uint32]
    if bad:
        raise TypeError(f"{name} needs uint32 operands, got {bad}: convert with "
                        "convert_element_type(x, np.uint32) first")


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)


@threefry2x32_p.def_impl
def _threefry2x32_impl(k1, k2, x1, x2):
    k1, k2, x1, x2 = np.broadcast_arrays(*(np.asarray(a, np.uint32) for a in (k1, k2, x1, x2)))
    shape = x1.shape
    k1, k2, x1, x2 = (np.array(a, np.uint32).reshape(-1) for a in (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    x1 = x1 + ks[0]
    x2 = x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 += x2
            x2 = (x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r))
            x2 ^= x1
        x1 += ks[(i + 1) % 3]
        x2 += ks[(i + 2) % 3] + np.uint32(i + 1)
    return [x1.reshape(shape), x2.reshape(shape)]


@threefry2x32_p.def_abstract_eval
def _threefry2x32_aval(k1, k2, x1, x2):
    _check_u32("threefry2x32", (k1, k2, x1, x2))
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in (k1, k2, x1, x2)))
    return [ShapedArray(shape, np.uint32), ShapedArray(shape, np.uint32)]


def_nondifferentiable(threefry2x32_p)


def threefry2x32(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds) of the counters ``(x1, x2)`` under the key
    ``(k1, k2)``.

    Parameters
    ----------
    k1, k2, x1, x2 : uint32 arrays
        Broadcast together (NumPy's rules).

    Returns
    -------
    list of two uint32 arrays
        The two output words, of the broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not ``uint32``.
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)


uint_xor_p = Primitive("uint_xor")


@uint_xor_p.def_impl
def _xor_impl(x, y):
    return np.bitwise_xor(x, y)


@uint_xor_p.def_abstract_eval
def _xor_aval(x, y):
    if np.dtype(x.dtype) != np.dtype(y.dtype) or np.dtype(x.dtype).kind not in "iub":
        raise TypeError(f"uint_xor needs two operands of one integer dtype, got "
                        f"{x.dtype} and {y.dtype}")
    return ShapedArray(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)), x.dtype)


def_nondifferentiable(uint_xor_p)


def uint_xor(x, y):
    """Elementwise exclusive or of two integer arrays of one dtype (broadcast)."""
    return uint_xor_p.bind(x, y)


erf_inv_p = Primitive("erf_inv")


@erf_inv_p.def_impl
def _erf_inv_impl(x):
    try:
        import scipy.special  # lazy: scipy is heavy, optional, and only the samplers need it
    except ImportError:  # SciPy is not a run-time dependency: NumPy's own version
        return erf_inv_numpy(x)
    x = np.asarray(x)
    # large calls over threads, as special functions' (SciPy's ufuncs release the GIL)
    return np.asarray(call_ufunc(scipy.special.erfinv, (x,), _SPECIAL_PARALLEL_MIN_SIZE),
                      dtype=x.dtype)


_ERFC = np.frompyfunc(math.erfc, 1, 1)
_ERF = np.frompyfunc(math.erf, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# M. Giles' single-precision erfinv(x) = x * P(u) (highest power first):
# u = w - 2.5 for w = -log(1 - x**2) < 5, else u = sqrt(w) - 3
# (also the starting point of special's ndtri kernel)
GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
              0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
# Newton steps from the float32-accurate start (quadratic: two would do; two
# more cover the extreme tail, where the start is made for float32's range)
_NEWTON_STEPS = 4


def erf_inv_numpy(x):
    """The inverse error function in NumPy (used when SciPy is absent).

    M. Giles' single-precision approximation ("Approximating the erfinv
    function", GPU Computing Gems, 2010: two polynomials in
    ``w = -log(1 - x**2)``) refined by Newton steps on ``erf(y) = |x|``
    in float64, on ``log(erfc(y)) = log(1 - |x|)`` for ``|x| >= 0.5``
    (``1 - |x|`` is exact there, and the logarithm makes the tail nearly
    linear, so the tails keep full relative accuracy).  Within a few ulp of SciPy's ``erfinv``; ``+-1 -> +-inf``,
    ``|x| > 1`` and NaN give NaN.

    Parameters
    ----------
    x : ndarray of float32 or float64

    Returns
    -------
    ndarray
        ``x``'s shape and dtype.
    """
    x = np.asarray(x)
    a = np.abs(x.astype(np.float64))
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        c = w < 5.0
        u = np.where(c, w - 2.5, np.sqrt(w) - 3.0)
        p = np.where(c, GILES_CENTRAL[0], GILES_TAIL[0])
        for k1, k2 in zip(GILES_CENTRAL[1:], GILES_TAIL[1:]):
            p = np.where(c, k1, k2) + p * u
        y = p * a
        big = a >= 0.5
        finite = np.isfinite(y) & (a < 1.0)
        log_q = np.log(1.0 - a)  # (exact: 1 - |x| for |x| >= 0.5)
        for _ in range(_NEWTON_STEPS):
            yf = np.where(finite, y, 0.0)
            density = _TWO_OVER_SQRT_PI * np.exp(-yf * yf)
            erfc = np.asarray(_ERFC(yf), dtype=np.float64)
            # |x| >= 0.5: Newton on log(erfc(y)) = log(1 - |x|), nearly linear in the tail
            step_tail = (np.log(erfc) - log_q) * erfc / density
            step_central = (np.asarray(_ERF(yf), dtype=np.float64) - a) / density
            y = np.where(finite, yf + np.where(big, step_tail, -step_central), y)
        y = np.where(a == 1.0, np.inf, np.where(a > 1.0, np.nan, y))
    return np.asarray(np.copysign(y, x), dtype=x.dtype)


@erf_inv_p.def_abstract_eval
def _erf_inv_aval(x):
    dt = np.dtype(dtype_of(x))  # (x may be a Python float: a weak input under staging)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"erf_inv needs float32 or float64, got {dt}")
    return ShapedArray(shape_of(x), dt)


_HALF_SQRT_PI = float(0.5 * np.sqrt(np.pi))  # a Python float keeps float32 float32


def _erf_inv_rule(g, ans, x):
    # d erfinv(x) / dx = 1 / erf'(erfinv(x)) = sqrt(pi) / 2 * exp(erfinv(x)**2)
    return ops.mul(g, ops.mul(ops.exp(ops.square(ans)), _HALF_SQRT_PI))


defjvp(erf_inv_p, _erf_inv_rule)
defvjp(erf_inv_p, _erf_inv_rule)


def erf_inv(x):
    """Inverse error function (SciPy's ``erfinv``) of a float array in (-1, 1),
    float32 or float64; derivative ``sqrt(pi) / 2 * exp(erf_inv(x)**2)``.
    """
    return erf_inv_p.bind(x)


defbatch_elementwise(threefry2x32_p, uint_xor_p, erf_inv_p)  # (random_gamma_grad_p below)


# --------------------------------------------------------------------------
# Samplers that loop until acceptance (gamma, Poisson).  With no staged
# while loop in this layer, each is one primitive whose impl runs the
# rejection loop in NumPy over all elements at once (an element that has
# accepted keeps its value, as under a batched while loop).  The key
# operand has shape ``K + (2,)`` and the parameter ``K + S``: key ``k``
# draws the ``S``-shaped sample ``k`` (so the batching rule only moves the
# batch axes to the front).  The streams follow ``jax.random`` step for
# step (same key splits and counters), so the results equal JAX's but for
# the last-ulp differences of ``erf_inv`` and ``log``, which can (rarely)
# flip one acceptance test.


def _np_split(k1, k2, num):
    """``split`` of the keys ``(k1, k2)`` (uint32 arrays of one shape) into
    ``num`` keys each: two arrays of shape ``(num,) + k1.shape``."""
    lo = np.arange(num, dtype=np.uint32).reshape((num,) + (1,) * np.ndim(k1))
    return _threefry2x32_impl(k1, k2, np.zeros_like(lo), lo)


def _np_unit(k1, k2, shape, dtype):
    """``_unit`` of tracegrad.random: floats in [0, 1) of ``shape``, one key."""
    n = math.prod(shape)
    idx = np.arange(n, dtype=np.uint64)
    hi = (idx >> np.uint64(32)).astype(np.uint32)
    lo = (idx & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    b1, b2 = _threefry2x32_impl(k1, k2, hi, lo)
    return _bits_to_unit(b1, b2, dtype).reshape(shape)


def _bits_to_unit(b1, b2, dtype):
    if np.dtype(dtype) == np.float64:
        return (b1.astype(np.float64) * 2.0**20 + (b2 >> np.uint32(12)).astype(np.float64)) * 2.0**-52
    return ((b1 ^ b2) >> np.uint32(9)).astype(np.float32) * np.float32(2.0**-23)


def _np_scalar_unit(k1, k2, dtype):
    """One uniform in [0, 1) per key (``uniform(key, ())`` of each key)."""
    z = np.zeros(np.shape(k1), np.uint32)
    b1, b2 = _threefry2x32_impl(k1, k2, z, z)
    return _bits_to_unit(b1, b2, dtype)


def _np_fma(a, b, c):
    """``a * b + c`` rounded once (see ``tracegrad.random._fma``)."""
    if np.asarray(a).dtype == np.float32:
        return (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32)

    def halves(x):
        t = x * 134217729.0
        h = t - (t - x)
        return h, x - h

    p = a * b
    ah, al = halves(a)
    bh, bl = halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    t = (p - (s - v)) + (c - v)
    return s + (t + e)


def _np_scalar_normal(k1, k2, dtype):
    """``normal(key, ())`` of each key, as tracegrad.random.normal computes it."""
    dtype = np.dtype(dtype)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _np_scalar_unit(k1, k2, dtype)
    u = np.maximum(lo, _np_fma(u, np.asarray(1.0, dtype) - lo, lo))
    return (_erf_inv_impl(u) * np.array(np.sqrt(2), dtype)).astype(dtype)


def _per_key(fn, key, x, *rest):
    """Apply ``fn(k1, k2, x_part, *rest_parts)`` for each key of ``key``
    (shape ``K + (2,)``), ``x`` and ``rest`` of shape ``K + S``."""
    key = np.asarray(key, np.uint32)
    kshape = key.shape[:-1]
    out = None
    for idx in np.ndindex(*kshape):
        part = fn(key[idx + (0,)], key[idx + (1,)], x[idx], *[r[idx] for r in rest])
        if out is None:
            out = np.empty(kshape + part.shape, part.dtype)
        out[idx] = part
    if out is None:  # an empty batch of keys
        return None
    return out


def _gamma_flat(k1, k2, alpha, log_space):
    """Marsaglia & Tsang ("A simple method for generating gamma variables",
    ACM TOMS 26(3), 2000) for each element of the 1-D ``alpha``, element
    ``i`` with its own key ``(k1[i], k2[i])``, as jax.random's ``_gamma_one``."""
    dtype = alpha.dtype
    one, zero = dtype.type(1), dtype.type(0)
    with np.errstate(all="ignore"):
        boost_mask = alpha >= one
        alpha_b = np.where(boost_mask, alpha, alpha + one)
        d = alpha_b - dtype.type(1.0 / 3.0)
        c = dtype.type(1.0 / 3.0) / np.sqrt(d)
        ks = _np_split(k1, k2, 2)
        key1, key2, sub1, sub2 = ks[0][0], ks[1][0], ks[0][1], ks[1][1]
        X = np.zeros_like(alpha)
        V = np.ones_like(alpha)
        U = np.full_like(alpha, 2)

        def cond(X, V, U, d):
            return (U >= one - dtype.type(0.0331) * (X * X)) & (
                np.log(U) >= X * dtype.type(0.5) + d * (one - V + np.log(V)))

        active = np.flatnonzero(cond(X, V, U, d))
        while active.size:
            s1, s2 = _np_split(key1[active], key2[active], 3)
            key1[active], key2[active] = s1[0], s2[0]
            xk1, xk2, uk1, uk2 = s1[1], s2[1], s1[2], s2[2]
            ca = c[active]
            x = np.zeros(active.size, dtype)
            v = np.full(active.size, -one, dtype)
            inner = np.flatnonzero(v <= zero)
            while inner.size:
                t1, t2 = _np_split(xk1[inner], xk2[inner], 2)
                xk1[inner], xk2[inner] = t1[0], t2[0]
                x[inner] = _np_scalar_normal(t1[1], t2[1], dtype)
                v[inner] = one + x[inner] * ca[inner]
                inner = inner[v[inner] <= zero]
            X[active] = x * x
            V[active] = v * v * v
            U[active] = _np_scalar_unit(uk1, uk2, dtype)
            active = active[cond(X[active], V[active], U[active], d[active])]
        u = _np_scalar_unit(sub1, sub2, dtype)
        if log_space:
            log_samples = np.log1p(-u)
            log_boost = np.where(boost_mask | (log_samples == zero), zero,
                                 log_samples * (one / alpha))
            return (np.log(d) + np.log(V) + log_boost).astype(dtype)
        boost = np.where(boost_mask, one, (one - u) ** (one / alpha))
        return (d * V * boost).astype(dtype)


def _gamma_one_key(k1, k2, a, log_space):
    n = a.size
    s1, s2 = _np_split(np.asarray(k1), np.asarray(k2), n)
    out = _gamma_flat(s1.reshape(-1).copy(), s2.reshape(-1).copy(), a.reshape(-1), log_space)
    return out.reshape(a.shape)


random_gamma_p = Primitive("random_gamma")


@random_gamma_p.def_impl
def _random_gamma_impl(key, a, *, log_space):
    a = np.asarray(a)
    out = _per_key(lambda k1, k2, x: _gamma_one_key(k1, k2, x, log_space), key, a)
    return np.empty(a.shape, a.dtype) if out is None else out


def _check_keyed(name, key, x):
    if np.dtype(key.dtype) != np.uint32 or len(key.shape) < 1 or key.shape[-1] != 2:
        raise TypeError(f"{name} needs uint32 keys of shape K + (2,), got {key.dtype} of "
                        f"shape {tuple(key.shape)}")
    k = tuple(key.shape[:-1])
    if tuple(x.shape[:len(k)]) != k:
        raise TypeError(f"{name}: the keys' batch shape {k} must prefix the parameter's "
                        f"shape {tuple(x.shape)}")


@random_gamma_p.def_abstract_eval
def _random_gamma_aval(key, a, *, log_space):
    _check_keyed("random_gamma", key, a)
    if np.dtype(a.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"random_gamma needs float32 or float64 shapes, got {a.dtype}")
    return ShapedArray(a.shape, a.dtype)


def _keyed_batch_rule(prim):
    """vmap of a keyed sampler: keys and parameters get the batch axis in
    front (an unbatched one is broadcast), which makes it part of ``K``."""

    def rule(args, bdims, **params):
        size = batch_size(args, bdims)
        return prim.bind(*[bdim_to_front(x, d, size) for x, d in zip(args, bdims)], **params), 0

    return rule


random_gamma_p.batch = _keyed_batch_rule(random_gamma_p)


def _digamma(z):
    """psi(z) for z > 0 (float64): the recurrence up to z >= 6, then the
    asymptotic series (Abramowitz & Stegun 6.3.18)."""
    z = np.array(z, np.float64)
    acc = np.zeros_like(z)
    for _ in range(6):
        small = z < 6.0
        acc = acc - np.where(small, 1.0 / z, 0.0)
        z = np.where(small, z + 1.0, z)
    w = 1.0 / (z * z)
    series = w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w / 132))))
    return acc + np.log(z) - 0.5 / z - series


_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma(x):
    """log|Gamma(x)| of an array (inf at the poles 0, -1, -2, ...)."""
    x = np.asarray(x, np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    safe = np.where(pole | ~np.isfinite(x), 1.0, x)
    out = np.asarray(_LGAMMA(safe), dtype=np.float64)
    return np.where(pole, np.inf, np.where(np.isfinite(x), out, np.abs(x)))


# Past this shape parameter the Wilson-Hilferty form of the sample is used
# for its derivative (relative error O(1/a), below 1e-6 there).
_GAMMA_GRAD_LARGE_A = 1e4


def _gamma_grad_impl(a, x):
    """d x / d a of a standard gamma sample ``x`` at fixed quantile:
    ``-(dP/da)(a, x) / p(x; a)`` (implicit reparameterization, Figurnov et
    al., "Implicit reparameterization gradients", NeurIPS 2018), with
    ``P(a, x) = exp(-x) sum_n x**(a+n) / Gamma(a+n+1)`` differentiated term
    by term (``d/da`` of a term is the term times ``log x - psi(a+n+1)``)."""
    a = np.asarray(a)
    dtype = np.result_type(a, np.asarray(x))
    a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a64.shape, np.nan)
    with np.errstate(all="ignore"):
        ok = (a64 > 0) & (x64 > 0) & np.isfinite(x64)
        small = ok & (a64 <= _GAMMA_GRAD_LARGE_A)
        if small.any():
            aa, xx = a64[small], x64[small]
            log_x = np.log(xx)
            term = np.exp(-xx + aa * log_x - _lgamma(aa + 1.0))
            psi = _digamma(aa + 1.0)
            total = term * (log_x - psi)
            n_max = int(np.max(xx + 12.0 * np.sqrt(xx) + 40.0))
            for n in range(1, n_max):
                term = term * xx / (aa + n)
                psi = psi + 1.0 / (aa + n)
                total = total + term * (log_x - psi)
                if n > 40 and np.all(term <= 1e-17 * np.abs(total) + 1e-300):
                    break
            log_pdf = -xx + (aa - 1.0) * log_x - _lgamma(aa)
            out[small] = -total / np.exp(log_pdf)
        large = ok & (a64 > _GAMMA_GRAD_LARGE_A)
        if large.any():
            aa, xx = a64[large], x64[large]
            # x = a * w**3, w = 1 - 1/(9a) + z / (3 sqrt(a)), z held fixed
            w = np.cbrt(xx / aa)
            z = (w - 1.0 + 1.0 / (9.0 * aa)) * 3.0 * np.sqrt(aa)
            dw = 1.0 / (9.0 * aa * aa) - z / (6.0 * aa ** 1.5)
            out[large] = w ** 3 + 3.0 * aa * w * w * dw
        out = np.where((x64 == 0) & (a64 > 0), 0.0, out)
    return out.astype(dtype)


random_gamma_grad_p = Primitive("random_gamma_grad")
random_gamma_grad_p.def_impl(_gamma_grad_impl)


@random_gamma_grad_p.def_abstract_eval
def _gamma_grad_aval(a, x):
    return ShapedArray(np.broadcast_shapes(tuple(a.shape), tuple(x.shape)),
                       np.result_type(a.dtype, x.dtype))


def_nondifferentiable(random_gamma_grad_p)


def random_gamma_grad(a, x):
    """d x / d a for standard gamma samples ``x`` of shape ``a`` (held at
    their quantile); NaN for ``a <= 0``.  Has no derivative itself."""
    return random_gamma_grad_p.bind(a, x)


def _random_gamma_tangent(g, ans, key, a, *, log_space):
    if log_space:
        x = ops.exp(ans)
        return ops.mul(g, ops.div(random_gamma_grad(a, x), x))
    return ops.mul(g, random_gamma_grad(a, ans))


defjvp(random_gamma_p, None, _random_gamma_tangent)
defvjp(random_gamma_p, None, _random_gamma_tangent)


def random_gamma(key, a, log_space=False):
    """Standard gamma samples of shape ``a.shape`` (``log_space``: their
    logarithms), key ``k`` of ``key`` (shape ``K + (2,)``) drawing
    ``a[k]``; the algorithm and key use of ``jax.random.gamma``.
    Differentiable in ``a`` (implicit reparameterization, see
    :func:`random_gamma_grad`)."""
    return random_gamma_p.bind(key, a, log_space=bool(log_space))


defbatch_elementwise(random_gamma_grad_p)


def _np_split1(k1, k2, num):
    """``split`` of one key into ``num``: a list of ``(k1, k2)`` pairs."""
    s1, s2 = _np_split(np.asarray(k1), np.asarray(k2), num)
    return list(zip(s1, s2))


def _poisson_knuth(k1, k2, lam, dtype):
    """Knuth's multiplication method, as jax.random's ``_poisson_knuth``: one
    float32 uniform field of the whole shape per step, one key per step."""
    k = np.zeros(lam.shape, dtype)
    log_prod = np.zeros(lam.shape, np.float32)
    key = (k1, k2)
    with np.errstate(all="ignore"):
        while np.any(log_prod > -lam):
            key, sub = _np_split1(*key, 2)
            k = np.where(log_prod > -lam, k + 1, k)
            log_prod = log_prod + np.log(_np_unit(sub[0], sub[1], lam.shape, np.float32))
    return (k - 1).astype(dtype)


def _poisson_rejection(k1, k2, lam, dtype):
    """Hormann's transformed rejection ("The transformed rejection method for
    generating Poisson random variables", Insurance: Mathematics and
    Economics 12, 1993), as jax.random's ``_poisson_rejection``."""
    f = lam.dtype.type
    with np.errstate(all="ignore"):
        log_lam = np.log(lam)
        b = f(0.931) + f(2.53) * np.sqrt(lam)
        a = f(-0.059) + f(0.02483) * b
        inv_alpha = f(1.1239) + f(1.1328) / (b - f(3.4))
        v_r = f(0.9277) - f(3.6224) / (b - f(2))
        k_out = np.full(lam.shape, -1, lam.dtype)
        accepted = np.zeros(lam.shape, bool)
        key = (k1, k2)
        while not accepted.all():
            key, s0, s1 = _np_split1(*key, 3)
            u = _np_unit(s0[0], s0[1], lam.shape, lam.dtype) - f(0.5)
            v = _np_unit(s1[0], s1[1], lam.shape, lam.dtype)
            u_shifted = f(0.5) - np.abs(u)
            k = np.floor((f(2) * a / u_shifted + b) * u + lam + f(0.43))
            s = np.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
            t = -lam + k * log_lam - _lgamma(k + 1).astype(lam.dtype)
            accept1 = (u_shifted >= f(0.07)) & (v <= v_r)
            reject = (k < 0) | ((u_shifted < f(0.013)) & (v > u_shifted))
            accept = accept1 | (~reject & (s <= t))
            k_out = np.where(accept, k, k_out)
            accepted |= accept
    return k_out.astype(dtype)


def _poisson_one_key(k1, k2, lam, dtype):
    lam = np.asarray(lam)
    use_knuth = np.isnan(lam) | (lam < 10)
    lam_knuth = np.where(use_knuth, lam, lam.dtype.type(0))
    lam_rejection = np.where(use_knuth, lam.dtype.type(1e5), lam)
    result = np.where(use_knuth, _poisson_knuth(k1, k2, lam_knuth, dtype),
                      _poisson_rejection(k1, k2, lam_rejection, dtype))
    return np.where(lam == 0, 0, result).astype(dtype)


random_poisson_p = Primitive("random_poisson")


@random_poisson_p.def_impl
def _random_poisson_impl(key, lam, *, dtype):
    lam = np.asarray(lam)
    out = _per_key(lambda k1, k2, x: _poisson_one_key(k1, k2, x, np.dtype(dtype)), key, lam)
    return np.empty(lam.shape, dtype) if out is None else out


@random_poisson_p.def_abstract_eval
def _random_poisson_aval(key, lam, *, dtype):
    _check_keyed("random_poisson", key, lam)
    if np.dtype(lam.dtype) != np.float32:
        raise TypeError(f"random_poisson takes float32 rates, got {lam.dtype}")
    if np.dtype(dtype).kind not in "iu":
        raise TypeError(f"random_poisson samples integers, got dtype {np.dtype(dtype)}")
    return ShapedArray(lam.shape, dtype)


def_nondifferentiable(random_poisson_p)
random_poisson_p.batch = _keyed_batch_rule(random_poisson_p)


def random_poisson(key, lam, dtype=np.int64):
    """Poisson samples of the float32 rates ``lam``, key ``k`` of ``key``
    (shape ``K + (2,)``) drawing ``lam[k]``; the algorithms and key use of
    ``jax.random.poisson`` (Knuth below 10, transformed rejection above)."""
    return random_poisson_p.bind(key, lam, dtype=np.dtype(dtype))
