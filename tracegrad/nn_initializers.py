"""``tracegrad.nn.initializers``: weight initializers with ``jax.nn.initializers``' names.

Each factory (``normal(stddev)``, ``glorot_uniform()``, ...) returns an
initializer ``init(key, shape, dtype=None) -> ndarray``; ``zeros`` and
``ones`` are initializers themselves, as in JAX:

>>> import numpy as np
>>> from tracegrad.nn import initializers
>>> w = initializers.glorot_normal()(np.random.default_rng(0), (3, 4))
>>> w.shape, w.dtype
((3, 4), dtype('float64'))
>>> initializers.zeros(0, (2,))
array([0., 0.])

tracegrad has no keyed (splittable, counter-based) random number generator
yet, so ``key`` is a ``numpy.random.Generator`` (which advances: two calls
give different arrays) or an integer seed (the same seed, the same array).
The arrays are therefore not JAX's bit for bit, only drawn from the same
distributions.  The default dtype is float64, tracegrad's default float
(JAX's is float32 unless x64 is enabled).
"""
import math
import numbers
import operator

import numpy as np

__all__ = [
    "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform",
    "normal", "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling",
    "xavier_normal", "xavier_uniform", "zeros",
]


def _rng(key):
    if isinstance(key, np.random.Generator):
        return key
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return np.random.default_rng(int(key))
    raise TypeError(
        f"initializer key must be a numpy.random.Generator or an integer seed, got "
        f"{type(key).__name__}; tracegrad has no keyed PRNG yet (pass "
        "np.random.default_rng(seed))."
    )


def _shape(shape):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    return tuple(operator.index(d) for d in shape)


def _dtype(dtype):
    dt = np.dtype(np.float64 if dtype is None else dtype)
    if dt.kind not in "fc":
        raise TypeError(f"initializers make float or complex arrays, got dtype {dt}.")
    return dt


def zeros(key, shape, dtype=None):
    """An array of zeros (the key is accepted and not used).

    Parameters
    ----------
    key : numpy.random.Generator or int
    shape : int or tuple of ints
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    ndarray
    """
    return np.zeros(_shape(shape), _dtype(dtype))


def ones(key, shape, dtype=None):
    """An array of ones (the key is accepted and not used).

    Parameters
    ----------
    key : numpy.random.Generator or int
    shape : int or tuple of ints
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    ndarray
    """
    return np.ones(_shape(shape), _dtype(dtype))


def constant(value, dtype=None):
    """An initializer filling arrays with ``value``.

    Parameters
    ----------
    value : array_like
        Broadcast to the requested shape.
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.
    """
    def init(key, shape, dtype=dtype):
        return np.array(np.broadcast_to(np.asarray(value, _dtype(dtype)), _shape(shape)))

    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing from ``N(0, stddev**2)``.

    Parameters
    ----------
    stddev : float, optional
        Default 0.01.
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.
    """
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return (_rng(key).standard_normal(_shape(shape)) * stddev).astype(dt)

    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer drawing uniformly from ``[0, scale)`` (JAX's range).

    Parameters
    ----------
    scale : float, optional
        Default 0.01.
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.
    """
    def init(key, shape, dtype=dtype):
        return (_rng(key).random(_shape(shape)) * scale).astype(_dtype(dtype))

    return init


def _truncated_standard_normal(rng, lower, upper, shape):
    """Standard normal samples conditioned on ``[lower, upper]`` (by rejection)."""
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(n)
    filled = 0
    while filled < n:
        draw = rng.standard_normal(max(2 * (n - filled), 16))
        draw = draw[(draw >= lower) & (draw <= upper)][: n - filled]
        out[filled:filled + draw.size] = draw
        filled += draw.size
    return out.reshape(shape)


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer drawing ``stddev * z``, ``z`` a standard normal truncated to ``[lower, upper]``.

    Parameters
    ----------
    stddev : float, optional
        Default 0.01 (the standard deviation before truncation).
    dtype : dtype, optional
        Default float64.
    lower, upper : float, optional
        Truncation bounds in standard deviations (default -2, 2).

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.

    Raises
    ------
    ValueError
        (when called) if ``lower >= upper``.
    """
    def init(key, shape, dtype=dtype):
        if not lower < upper:
            raise ValueError(f"truncated_normal: lower={lower} must be below upper={upper}.")
        z = _truncated_standard_normal(_rng(key), lower, upper, _shape(shape))
        return (z * stddev).astype(_dtype(dtype))

    return init


def _fans(shape, in_axis, out_axis, batch_axis):
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"variance scaling: a {len(shape)}-dimensional shape has no input axis -2; "
            "use at least 2 dimensions or pass in_axis explicitly.")

    def size(axes):
        return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)

    fan_in_size, fan_out_size, batch = size(in_axis), size(out_axis), size(batch_axis)
    receptive = math.prod(shape) / fan_in_size / fan_out_size / batch
    return fan_in_size * receptive, fan_out_size * receptive


# standard deviation of a standard normal truncated to [-2, 2]
_TRUNC_STD = 0.87962566103423978


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """An initializer with variance ``scale / n``, ``n`` a fan of the shape.

    Parameters
    ----------
    scale : float
    mode : {"fan_in", "fan_out", "fan_avg", "fan_geo_avg"}
        ``n``: the input size, the output size, their mean or their
        geometric mean, each times the receptive field size (the product
        of the other, non-batch axes).
    distribution : {"truncated_normal", "normal", "uniform"}
        A normal truncated to two standard deviations (rescaled to the
        variance), a normal, or a uniform on ``[-a, a]`` with
        ``a = sqrt(3 scale / n)``.
    in_axis, out_axis : int or sequence of ints, optional
        The input and output axes (default -2 and -1).
    batch_axis : int or sequence of ints, optional
        Axes left out of the fans (default none).
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.

    Raises
    ------
    ValueError
        (when called) for an unknown ``mode`` or ``distribution``, or a
        shape of fewer than 2 dimensions with the default ``in_axis``.
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        denominators = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                        "fan_geo_avg": math.sqrt(fan_in * fan_out)}
        if mode not in denominators:
            raise ValueError(f"variance_scaling: invalid mode {mode!r}; use one of "
                             f"{sorted(denominators)}.")
        variance = scale / denominators[mode]
        rng = _rng(key)
        if distribution == "truncated_normal":
            z = _truncated_standard_normal(rng, -2.0, 2.0, shape)
            w = z * (math.sqrt(variance) / _TRUNC_STD)
        elif distribution == "normal":
            w = rng.standard_normal(shape) * math.sqrt(variance)
        elif distribution == "uniform":
            w = rng.uniform(-1.0, 1.0, shape) * math.sqrt(3.0 * variance)
        else:
            raise ValueError(f"variance_scaling: invalid distribution {distribution!r}; use "
                             "'truncated_normal', 'normal' or 'uniform'.")
        return w.astype(dt)

    return init


def _scaled(scale, mode, distribution, doc):
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    factory.__doc__ = f"""{doc}

    Parameters
    ----------
    in_axis, out_axis, batch_axis, dtype
        As in :func:`variance_scaling`.

    Returns
    -------
    callable
        ``variance_scaling({scale}, {mode!r}, {distribution!r}, ...)``.
    """
    return factory


glorot_uniform = _scaled(1.0, "fan_avg", "uniform",
                         "Glorot (Xavier) uniform initializer (Glorot and Bengio, 2010).")
glorot_normal = _scaled(1.0, "fan_avg", "truncated_normal",
                        "Glorot (Xavier) normal initializer (a truncated normal, as in JAX).")
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "LeCun uniform initializer (LeCun et al., 1998).")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal",
                       "LeCun normal initializer (a truncated normal, as in JAX).")
he_uniform = _scaled(2.0, "fan_in", "uniform", "He (Kaiming) uniform initializer (He et al., 2015).")
he_normal = _scaled(2.0, "fan_in", "truncated_normal",
                    "He (Kaiming) normal initializer (a truncated normal, as in JAX).")
for _f, _n in ((glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"),
               (lecun_uniform, "lecun_uniform"), (lecun_normal, "lecun_normal"),
               (he_uniform, "he_uniform"), (he_normal, "he_normal")):
    _f.__name__ = _f.__qualname__ = _n
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of (semi-)orthogonal matrices times ``scale``.

    Parameters
    ----------
    scale : float, optional
        Default 1.
    column_axis : int, optional
        The axis of the columns (default the last); the other axes together
        are the rows.  With ``rows >= columns`` the columns are orthonormal,
        otherwise the rows are.
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray``.

    Raises
    ------
    ValueError
        (when called) for a shape of fewer than 2 dimensions.

    Notes
    -----
    A Haar-distributed orthogonal matrix: the QR factor of a Gaussian
    matrix with the signs of ``r``'s diagonal moved into ``q`` (Mezzadri,
    2007, "How to generate random matrices from the classical compact
    groups").
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError(f"orthogonal initializer needs at least a 2-D shape, got {shape}.")
        if 0 in shape:
            return np.zeros(shape, dt)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        a = _rng(key).standard_normal((max(n_rows, n_cols), min(n_rows, n_cols)))
        q, r = np.linalg.qr(a)
        q = q * np.where(np.diagonal(r) < 0, -1.0, 1.0)
        if n_rows < n_cols:
            q = q.T
        q = q.reshape(tuple(np.delete(np.array(shape), column_axis % len(shape))) + (n_cols,))
        return (scale * np.moveaxis(q, -1, column_axis)).astype(dt)

    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer for convolution kernels: an orthogonal matrix at the spatial centre, zeros elsewhere.

    Parameters
    ----------
    scale : float, optional
        Default 1.
    column_axis : int, optional
        Passed to :func:`orthogonal` for the ``(in, out)`` matrix.
    dtype : dtype, optional
        Default float64.

    Returns
    -------
    callable
        ``init(key, shape, dtype=dtype) -> ndarray`` for a 3-, 4- or 5-D
        shape ``(*spatial, in, out)``.

    Raises
    ------
    ValueError
        (when called) for another number of dimensions, or ``in > out``.

    Notes
    -----
    Xiao et al. (2018), "Dynamical Isometry and a Mean Field Theory of
    CNNs".
    """
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal needs a 3-, 4- or 5-D shape, got {shape}.")
        if shape[-1] < shape[-2]:
            raise ValueError(f"delta_orthogonal: in ({shape[-2]}) must not exceed out "
                             f"({shape[-1]}).")
        w = np.zeros(shape, dt)
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        w[centre] = orthogonal(scale, column_axis, dt)(key, shape[-2:])
        return w

    return init
