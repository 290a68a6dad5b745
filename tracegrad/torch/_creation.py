"""Tensor creation: ``tensor``, ``zeros``, ``arange``, ``randn``, ... (PyTorch's signatures).

Created tensors are leaves.  Python floats become the default dtype
(float32), ints int64, bools bool; NumPy arrays and scalars keep their dtype.
Random tensors come from a NumPy generator seeded by :func:`manual_seed`
(the values differ from PyTorch's generator, the distributions do not).
"""
import numbers
import threading
import warnings

import numpy as np

from . import _dtype
from ._tensor import COMPLEX_GRAD, Size, Tensor, check_device

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye",
    "arange", "linspace", "logspace", "rand", "randn", "randint", "randperm", "normal",
    "manual_seed", "seed", "initial_seed", "zeros_like", "ones_like", "full_like",
    "empty_like", "rand_like", "randn_like", "randint_like", "is_tensor", "numel",
    "Generator", "default_generator", "get_rng_state", "set_rng_state",
]


def _infer_dtype(data):
    """PyTorch's dtype for Python data: bool < int64 < default float < complex."""
    kinds = set()
    stack = [data]
    while stack:
        d = stack.pop()
        if isinstance(d, (list, tuple)):
            stack.extend(d)
        elif isinstance(d, Tensor):
            kinds.add(d._data.dtype.kind)
        elif isinstance(d, np.ndarray) or isinstance(d, np.generic):
            kinds.add(np.asarray(d).dtype.kind)
        elif isinstance(d, bool):
            kinds.add("b")
        elif isinstance(d, numbers.Integral):
            kinds.add("i")
        elif isinstance(d, numbers.Real):
            kinds.add("f")
        elif isinstance(d, numbers.Complex):
            kinds.add("c")
        else:
            raise TypeError(f"Could not infer dtype of {type(d).__name__}")
    if "c" in kinds:
        return _dtype.complex128 if _dtype.get_default_dtype() == _dtype.float64 else _dtype.complex64
    if "f" in kinds:
        return _dtype.get_default_dtype()
    if "i" in kinds or "u" in kinds:
        return _dtype.int64
    if "b" in kinds:
        return _dtype.bool
    return _dtype.get_default_dtype()


def _to_array(data, dt):
    if isinstance(data, Tensor):
        return np.array(data._data, dtype=dt.dtype)
    if isinstance(data, (list, tuple)):
        data = _untensor(data)
    return np.array(data, dtype=dt.dtype)


def _untensor(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_untensor(d) for d in data]
    return data


def _leaf(arr, requires_grad):
    t = Tensor._wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        if arr.dtype.kind == "c":
            raise NotImplementedError(COMPLEX_GRAD)
        t._requires_grad = True
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor copying ``data`` (nested lists, scalars, arrays, tensors).

    Parameters
    ----------
    data : array_like
    dtype : dtype, optional
        Default: inferred (Python floats -> the default dtype, ints -> int64,
        bools -> bool; NumPy data keeps its dtype).
    device : 'cpu' or None
    requires_grad : bool, optional

    Raises
    ------
    RuntimeError
        If ``requires_grad`` is set for a non-floating dtype, or a device
        other than the CPU is requested.
    """
    check_device(device)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
            "requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning, stacklevel=2,
        )
    if dtype is not None:
        dt = _dtype.as_dtype(dtype)
    elif isinstance(data, (np.ndarray, np.generic)):
        dt = _dtype.as_dtype(np.asarray(data).dtype)
    elif isinstance(data, Tensor):
        dt = data.dtype
    else:
        dt = _infer_dtype(data)
    arr = _to_array(data, dt)
    if requires_grad and arr.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _leaf(arr, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """A tensor sharing ``data``'s memory when it is a NumPy array of the right dtype."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtype.as_dtype(dtype).dtype == data.dtype):
        return Tensor._wrap(data)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """A tensor sharing ``ndarray``'s memory (changes show in both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.as_dtype(ndarray.dtype)
    return Tensor._wrap(ndarray)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple, Size)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _dt(dtype):
    return _dtype.get_default_dtype() if dtype is None else _dtype.as_dtype(dtype)


def _factory(fill):
    def make(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None,
             pin_memory=False):
        check_device(device)
        dt = _dt(dtype)
        return _leaf(fill(_size(size), dt.dtype), requires_grad)

    return make


zeros = _factory(np.zeros)
ones = _factory(np.ones)
empty = _factory(np.zeros)  # initialized to zeros (deterministic)
zeros.__name__, ones.__name__, empty.__name__ = "zeros", "ones", "empty"
zeros.__doc__ = "A tensor of zeros of the given size (default dtype float32)."
ones.__doc__ = "A tensor of ones of the given size (default dtype float32)."
empty.__doc__ = "A tensor of the given size (tracegrad fills it with zeros)."


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    check_device(device)
    dt = _infer_dtype(fill_value) if dtype is None else _dtype.as_dtype(dtype)
    return _leaf(np.full(_size((size,)) if isinstance(size, int) else tuple(size), fill_value,
                         dtype=dt.dtype), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The ``n x m`` identity matrix."""
    check_device(device)
    return _leaf(np.eye(n, m, dtype=_dt(dtype).dtype), requires_grad)


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``[start, end)`` with ``step``; int64 for integer arguments, else the default dtype."""
    check_device(device)
    if end is None:
        start, end = 0, start
    if dtype is None:
        dt = _infer_dtype([start, end, step])
    else:
        dt = _dtype.as_dtype(dtype)
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    return _leaf(np.arange(*vals, dtype=np.float64).astype(dt.dtype) if dt.is_floating_point
                 else np.arange(*vals).astype(dt.dtype), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    check_device(device)
    dt = _dt(dtype).dtype
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps <= 1:
        return _leaf(np.full(steps, start, dtype=dt), requires_grad)
    # PyTorch's arithmetic, in the result's precision: the first half counts up
    # from start, the second half down from end (so both ends are exact).
    work = dt if dt.kind == "f" else np.dtype(np.float64)
    lo, hi = work.type(start), work.type(end)
    step = (hi - lo) / work.type(steps - 1)
    idx = np.arange(steps)
    half = steps // 2
    out = np.empty(steps, dtype=work)
    out[:half] = lo + step * idx[:half].astype(work)
    out[half:] = hi - step * (steps - 1 - idx[half:]).astype(work)
    return _leaf(out.astype(dt), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    check_device(device)
    return _leaf(np.logspace(float(start), float(end), int(steps), base=base).astype(
        _dt(dtype).dtype), requires_grad)


class _Randomness(threading.local):
    """The ``randomness`` of the innermost running ``torch.func.vmap`` (None
    outside one)."""

    mode = None


randomness = _Randomness()


class Generator:
    """A random number generator (NumPy's PCG64 underneath)."""

    def __init__(self, device="cpu"):
        check_device(device)
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    @property
    def _rng(self):
        mode = randomness.mode
        if mode == "error":
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
        if mode == "different":
            raise NotImplementedError(
                "tracegrad.torch.func.vmap does not support randomness='different' (one draw "
                "per batch element): use randomness='same' (one draw for the whole batch) or "
                "draw the random values outside vmap and map over them")
        return self._np_rng

    @_rng.setter
    def _rng(self, rng):
        self._np_rng = rng

    def manual_seed(self, seed):
        """Reseed; returns ``self``."""
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(s)
        return s

    def get_state(self):
        return self._np_rng.bit_generator.state

    def set_state(self, state):
        self._np_rng.bit_generator.state = state


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator (reproducible ``rand``/``randn``/``randint``/``nn.init``)."""
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state."""
    return default_generator.get_state()


def set_rng_state(state):
    """Restore a state from :func:`get_rng_state`."""
    default_generator.set_state(state)


def _rng(generator):
    return (generator or default_generator)._rng


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples on ``[0, 1)``."""
    check_device(device)
    dt = _dt(dtype)
    return _leaf(_rng(generator).random(_size(size)).astype(dt.dtype), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples."""
    check_device(device)
    dt = _dt(dtype)
    return _leaf(_rng(generator).standard_normal(_size(size)).astype(dt.dtype), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Uniform integers on ``[low, high)`` (``randint(high, size)`` also works)."""
    check_device(device)
    if size is None:
        low, high, size = 0, low, high
    if isinstance(high, tuple) and size is None:
        raise TypeError("randint() missing required argument 'size'")
    dt = _dtype.int64 if dtype is None else _dtype.as_dtype(dtype)
    return _leaf(_rng(generator).integers(low, high, size=tuple(size)).astype(dt.dtype),
                 requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None):
    """A random permutation of ``0 .. n-1``."""
    check_device(device)
    dt = _dtype.int64 if dtype is None else _dtype.as_dtype(dtype)
    return Tensor._wrap(_rng(generator).permutation(int(n)).astype(dt.dtype))


def normal(mean, std, size=None, *, generator=None):
    """Normal samples with the given mean and standard deviation."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = tuple(size) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    dt = _dtype.get_default_dtype()
    return Tensor._wrap((m + s * _rng(generator).standard_normal(shape)).astype(dt.dtype))


def _like(fill):
    def make(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
        check_device(device)
        dt = input.dtype if dtype is None else _dtype.as_dtype(dtype)
        return _leaf(fill(input._data.shape, dt.dtype), requires_grad)

    return make


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = _like(np.zeros)
zeros_like.__name__, ones_like.__name__, empty_like.__name__ = "zeros_like", "ones_like", "empty_like"
zeros_like.__doc__ = "Zeros shaped like ``input`` (its dtype unless ``dtype`` is given)."
ones_like.__doc__ = "Ones shaped like ``input`` (its dtype unless ``dtype`` is given)."
empty_like.__doc__ = "A tensor shaped like ``input`` (filled with zeros)."


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``fill_value`` shaped like ``input``."""
    check_device(device)
    dt = input.dtype if dtype is None else _dtype.as_dtype(dtype)
    return _leaf(np.full(input._data.shape, fill_value, dtype=dt.dtype), requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    """Uniform samples shaped like ``input``."""
    return rand(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    """Normal samples shaped like ``input``."""
    return randn(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None):
    """Random integers shaped like ``input``."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype)


def is_tensor(obj):
    """True for a tensor."""
    return isinstance(obj, Tensor)


def numel(input):
    """Number of elements of ``input``."""
    return input.numel()
