"""Keyed random numbers with JAX's functional API (``jax.random``).

A key is a ``uint32`` array of shape ``(2,)`` (what ``jax.random.PRNGKey``
returns); every sampler is a pure function of its key, so the same key
always gives the same numbers and keys are split, never mutated::

    >>> import tracegrad as tg
    >>> key = tg.random.PRNGKey(0)
    >>> k1, k2 = tg.random.split(key)
    >>> x = tg.random.normal(k1, (3,))

The generator is counter-based: the Threefry-2x32 hash
(:func:`tracegrad.primitives.ops.threefry2x32`) of a key and a counter per
output element, derived exactly as JAX's default ``threefry2x32`` PRNG
derives them with ``jax_threefry_partitionable`` on (its default in the
JAX these tests run against).  So ``PRNGKey``, ``split``, ``fold_in``,
``bits``, ``uniform``, ``bernoulli``, ``randint``, ``permutation`` and
``choice`` (and, in practice, ``categorical``) give JAX's numbers bit for
bit on the same key, shape and dtype; ``normal``, ``truncated_normal``,
``exponential``, ``laplace``, ``logistic``, ``gumbel`` and
``multivariate_normal`` agree to a few ulps (their ``erfinv``, ``log`` and
``log1p`` are SciPy's and NumPy's, not XLA's), and so do ``gamma``,
``loggamma``, ``beta``, ``dirichlet`` (rejection samplers run as one
primitive each, :mod:`tracegrad.primitives.random`) and ``poisson``
(integers equal to JAX's).  The samplers are written
with primitives, so they stage under :func:`tracegrad.jit`, batch over keys
under :func:`tracegrad.vmap`, and differentiate in their real parameters
(``minval``/``maxval``, ``lower``/``upper``, ``mean``/``cov``); a sample is
a constant with respect to its key.
"""
import math

import numpy as np

from . import numpy as tnp
from .numpy import linalg as tnp_linalg
from .core import Tracer
from .primitives import ops
from .primitives import random as _rp

__all__ = [
    "PRNGKey",
    "bernoulli",
    "beta",
    "bits",
    "categorical",
    "choice",
    "dirichlet",
    "exponential",
    "fold_in",
    "gamma",
    "gumbel",
    "key",
    "key_data",
    "laplace",
    "loggamma",
    "logistic",
    "multivariate_normal",
    "normal",
    "permutation",
    "poisson",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
]

_U32 = np.dtype(np.uint32)
_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _shape(name, shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"random.{name}: shape must be a tuple of ints, got {shape!r}") from None


def _float_dtype(name, dtype):
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"random.{name} samples float32 or float64, got dtype {dtype}")
    return dtype


def _check_key(name, key):
    if not isinstance(key, Tracer):
        key = np.asarray(key)
    if tuple(key.shape) != (2,) or np.dtype(key.dtype) != _U32:
        raise TypeError(
            f"random.{name} needs one key, a uint32 array of shape (2,) (from PRNGKey or "
            f"split), got {key.dtype} of shape {tuple(key.shape)}; for a batch of keys "
            f"use tg.vmap over the sampler")
    return key


def PRNGKey(seed):
    """The key of an integer seed, as ``jax.random.PRNGKey``.

    Parameters
    ----------
    seed : int
        Any Python or NumPy integer; its low 64 bits (two's complement) are
        the key: ``[seed >> 32, seed & 0xFFFFFFFF]``.

    Returns
    -------
    ndarray of uint32, shape (2,)

    Raises
    ------
    TypeError
        If ``seed`` is not a concrete integer.
    """
    if isinstance(seed, Tracer) or not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"random.PRNGKey needs a concrete integer seed, got {seed!r}; "
                        "to derive keys from traced integers use fold_in(key, data)")
    s = int(seed) & (2**64 - 1)
    return np.array([s >> 32, s & 0xFFFFFFFF], dtype=np.uint32)


def key(seed):
    """Same as :func:`PRNGKey` (a raw ``uint32[2]`` key; there is no typed key)."""
    return PRNGKey(seed)


def key_data(keys):
    """The ``uint32`` words of ``keys`` (keys are already raw: returned as is)."""
    return keys


def _counters(shape):
    """JAX's ``iota_2x32_shape``: the row-major index of each element as a
    64-bit count, split into its high and low ``uint32`` words."""
    n = math.prod(shape)
    if n > 2**64:
        raise ValueError(f"random: {n} elements exceed the 2**64 counters of a key")
    idx = np.arange(n, dtype=np.uint64).reshape(shape)
    return (idx >> np.uint64(32)).astype(np.uint32), (idx & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _hash(key, shape):
    hi, lo = _counters(shape)
    return ops.threefry2x32(key[0], key[1], hi, lo)


def split(key, num=2):
    """``num`` new keys from ``key``, as ``jax.random.split``.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    num : int or tuple of ints
        How many keys (or the batch shape of the keys).

    Returns
    -------
    uint32 array, shape ``(num, 2)`` (or ``num + (2,)``)
    """
    key = _check_key("split", key)
    shape = _shape("split", num)
    b1, b2 = _hash(key, shape)
    return tnp.stack([b1, b2], axis=len(shape))


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (its low 32 bits), as
    ``jax.random.fold_in``.  ``data`` may be traced (e.g. a step counter).

    Returns
    -------
    uint32 array, shape (2,)
    """
    key = _check_key("fold_in", key)
    if isinstance(data, Tracer):
        if tuple(data.shape) != ():
            raise TypeError(f"random.fold_in needs scalar data, got shape {tuple(data.shape)}")
        word = ops.convert_element_type(data, np.uint32)
    else:
        if np.ndim(data):
            raise TypeError(f"random.fold_in needs scalar data, got shape {np.shape(data)}")
        word = np.asarray(int(data) & 0xFFFFFFFF, dtype=np.uint32)
    y1, y2 = ops.threefry2x32(key[0], key[1], np.zeros((1,), np.uint32), tnp.reshape(word, (1,)))
    return tnp.concatenate([y1, y2])


def _bits(key, shape, width):
    b1, b2 = _hash(key, shape)
    if width == 64:
        hi = ops.convert_element_type(b1, np.uint64)
        return ops.add(ops.mul(hi, np.uint64(2**32)), ops.convert_element_type(b2, np.uint64))
    x = ops.uint_xor(b1, b2)
    return x if width == 32 else ops.convert_element_type(x, _UINT[width])


def bits(key, shape=(), dtype=np.uint32):
    """Uniform random bits, as ``jax.random.bits``.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    shape : tuple of ints
    dtype : uint8, uint16, uint32 or uint64

    Returns
    -------
    array of ``dtype`` and ``shape``

    Raises
    ------
    TypeError
        For another dtype.
    """
    key = _check_key("bits", key)
    dtype = np.dtype(dtype)
    if dtype.kind != "u":
        raise TypeError(f"random.bits gives unsigned integers (uint8..uint64), got {dtype}")
    return _bits(key, _shape("bits", shape), dtype.itemsize * 8)


def _unit(key, shape, dtype):
    """Floats ``k * 2**-nmant`` in [0, 1) from the top mantissa bits, which is
    exactly JAX's bit pattern ``1.m - 1`` (the subtraction is exact)."""
    b1, b2 = _hash(key, shape)
    if dtype == np.float64:
        # the top 52 of the 64 bits (b1 high, b2 low): b1 * 2**20 + (b2 >> 12)
        hi = ops.convert_element_type(b1, np.float64)
        lo = ops.convert_element_type(ops.floor_divide(b2, np.uint32(4096)), np.float64)
        return ops.mul(ops.add(ops.mul(hi, 2.0**20), lo), 2.0**-52)
    m = ops.floor_divide(ops.uint_xor(b1, b2), np.uint32(512))  # the top 23 bits
    return ops.mul(ops.convert_element_type(m, np.float32), np.float32(2.0**-23))


def uniform(key, shape=(), dtype=np.float64, minval=0.0, maxval=1.0):
    """Uniform floats in ``[minval, maxval)``, as ``jax.random.uniform``.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    shape : tuple of ints
    dtype : float32 or float64
    minval, maxval : array_like or tracer
        Broadcastable to ``shape``; the result is differentiable in both
        (``u * (maxval - minval) + minval``, kept ``>= minval``).

    Returns
    -------
    array of ``dtype`` and ``shape``
    """
    key = _check_key("uniform", key)
    shape = _shape("uniform", shape)
    dtype = _float_dtype("uniform", dtype)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if np.ndim(v) > len(shape) or np.broadcast_shapes(np.shape(v), shape) != shape:
            raise ValueError(f"random.uniform: {name} of shape {np.shape(v)} does not "
                             f"broadcast to shape {shape}")
    lo = tnp.asarray(minval).astype(dtype)
    hi = tnp.asarray(maxval).astype(dtype)
    u = _unit(key, shape, dtype)
    return tnp.maximum(lo, _fma(u, hi - lo, lo))


def _fma(a, b, c):
    """``a * b + c`` rounded once, as XLA's fused multiply-add computes it.

    float32: exactly in float64 (the product of two 24-bit significands is
    exact there).  float64: Dekker's exact product and Knuth's exact sum
    (Ogita, Rump & Oishi, "Accurate sum and dot product", 2005), so the
    result is the rounded exact value but for (rare) ties of the last step.
    Each step is ordinary arithmetic, so derivatives are those of ``a * b + c``.
    """
    if np.dtype(a.dtype) == np.float32:
        f = lambda x: tnp.asarray(x).astype(np.float64)  # noqa: E731
        return (f(a) * f(b) + f(c)).astype(np.float32)

    def halves(x):
        t = x * 134217729.0  # 2**27 + 1
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


def normal(key, shape=(), dtype=np.float64):
    """Standard normal floats, as ``jax.random.normal``: ``sqrt(2) *
    erfinv(u)`` for ``u`` uniform in ``(-1, 1)``.

    Returns
    -------
    array of ``dtype`` (float32 or float64) and ``shape``
    """
    key = _check_key("normal", key)
    dtype = _float_dtype("normal", dtype)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform(key, shape, dtype, lo, 1.0)
    return ops.mul(ops.erf_inv(u), np.array(np.sqrt(2), dtype))


def truncated_normal(key, lower, upper, shape=None, dtype=np.float64):
    """Standard normal floats conditioned on ``lower < x < upper``, as
    ``jax.random.truncated_normal`` (differentiable in ``lower``/``upper``
    through the affine map of the uniform).

    Parameters
    ----------
    lower, upper : array_like or tracer
        Bounds, broadcastable to ``shape`` (default: their broadcast shape).

    Returns
    -------
    array of ``dtype`` and ``shape``, strictly inside the bounds
    """
    key = _check_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    shape = _shape("truncated_normal", shape)
    s2 = np.array(np.sqrt(2), dtype)
    lower = lower.astype(dtype) if isinstance(lower, Tracer) else np.asarray(lower, dtype)
    upper = upper.astype(dtype) if isinstance(upper, Tracer) else np.asarray(upper, dtype)
    a = ops.erf(lower / s2)
    b = ops.erf(upper / s2)
    out = ops.mul(ops.erf_inv(uniform(key, shape, dtype, a, b)), s2)
    return tnp.clip(out, _inside(lower, np.inf), _inside(upper, -np.inf))


def _inside(bound, toward):
    """The float next to a concrete bound (JAX clips to the open interval);
    a traced bound is used as is (no derivative flows through the clip bounds)."""
    if isinstance(bound, Tracer):
        return ops.stop_gradient(bound)
    return np.nextafter(bound, np.array(toward, bound.dtype))


def bernoulli(key, p=0.5, shape=None):
    """Booleans that are True with probability ``p``, as ``jax.random.bernoulli``.

    Returns
    -------
    bool array of ``shape`` (default ``p``'s shape)
    """
    key = _check_key("bernoulli", key)
    pdt = np.result_type(getattr(p, "dtype", np.float64), np.float32)
    if pdt.kind != "f":
        pdt = np.dtype(np.float64)
    shape = np.shape(p) if shape is None else _shape("bernoulli", shape)
    return uniform(key, shape, pdt) < tnp.asarray(p).astype(pdt)


def randint(key, shape, minval, maxval, dtype=np.int64):
    """Integers in ``[minval, maxval)``, as ``jax.random.randint`` (same
    numbers: the remainder of twice ``dtype``'s width of random bits by the
    span; ``minval`` when ``maxval <= minval``).

    Parameters
    ----------
    key : uint32 array, shape (2,)
    shape : tuple of ints
    minval, maxval : int or integer array (concrete)
        Clipped to ``dtype``'s range.
    dtype : a signed or unsigned integer dtype of 8 to 64 bits

    Returns
    -------
    array of ``dtype`` and ``shape``
    """
    key = _check_key("randint", key)
    shape = _shape("randint", shape)
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"random.randint gives integers, got dtype {dtype}")
    if isinstance(minval, Tracer) or isinstance(maxval, Tracer):
        raise TypeError("random.randint needs concrete minval and maxval")
    info = np.iinfo(dtype)
    mn = np.broadcast_to(np.asarray(minval), shape).astype(object)
    mx = np.broadcast_to(np.asarray(maxval), shape).astype(object)
    out_of_range = mx > info.max
    mn = np.clip(mn, info.min, info.max)
    mx = np.clip(mx, info.min, info.max)
    nbits = dtype.itemsize * 8
    udt = np.dtype(_UINT[nbits])
    span = np.where(mx <= mn, 1, (mx - mn) % 2**nbits)
    span = np.where(out_of_range & (mx > mn), (span + 1) % 2**nbits, span)
    span = np.asarray(span.astype(np.uint64)).astype(udt)
    safe = np.where(span == 0, 1, span).astype(udt)  # span 0 (2**nbits): keep all bits
    mult = (np.asarray(2 ** (nbits // 2) % safe.astype(object)) ** 2 % safe.astype(object))
    mult = np.where(span == 0, 0, mult).astype(np.uint64).astype(udt)
    k1, k2 = split(key)
    hi, lo = _bits(k1, shape, nbits), _bits(k2, shape, nbits)
    if (span == 0).any():
        rem = lambda x: tnp.where(span == 0, x, ops.mod(x, safe))  # noqa: E731
    else:
        rem = lambda x: ops.mod(x, safe)  # noqa: E731
    offset = rem(ops.add(ops.mul(rem(hi), mult), rem(lo)))
    base = np.asarray(mn.astype(np.int64) if dtype.kind == "i" else mn.astype(np.uint64)).astype(dtype)
    return ops.add(ops.convert_element_type(offset, dtype), base)


def exponential(key, shape=(), dtype=np.float64):
    """Exponential(1) floats ``-log1p(-u)``, as ``jax.random.exponential``."""
    key = _check_key("exponential", key)
    return -tnp.log1p(-uniform(key, shape, dtype))


def laplace(key, shape=(), dtype=np.float64):
    """Laplace(0, 1) floats ``sign(u) * log1p(-|u|)``, as ``jax.random.laplace``."""
    key = _check_key("laplace", key)
    dtype = _float_dtype("laplace", dtype)
    u = uniform(key, shape, dtype, -1.0 + np.finfo(dtype).epsneg, 1.0)
    return tnp.sign(u) * tnp.log1p(-tnp.abs(u))


def logistic(key, shape=(), dtype=np.float64):
    """Standard logistic floats ``log(u) - log1p(-u)``, as ``jax.random.logistic``."""
    key = _check_key("logistic", key)
    dtype = _float_dtype("logistic", dtype)
    x = uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return tnp.log(x) - tnp.log1p(-x)


def gumbel(key, shape=(), dtype=np.float64):
    """Standard Gumbel floats ``-log(-log(u))``, as ``jax.random.gumbel``
    (its default ``mode="low"``)."""
    key = _check_key("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    return -tnp.log(-tnp.log(uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)))


def categorical(key, logits, axis=-1, shape=None):
    """Category indices drawn with probabilities ``softmax(logits, axis)``
    (the Gumbel-max trick), as ``jax.random.categorical`` with replacement.

    Parameters
    ----------
    logits : float array or tracer
        Unnormalized log-probabilities.
    axis : int
        The categories' axis of ``logits``.
    shape : tuple of ints, optional
        The result's shape: a prefix of sample axes followed by ``logits``'s
        shape without ``axis`` (default: that shape).

    Returns
    -------
    int64 array of ``shape``
    """
    key = _check_key("categorical", key)
    logits = tnp.asarray(logits)
    nd = logits.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"random.categorical: axis {axis} out of range for logits of rank {nd}")
    axis = axis % nd
    batch = tuple(logits.shape[:axis]) + tuple(logits.shape[axis + 1:])
    shape = batch if shape is None else _shape("categorical", shape)
    if shape[len(shape) - len(batch):] != batch:
        raise ValueError(f"random.categorical: shape {shape} must end with the logits' batch "
                         f"shape {batch}")
    prefix = shape[:len(shape) - len(batch)]
    dtype = logits.dtype if np.dtype(logits.dtype).kind == "f" else np.dtype(np.float64)
    g_shape = prefix + tuple(logits.shape)
    g = gumbel(key, g_shape, dtype) + tnp.reshape(logits, (1,) * len(prefix) + tuple(logits.shape))
    return tnp.argmax(g, axis=len(prefix) + axis)


def _shuffle_index(key, n):
    """JAX's shuffle of ``arange(n)``: sort by fresh 32-bit keys, repeated
    enough rounds that ties are negligible."""
    rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))
    idx = np.arange(n)
    for _ in range(rounds):
        key, sub = split(key)
        order = ops.argsort(_bits(sub, (n,), 32), 0, kind="stable")
        idx = tnp.take(idx, order)
    return idx


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``arange(x)`` (integer ``x``) or of ``x``'s
    entries along ``axis``, as ``jax.random.permutation``.

    ``independent=True`` shuffles each 1-D slice along ``axis`` on its own.
    """
    key = _check_key("permutation", key)
    if not isinstance(x, Tracer) and np.ndim(x) == 0:
        if not isinstance(x, (int, np.integer)):
            raise TypeError("random.permutation: x must be an integer or at least 1-dimensional")
        return _shuffle_index(key, int(x))
    x = tnp.asarray(x)
    axis = axis % x.ndim
    n = x.shape[axis]
    if independent and x.ndim > 1:
        rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
        for _ in range(rounds):
            key, sub = split(key)
            order = ops.argsort(_bits(sub, tuple(x.shape), 32), axis, kind="stable")
            x = tnp.take_along_axis(x, order, axis=axis)
        return x
    return tnp.take(x, _shuffle_index(key, n), axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Samples of ``a`` (or of ``arange(a)`` for an integer), as
    ``jax.random.choice``: with replacement by :func:`randint` (or by inverse
    CDF of ``p``), without by :func:`permutation` (or Gumbel top-k of ``p``).

    Returns
    -------
    array: ``shape`` for an integer ``a``, else ``a.shape[:axis] + shape +
    a.shape[axis+1:]``

    Raises
    ------
    ValueError
        For more draws than items without replacement, or ``p`` of the wrong shape.
    """
    key = _check_key("choice", key)
    shape = _shape("choice", shape)
    scalar = not isinstance(a, Tracer) and np.ndim(a) == 0
    arr = None if scalar else tnp.asarray(a)
    if scalar:
        n = int(a)
    else:
        axis = axis % arr.ndim
        n = arr.shape[axis]
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ValueError(f"random.choice: cannot take {draws} samples from {n} items "
                         "with replace=False")
    if draws == 0:
        return tnp.zeros(shape if scalar else tuple(arr.shape[:axis]) + shape
                         + tuple(arr.shape[axis + 1:]), dtype=np.int64 if scalar else arr.dtype)
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n)
        else:
            ind = _shuffle_index(key, n)[:draws]
    else:
        p = tnp.asarray(p)
        if tuple(p.shape) != (n,):
            raise ValueError(f"random.choice: p must have shape ({n},), got {tuple(p.shape)}")
        if np.dtype(p.dtype).kind != "f":
            p = p.astype(np.float64)
        if replace:
            cum = tnp.cumsum(p)
            r = cum[-1] * (1 - uniform(key, shape, p.dtype))
            ind = tnp.searchsorted(cum, r).astype(np.int64)
        else:
            g = gumbel(key, (n,), p.dtype) + tnp.log(p)
            ind = ops.argsort(-g, 0, kind="stable")[:draws].astype(np.int64)
    ind = tnp.reshape(ind, (draws,))
    if scalar:
        return tnp.reshape(ind, shape)
    out = tnp.take(arr, ind, axis=axis)
    return tnp.reshape(out, tuple(arr.shape[:axis]) + shape + tuple(arr.shape[axis + 1:]))


def multivariate_normal(key, mean, cov, shape=None, dtype=np.float64, method="cholesky"):
    """Normal vectors with mean ``mean`` and covariance ``cov``, as
    ``jax.random.multivariate_normal``: ``mean + factor @ z`` for standard
    normal ``z`` and ``factor @ factor.T = cov``; differentiable in ``mean``
    and ``cov``.

    Parameters
    ----------
    mean : array of shape (..., n)
    cov : array of shape (..., n, n), symmetric positive (semi-)definite
    shape : tuple of ints, optional
        The batch shape (default: ``mean``'s and ``cov``'s broadcast batch shapes).
    method : "cholesky", "eigh" or "svd"
        How ``factor`` is computed (``eigh``/``svd`` allow singular ``cov``).

    Returns
    -------
    array of shape ``shape + (n,)``

    Raises
    ------
    ValueError
        For ``mean`` of rank 0, ``cov`` not ``(..., n, n)``, or an unknown method.
    """
    key = _check_key("multivariate_normal", key)
    dtype = _float_dtype("multivariate_normal", dtype)
    mean, cov = tnp.asarray(mean).astype(dtype), tnp.asarray(cov).astype(dtype)
    if mean.ndim < 1:
        raise ValueError("random.multivariate_normal needs mean of shape (..., n)")
    n = mean.shape[-1]
    if cov.ndim < 2 or tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"random.multivariate_normal needs cov of shape (..., {n}, {n}), "
                         f"got {tuple(cov.shape)}")
    if shape is None:
        shape = np.broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    shape = _shape("multivariate_normal", shape)
    if method == "cholesky":
        factor = tnp_linalg.cholesky(cov)
    elif method == "eigh":
        w, v = tnp_linalg.eigh(cov)
        factor = v * tnp.sqrt(w[..., None, :])
    elif method == "svd":
        u, sv, _ = tnp_linalg.svd(cov)
        factor = u * tnp.sqrt(sv[..., None, :])
    else:
        raise ValueError(f"random.multivariate_normal: method must be 'cholesky', 'eigh' or "
                         f"'svd', got {method!r}")
    z = normal(key, shape + (n,), dtype)
    return mean + tnp.einsum("...ij,...j->...i", factor, z)


def _param(name, x, dtype):
    """A real parameter as an array (or tracer) of ``dtype``."""
    x = x if isinstance(x, Tracer) else np.asarray(x)
    if np.dtype(x.dtype).kind not in "biuf":
        raise TypeError(f"random.{name}: parameters must be real numbers, got dtype {x.dtype}")
    return tnp.asarray(x).astype(dtype)


def _check_broadcast(name, shape, *params):
    """``shape`` (default: the parameters' broadcast shape), which every
    parameter must broadcast to (``jax.random``'s ``_check_shape``)."""
    shapes = [tuple(p.shape) for p in params]
    if shape is None:
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"random.{name}: the parameters' shapes {shapes} do not "
                             "broadcast together") from None
    shape = _shape(name, shape)
    try:
        ok = np.broadcast_shapes(shape, *shapes) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"random.{name}: shape {shape} is incompatible with the parameters' "
                         f"shapes {shapes}: each must broadcast to shape")
    return shape


def _gamma(name, key, a, shape, dtype, log_space):
    key = _check_key(name, key)
    dtype = _float_dtype(name, dtype)
    a = _param(name, a, dtype)
    shape = _check_broadcast(name, shape, a)
    if tuple(a.shape) != shape:
        a = tnp.broadcast_to(a, shape)
    return _rp.random_gamma(key, a, log_space)


def gamma(key, a, shape=None, dtype=np.float64):
    """Standard gamma samples (density ``x**(a-1) exp(-x) / Gamma(a)``), as
    ``jax.random.gamma``.

    Marsaglia and Tsang's method ("A simple method for generating gamma
    variables", ACM TOMS 26(3), 2000), each element drawn with its own key
    (``split(key, size)``) and ``a < 1`` boosted by ``U**(1/a)``; the same
    key splits and counters as JAX, so the samples equal JAX's to a few ulp.
    Differentiable in ``a`` by implicit reparameterization (``dx/da =
    -(dP/da) / p(x)`` at the sample's quantile), to first order.  Divide by
    a rate (multiply by a scale) for other gamma distributions.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    a : array_like or tracer
        Shape parameter, broadcastable to ``shape``; ``a <= -1/3`` (and NaN)
        give NaN, as in JAX (for ``-1/3 < a <= 0`` JAX's formula gives
        meaningless finite numbers, reproduced).
    shape : tuple of ints, optional
        Default ``a``'s shape.
    dtype : float32 or float64

    Returns
    -------
    array of ``dtype`` and ``shape``, ``>= 0`` (tiny ``a`` underflows to 0:
    use :func:`loggamma`)

    Raises
    ------
    TypeError
        For a bad key or dtype.
    ValueError
        If ``a`` does not broadcast to ``shape``.
    """
    return _gamma("gamma", key, a, shape, dtype, False)


def loggamma(key, a, shape=None, dtype=np.float64):
    """The logarithms of :func:`gamma` samples, computed in log space
    (accurate where tiny ``a`` makes the samples underflow), as
    ``jax.random.loggamma``; same parameters, and ``exp(loggamma(key, a))``
    equals ``gamma(key, a)`` up to rounding."""
    return _gamma("loggamma", key, a, shape, dtype, True)


def beta(key, a, b, shape=None, dtype=np.float64):
    """Beta samples (density ``x**(a-1) (1-x)**(b-1) / B(a, b)``), as
    ``jax.random.beta``: ``G_a / (G_a + G_b)`` for independent gamma samples,
    drawn in log space with keys ``split(key)`` and normalized by their
    maximum so tiny ``a``, ``b`` keep precision.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    a, b : array_like or tracer
        Positive shape parameters, broadcastable to ``shape`` (default their
        broadcast shape); negative ones give NaN.
    dtype : float32 or float64

    Returns
    -------
    array of ``dtype`` and ``shape`` in [0, 1]; differentiable in ``a`` and ``b``.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` does not broadcast to ``shape``.
    """
    key = _check_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    a, b = _param("beta", a, dtype), _param("beta", b, dtype)
    shape = _check_broadcast("beta", shape, a, b)
    key_a, key_b = split(key)
    log_a = loggamma(key_a, tnp.broadcast_to(a, shape), shape, dtype)
    log_b = loggamma(key_b, tnp.broadcast_to(b, shape), shape, dtype)
    log_max = tnp.maximum(log_a, log_b)
    ga, gb = tnp.exp(log_a - log_max), tnp.exp(log_b - log_max)
    return ga / (ga + gb)


def dirichlet(key, alpha, shape=None, dtype=np.float64):
    """Dirichlet samples, as ``jax.random.dirichlet``: the softmax over the
    last axis of log-space gamma samples of ``alpha``.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    alpha : array_like or tracer of shape (..., k), k >= 1
        Positive concentrations (negative ones give NaN).
    shape : tuple of ints, optional
        The batch shape, to which ``alpha.shape[:-1]`` must broadcast
        (default ``alpha.shape[:-1]``).
    dtype : float32 or float64

    Returns
    -------
    array of ``dtype`` and shape ``shape + (k,)``, summing to 1 over the last
    axis; differentiable in ``alpha``.

    Raises
    ------
    ValueError
        If ``alpha`` has rank 0 or its batch shape does not broadcast to ``shape``.
    """
    key = _check_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    alpha = _param("dirichlet", alpha, dtype)
    if alpha.ndim < 1:
        raise ValueError("random.dirichlet needs alpha of shape (..., k) (rank >= 1), got "
                         "a scalar")
    batch = tuple(alpha.shape[:-1])
    if shape is None:
        shape = batch
    else:
        shape = _shape("dirichlet", shape)
        try:
            ok = np.broadcast_shapes(shape, batch) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"random.dirichlet: shape {shape} is incompatible with alpha's "
                             f"batch shape {batch}: it must broadcast to shape")
    full = shape + tuple(alpha.shape[-1:])
    log_g = loggamma(key, alpha, full, dtype)
    e = tnp.exp(log_g - ops.stop_gradient(tnp.max(log_g, axis=-1, keepdims=True)))
    return e / tnp.sum(e, axis=-1, keepdims=True)


def poisson(key, lam, shape=None, dtype=np.int64):
    """Poisson samples of rate ``lam``, as ``jax.random.poisson``: Knuth's
    multiplication method for ``lam < 10``, Hormann's transformed rejection
    ("The transformed rejection method for generating Poisson random
    variables", 1993) above; ``lam`` is rounded to float32 first, as in JAX,
    and the same keys and counters give JAX's integers.

    Parameters
    ----------
    key : uint32 array, shape (2,)
    lam : array_like or tracer
        Rates ``>= 0``, broadcastable to ``shape`` (default ``lam``'s shape).
        ``lam = 0`` gives 0; a negative or NaN rate gives -1 (as JAX's does).
    dtype : integer dtype

    Returns
    -------
    array of ``dtype`` and ``shape`` (no derivative)

    Raises
    ------
    TypeError
        For a non-integer ``dtype`` or a bad key.
    ValueError
        If ``lam`` does not broadcast to ``shape``.
    """
    key = _check_key("poisson", key)
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"random.poisson samples integers, got dtype {dtype}")
    lam = _param("poisson", lam, np.float32)
    shape = _check_broadcast("poisson", shape, lam)
    if tuple(lam.shape) != shape:
        lam = tnp.broadcast_to(lam, shape)
    return _rp.random_poisson(key, lam, dtype)
