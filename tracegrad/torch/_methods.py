"""``Tensor`` methods: operators, indexing, in-place operations, dtype shortcuts.

In-place operations follow PyTorch's rules: refused on a leaf that requires
grad (outside ``no_grad``), recorded otherwise (the tensor takes the new
node as its ``grad_fn``), and every in-place write bumps the tensor's version
counter, shared with its views and ``detach()``, so a backward pass that
needs the old value raises instead of computing a wrong gradient.  A write
to a tensor regenerates the ``grad_fn`` of its live views from the tensor's
new one (``AsStridedBackward0``, as PyTorch); writing in place to a view of
a tensor that requires grad is refused (PyTorch rebases the base's graph).
"""
import numbers

import numpy as np

from .. import numpy as tnp
from ..numpy._indexing import _IndexUpdateHelper
from ..numpy._indexing import getitem as np_getitem
from ..primitives import ops
from ..primitives import elementwise as _pel
from ..primitives import structural as _pst
from . import _creation, _dtype, _grad_mode, _ops
from ._autograd import _EMPTY, _derived_edges, apply, group
from ._tensor import Tensor, VersionCounter
from .autograd.function import BackwardCFunction

__all__ = ["install"]


# what the operators take as the other operand (else Python's TypeError, as PyTorch)
# float and int first: an isinstance check against the numbers.Number ABC costs ~0.3 us
_OPERANDS = (Tensor, float, int, numbers.Number, np.ndarray, np.generic, list, tuple)


def _binop(fn, reflected=False):
    if reflected:
        def method(self, other):
            if not isinstance(other, _OPERANDS):
                return NotImplemented
            return fn(other, self) if isinstance(other, Tensor) else _reflect(fn, self, other)
    else:
        def method(self, other):
            if not isinstance(other, _OPERANDS):
                return NotImplemented
            return fn(self, other)
    return method


def _arith(fn, prim, name, commutes=False):
    """The operator method of ``fn`` (``_ops.add``, ``sub`` or ``mul``), with
    the common case inlined: a float tensor with a Python number, or two
    tensors of one dtype, contiguous or of rank < 2 (nothing to promote and no
    layout to restore).  ``commutes``: the reflected operator of a commutative
    ``fn``, recorded with the tensor first as the forward one is."""

    def method(self, other):
        d = self._data
        if type(d) is np.ndarray and (d.ndim < 2 or d.flags.c_contiguous):
            t = type(other)
            if t is float or t is int:
                if d.dtype.kind in _ops._FAST_SCALARS[t]:
                    return apply(prim, name, (self, other), _EMPTY, 1)
            elif t is Tensor:
                e = other._data
                if (type(e) is np.ndarray and e.dtype == d.dtype
                        and (e.ndim < 2 or e.flags.c_contiguous) and e.shape == d.shape):
                    return apply(prim, name, (other, self) if commutes else (self, other))
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        if not commutes:
            return fn(self, other)
        return fn(other, self) if isinstance(other, Tensor) else fn(self, other)

    return method


def _reflect(fn, self, other):
    if fn is _ops.sub:
        return _ops.rsub(self, other)
    if fn is _ops.div:
        recip = _ops.reciprocal(self)
        return _ops.mul(recip, other)
    if fn is _ops.pow:
        return _ops.pow(other, self)
    if fn in (_ops.remainder, _ops.floor_divide, _ops.atan2):
        return fn(_ops._tensor_arg(other), self)
    return fn(self, other)


# --------------------------------------------------------------------------
# indexing


def _normalize_index(idx):
    if not isinstance(idx, tuple):
        idx = (idx,)
    out = []
    for i in idx:
        if isinstance(i, Tensor):
            i = i._data
            if i.dtype.kind == "b" or i.ndim > 0:
                out.append(i)
            else:
                out.append(int(i))
        elif isinstance(i, list):
            out.append(np.asarray([j._data if isinstance(j, Tensor) else j for j in i]))
        else:
            out.append(i)
    return tuple(out)


def _index_name(idx):
    if any(isinstance(i, np.ndarray) for i in idx):
        return "IndexBackward0"
    if any(isinstance(i, slice) for i in idx):
        return "SliceBackward0"
    if all(isinstance(i, (int, np.integer)) for i in idx):
        return "SelectBackward0"
    if any(i is None for i in idx):
        return "UnsqueezeBackward0"
    return "AliasBackward0"


def getitem(self, idx):
    """``self[idx]`` with NumPy/PyTorch indexing (basic indexing returns a view).

    As PyTorch, the basic indices (integers, slices, ``None``, ``...``) are
    applied one after the other, each a view operation of its own
    (``SelectBackward0``, ``SliceBackward0``, ``UnsqueezeBackward0``), then the
    tensor indices all at once (``IndexBackward0``).
    """
    single_slice = isinstance(idx, slice)
    idx = _normalize_index(idx)
    if any(isinstance(i, (bool, np.bool_)) or (isinstance(i, np.ndarray) and i.ndim == 0)
           for i in idx):
        out = _ops._composite(_index_name(idx), np_getitem, [self], self, idx)
        return out if _has_tensor_index(idx) else _ops._view_of(out, self)
    used = sum(_dims_indexed(i) for i in idx)
    x, d, tensor_indices = self, 0, []
    for i in idx:
        if i is None:
            x = _ops.unsqueeze(x, d)
            d += 1
        elif i is Ellipsis:
            d += self._data.ndim - used
        elif isinstance(i, slice):
            x = _slice(x, d, i, single_slice)
            d += 1
        elif isinstance(i, np.ndarray):
            tensor_indices.append((d, i))
            d += _dims_indexed(i)
        else:
            x = _ops.select(x, d, i)
    if tensor_indices:
        full, at = [], 0
        for dim, i in tensor_indices:
            full += [slice(None)] * (dim - at) + [i]
            at = dim + _dims_indexed(i)
        return _ops._composite("IndexBackward0", np_getitem, [x], x, tuple(full))
    if x is self:  # nothing indexed: PyTorch returns an alias
        x = _ops._view_of(_ops._apply(_pst.reshape_p, "AliasBackward0", (self,),
                                      {"shape": self._data.shape}), self)
    return x


def _has_tensor_index(idx):
    return any(isinstance(i, np.ndarray) for i in idx)


def _dims_indexed(i):
    """How many dimensions index ``i`` consumes."""
    if i is None or i is Ellipsis:
        return 0
    if isinstance(i, np.ndarray) and i.dtype.kind == "b":
        return i.ndim
    return 1


def _slice(x, d, sl, keep_full):
    """``x[..., sl]`` along dimension ``d`` (a full slice is skipped unless ``keep_full``)."""
    n = x._data.shape[d]
    start, stop, step = sl.indices(n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if start == 0 and stop == n and step == 1 and not keep_full:
        return x
    starts, limits = [0] * x._data.ndim, list(x._data.shape)
    strides = [1] * x._data.ndim
    starts[d], limits[d], strides[d] = start, max(stop, start), step
    out = _ops._apply(_pst.slice_p, "SliceBackward0", (x,),
                      {"start_indices": tuple(starts), "limit_indices": tuple(limits),
                       "strides": tuple(strides)})
    return _ops._view_of(out, x)


def setitem(self, idx, value):
    """``self[idx] = value``: an in-place update (grad_fn ``CopySlices``, or
    ``IndexPutBackward0`` for tensor indices)."""
    idx = _normalize_index(idx)
    if isinstance(value, (list, tuple)):
        value = _ops._tensor_arg(value)
    if _whole(idx, self._data.shape):
        # PyTorch writes the whole tensor with copy_ (fill_ for a number or a 0-d tensor)
        if not isinstance(value, Tensor):
            value = Tensor._wrap(np.asarray(value, self._data.dtype))
        if value._data.ndim == 0 and self._data.ndim:
            return fill_(self, value)
        return copy_(self, _broadcast_value(value, self._data.shape))
    if any(isinstance(i, np.ndarray) and i.ndim for i in idx):
        name = "IndexPutBackward0"
    else:
        name = _COPY_SLICES
        if isinstance(value, Tensor) and _ops._needs_grad(value):
            value = _broadcast_value(value, self._data[idx].shape)

    def fn(x, v):
        return _IndexUpdateHelper(x)[idx].set(_ops._cast(v, self._data.dtype) if isinstance(v, Tensor) else v)

    return _inplace(self, fn, value, reads_self=False, name=name, cast=True)


def _whole(idx, shape):
    """True if the basic index ``idx`` selects all of a tensor of ``shape``
    (slices over whole dimensions and ``...`` only)."""
    if not all(i is Ellipsis or isinstance(i, slice) for i in idx):
        return False
    slices = [i for i in idx if i is not Ellipsis]
    if len(slices) > len(shape):
        return False
    if Ellipsis in idx:
        k = idx.index(Ellipsis)
        dims = list(range(k)) + list(range(len(shape) - (len(idx) - k - 1), len(shape)))
    else:
        dims = range(len(slices))
    return all(sl.indices(shape[d]) == (0, shape[d], 1) for sl, d in zip(slices, dims))


def _broadcast_value(value, shape):
    """``value`` shaped for a slice of ``shape`` as PyTorch's ``copy_to`` does it:
    a 0-d value as it is, another one viewed without its leading ones, then
    expanded."""
    vshape = value._data.shape
    if vshape == shape or not vshape:
        return value
    k = 0
    while k < len(vshape) and vshape[k] == 1:
        k += 1
    value = _ops.view(value, vshape[k:])
    return _ops.expand(value, shape) if value._data.shape != shape else value


# --------------------------------------------------------------------------
# in-place operations


_COPY_SLICES = "torch::autograd::CopySlices"


def _check_custom_function_view(self):
    """PyTorch's refusal to modify in place a view a custom Function returned."""
    x = self._node.meta.extra
    fn = None if x is None else x.facade
    if isinstance(fn, BackwardCFunction):
        name = fn.name()
        if name.endswith("Backward"):
            name = name[: -len("Backward")]
        raise RuntimeError(
            f"Output {self._out_index} of {name} is a view and is being modified inplace. "
            "This view was created inside a custom Function (or because an input was "
            "returned as-is) and the autograd logic to handle view+inplace would override "
            "the custom backward associated with the custom Function, leading to incorrect "
            "gradients. This behavior is forbidden. You can fix this by cloning the output "
            "of the custom Function."
        )


def _inplace(self, fn, *args, reads_self=True, name=None, cast=False):
    """Apply ``fn(self, *args)`` in place (PyTorch's in-place rules)."""
    if type(self._data) is not np.ndarray or _any_traced(args):
        return _inplace_traced(self, fn, args)
    grad_mode = _grad_mode._state.enabled
    if type(self._vc) is not VersionCounter and not _grad_mode._state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        )
    if grad_mode and self._requires_grad:
        base = self._base
        if base is not None and self._node is not None:
            _check_custom_function_view(self)
        if self._node is None:
            # self[idx] = v writes through a view of self (PyTorch's CopySlices)
            raise RuntimeError(
                ("a view of a leaf Variable" if name == _COPY_SLICES else "a leaf Variable")
                + " that requires grad is being used in an in-place operation.")
        if _is_view(self) and base._requires_grad and base._node is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
    tracking = grad_mode and (self._requires_grad or _ops._needs_grad(*args))
    if tracking and _is_view(self):
        # (also when only the written value requires grad: buf[0].copy_(x) would
        # otherwise leave buf's own graph without x)
        raise RuntimeError(
            "tracegrad.torch does not support in-place operations on a view of a tensor "
            "that requires grad, or that write a value requiring grad into a view "
            "(PyTorch rebases the base's graph; tracegrad does not). Use index assignment "
            "on the base tensor (base[idx] = value), the out-of-place operation, or "
            ".clone() the view first."
        )
    if not self._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers "
            "to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    if not tracking:
        with _grad_mode.no_grad():
            new = fn(Tensor._wrap(self._data), *args)
        new_data = new._data if isinstance(new, Tensor) else np.asarray(new)
        if not cast:
            _check_inplace_cast(new_data.dtype, self._data.dtype)
        _write(self, new_data)
        _rebase_views(self._base if _is_view(self) else self)
        return self
    old = _snapshot(self, reads_self)
    new = fn(old, *args)
    if not isinstance(new, Tensor) or new._node is None:
        _write(self, _ops._value(new))
        return self
    node = new._node
    if not cast:
        _check_inplace_cast(new._data.dtype, self._data.dtype)
    if new._data.dtype != self._data.dtype:
        new = ops.convert_element_type(new, self._data.dtype)
    if name is not None or new is old:
        new = group(new, name or new.grad_fn.name(),
                    [old] + [a if isinstance(a, Tensor) else None for a in args])
    elif new._node is not node:
        # cast back to self's dtype: the node keeps the operation's name and inputs
        edges = node.meta.edges if node.meta.edges is not None else _derived_edges(node)
        new = group(new, node.meta.name or new.grad_fn.name(), [])
        new._node.meta.edges = list(edges)
    _write(self, new._data)
    old_node, old_index = self._node, self._out_index
    self._node = new._node
    self._out_index = new._out_index
    self._requires_grad = True
    if self._retains_grad:
        _move_retain_grad(self, old_node, old_index)
    _rebase_views(self)
    return self


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
               "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
               "float64": "Double"}


def _check_inplace_cast(result, out):
    """PyTorch refuses an in-place result of a higher category (bool < integer <
    float < complex) than the tensor written to (``int_tensor += 1.5``)."""
    if _KIND_ORDER.get(result.kind, 0) > _KIND_ORDER.get(out.kind, 0):
        raise RuntimeError(
            f"result type {_TYPE_NAMES.get(result.name, result.name)} can't be cast to the "
            f"desired output type {_TYPE_NAMES.get(out.name, out.name)}")


def _any_traced(args):
    for a in args:
        if isinstance(a, Tensor) and type(a._data) is not np.ndarray:
            return True
    return False


def _inplace_traced(self, fn, args):
    """An in-place operation inside a ``torch.func`` transform: the tensor takes
    the new (traced) value.  Its views do not see the write (a difference from
    PyTorch)."""
    if type(self._data) is np.ndarray:
        raise RuntimeError(
            "An in-place operation would write a value traced by a tracegrad.torch.func "
            f"transform into a tensor created outside it (shape {tuple(self._data.shape)}): "
            "the tensor would outlive the transform. Use the out-of-place operation, or "
            "clone() the tensor inside the transformed function first."
        )
    new = fn(Tensor._wrap(self._data), *args)
    data = new._data if isinstance(new, Tensor) else new
    if data.dtype != self._data.dtype:
        data = ops.convert_element_type(data, self._data.dtype)
    self._data = data
    return self


def _rebase_views(base):
    """After an in-place write to ``base`` (or through one of its views), regenerate
    the grad_fn of its live views from ``base``'s, as PyTorch does
    (``AsStridedBackward0``: the view's elements gathered from the base)."""
    views = base.__dict__.get("_views")
    if not views or not base._requires_grad:
        return
    with _grad_mode.enable_grad():
        for view in list(views):
            positions = _positions(view._data, base._data)
            new = _ops._composite(
                "AsStridedBackward0",
                lambda: tnp.take(ops.reshape(base, (base._data.size,)), positions), [base])
            view._node, view._out_index = new._node, new._out_index
            view._requires_grad = True


def _positions(view, base):
    """The C-order index in ``base`` of each element of ``view`` (which shares its memory)."""
    offsets = np.zeros(base.shape, np.int64)
    for d, (n, st) in enumerate(zip(base.shape, base.strides)):
        shape = [1] * base.ndim
        shape[d] = n
        offsets = offsets + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    voffsets = np.full(view.shape, start, np.int64)
    for d, (n, st) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[d] = n
        voffsets = voffsets + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    flat = offsets.reshape(-1)
    order = np.argsort(flat, kind="stable")
    return order[np.searchsorted(flat[order], voffsets)]


def _move_retain_grad(self, old_node, old_index):
    """``retain_grad()`` follows the tensor to the node of its in-place update (as PyTorch)."""
    x = old_node.meta.extra
    refs = x.retained.get(old_index, []) if x is not None and x.retained else []
    refs[:] = [r for r in refs if r() is not self]
    self._retains_grad = False
    self.retain_grad()


def _is_view(t):
    """True for a view of another tensor's storage (``detach()`` and ``.data``
    alias the whole array: they are not views for autograd)."""
    return t._base is not None and t._data is not t._base._data


def _snapshot(self, copy):
    """A tensor standing for ``self`` before an in-place write."""
    t = Tensor._wrap(np.array(self._data) if copy else self._data)
    t._requires_grad = self._requires_grad
    t._node = self._node
    t._out_index = self._out_index
    if not copy:
        t._vc = self._vc
    if self._node is None and self._requires_grad:
        t._leaf_node = self._leaf_engine_node()
    return t


def _write(self, data):
    if data.shape != self._data.shape:
        try:
            data = np.broadcast_to(data, self._data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(data.shape)}"
            ) from None
    np.copyto(self._data, data, casting="unsafe")
    self._vc.value += 1


def _inplace_binary(fn, reads_self=True, cast=False):
    def method(self, other, *args, **kwargs):
        return _inplace(self, lambda s, o: fn(s, o, *args, **kwargs), other, reads_self=reads_self,
                        cast=cast)

    return method


def _inplace_unary(fn, reads_self=True):
    def method(self, *args, **kwargs):
        return _inplace(self, lambda s: fn(s, *args, **kwargs), reads_self=reads_self)

    return method


def _overwrite(s, v):
    """``v`` (broadcast) in place of all of ``s``: ``s`` stays in the graph with a zero
    gradient (``s * 0`` would turn infinities into NaN)."""
    return ops.select(np.ones(s._data.shape, bool), v, s)


def zero_(self):
    """Fill with zeros in place (grad_fn ``ZeroBackward0``)."""
    return _inplace(self, lambda s: _ops._composite("ZeroBackward0", _overwrite, [s], s, 0),
                    reads_self=False)


def fill_(self, value):
    """Fill with ``value`` (a number or a 0-d tensor) in place (``FillBackward2``/``3``)."""
    if not isinstance(value, Tensor):
        return _inplace(self, lambda s: _ops._composite("FillBackward2", _overwrite, [s], s, value),
                        reads_self=False, cast=True)

    def fn(s, v):
        return _ops._composite("FillBackward3", _overwrite, [s, v], s,
                               ops.convert_element_type(v, s._data.dtype))

    return _inplace(self, fn, value, reads_self=False, cast=True)


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast) into ``self`` in place (grad_fn ``CopyBackwards``)."""
    src = _ops._tensor_arg(src)

    def fn(s, v):
        return _ops._composite("torch::autograd::CopyBackwards", _overwrite, [s, v], s,
                               ops.convert_element_type(v, s._data.dtype))

    return _inplace(self, fn, src, reads_self=False, cast=True)


# --------------------------------------------------------------------------
# dtype shortcuts and misc


def _astype(dt):
    def method(self, memory_format=None):
        return _ops.to(self, dt)

    return method


def type_(self, dtype=None, non_blocking=False):
    """The type name (no argument) or a conversion to ``dtype``."""
    if dtype is None:
        kind = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
                "int32": "IntTensor", "bool": "BoolTensor", "float16": "HalfTensor",
                "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor"}
        return "torch." + kind.get(str(self._data.dtype), "Tensor")
    if isinstance(dtype, str):
        names = {"torch.FloatTensor": _dtype.float32, "torch.DoubleTensor": _dtype.float64,
                 "torch.LongTensor": _dtype.int64, "torch.IntTensor": _dtype.int32,
                 "torch.BoolTensor": _dtype.bool}
        dtype = names[dtype]
    return _ops.to(self, dtype)


def type_as(self, other):
    """Convert to ``other``'s dtype."""
    return _ops.to(self, other.dtype)


def expand_as(self, other):
    """Broadcast to ``other``'s shape."""
    return _ops.expand(self, other.shape)


def view_as(self, other):
    """View with ``other``'s shape."""
    return _ops.view(self, other.shape)


def reshape_as(self, other):
    """Reshape to ``other``'s shape."""
    return _ops.reshape(self, other.shape)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor with ``self``'s dtype by default."""
    return _creation.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_factory(name):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        if name == "new_full":
            shape, value = size[0], size[1]
            return _creation.full(tuple(shape), value, dtype=dtype or self.dtype,
                                  requires_grad=requires_grad)
        return getattr(_creation, name[4:])(*size, dtype=dtype or self.dtype,
                                            requires_grad=requires_grad)

    return method


def contiguous(self, memory_format=None):
    """``self`` if C-contiguous, else a contiguous copy (``CloneBackward0``)."""
    if type(self._data) is not np.ndarray or self._data.flags.c_contiguous:
        return self
    return _ops._contiguous(_ops.clone(self))  # (clone keeps the layout)


def cpu(self):
    """``self`` (tensors live on the CPU)."""
    return self


def _T(self):  # noqa: N802 - PyTorch's name
    return _ops.permute(self, tuple(range(self._data.ndim - 1, -1, -1)), name="PermuteBackward0")


def _mT(self):  # noqa: N802
    return self.transpose(-2, -1)


def ravel(self):
    """The elements as a 1-D tensor: a view of a contiguous tensor
    (``ViewBackward0``), else a view of a contiguous copy (``CloneBackward0``
    first), as PyTorch's ``contiguous().view(-1)``."""
    return _ops.view(contiguous(self), -1)


def take(self, index):
    """The elements of ``self`` read as a 1-D tensor at the positions
    ``index`` (an int64 tensor; negative positions count from the end); the
    result has ``index``'s shape (grad_fn ``TakeBackward0``).

    Raises
    ------
    TypeError
        If ``index`` is not a tensor.
    RuntimeError
        If ``index`` is not of dtype int64.
    IndexError
        If a position is out of range.
    """
    if not isinstance(index, Tensor):
        raise TypeError(
            f"take(): argument 'index' (position 1) must be Tensor, not {type(index).__name__}")
    if index._data.dtype != np.int64:
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{_dtype.scalar_type_name(index._data.dtype)}")
    idx = index if _ops._is_traced(index) else index._data
    n = self.numel()
    if type(idx) is np.ndarray:
        bad = idx[(idx >= n) | (idx < -n)]
        if bad.size:
            raise IndexError(
                f"out of range: tried to access index {int(bad.flat[0])} on a tensor of "
                f"{n} elements.")
    return _ops._composite("TakeBackward0", tnp.take, [self], self, idx)


def conj(self):
    """The complex conjugate: ``self`` itself for a tensor that is not complex,
    as PyTorch."""
    if self._data.dtype.kind != "c":
        return self
    return Tensor._wrap(np.conjugate(self._data))


def _real(self):
    """The real part: ``self`` itself for a tensor that is not complex, else a
    view of the real parts, as PyTorch."""
    if self._data.dtype.kind != "c":
        return self
    return _ops._view_of(Tensor._wrap(self._data.real), self)


def _method_max(self, dim=None, keepdim=False):
    return _ops.max(self, dim, keepdim)


def _method_min(self, dim=None, keepdim=False):
    return _ops.min(self, dim, keepdim)


def _sum(self, dim=None, keepdim=False, *, dtype=None):
    return _ops.sum(self, dim, keepdim, dtype=dtype)


def _mean(self, dim=None, keepdim=False, *, dtype=None):
    return _ops.mean(self, dim, keepdim, dtype=dtype)


def _softmax(self, dim, dtype=None):
    return _ops.softmax(self, dim, dtype)


def _log_softmax(self, dim, dtype=None):
    return _ops.log_softmax(self, dim, dtype)


# unary operations whose in-place form is the out-of-place one written back
_INPLACE_UNARY = (
    "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh",
    "cosh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "exp2", "expm1",
    "log2", "log10", "log1p", "rsqrt", "reciprocal", "square", "floor", "ceil", "round",
    "trunc", "fix", "sign", "erf", "negative", "absolute", "clamp_min", "clamp_max",
)

_METHODS = {
    # operators
    "__add__": _arith(_ops.add, _pel.add_p, "AddBackward0"),
    "__radd__": _arith(_ops.add, _pel.add_p, "AddBackward0", commutes=True),
    "__sub__": _arith(_ops.sub, _pel.sub_p, "SubBackward0"),
    "__rsub__": _binop(_ops.sub, True),
    "__mul__": _arith(_ops.mul, _pel.mul_p, "MulBackward0"),
    "__rmul__": _arith(_ops.mul, _pel.mul_p, "MulBackward0", commutes=True),
    "__truediv__": _binop(_ops.div), "__rtruediv__": _binop(_ops.div, True),
    "__floordiv__": _binop(_ops.floor_divide), "__rfloordiv__": _binop(_ops.floor_divide, True),
    "__mod__": _binop(_ops.remainder), "__rmod__": _binop(_ops.remainder, True),
    "__pow__": _binop(_ops.pow), "__rpow__": _binop(_ops.pow, True),
    "__matmul__": _binop(_ops.matmul), "__rmatmul__": lambda self, o: _ops.matmul(o, self),
    "__neg__": lambda self: _ops.neg(self), "__pos__": lambda self: self,
    "__abs__": lambda self: _ops.abs(self),
    "__invert__": lambda self: _ops.logical_not(self) if self._data.dtype.kind == "b" else Tensor._wrap(~self._data),
    "__and__": _binop(_ops.bitwise_and), "__or__": _binop(_ops.bitwise_or),
    "__xor__": _binop(_ops.bitwise_xor), "__rand__": _binop(_ops.bitwise_and, True),
    "__ror__": _binop(_ops.bitwise_or, True), "__rxor__": _binop(_ops.bitwise_xor, True),
    "bitwise_and": _ops.bitwise_and, "bitwise_or": _ops.bitwise_or,
    "bitwise_xor": _ops.bitwise_xor,
    "__eq__": _binop(_ops.eq), "__ne__": _binop(_ops.ne), "__lt__": _binop(_ops.lt),
    "__le__": _binop(_ops.le), "__gt__": _binop(_ops.gt), "__ge__": _binop(_ops.ge),
    "__getitem__": getitem, "__setitem__": setitem,
    "__iadd__": _inplace_binary(_ops.add, reads_self=False),
    "__isub__": _inplace_binary(_ops.sub, reads_self=False),
    "__imul__": _inplace_binary(_ops.mul), "__itruediv__": _inplace_binary(_ops.div),
    "__ipow__": _inplace_binary(_ops.pow),
    # in-place
    "add_": _inplace_binary(_ops.add, reads_self=False),
    "sub_": _inplace_binary(_ops.sub, reads_self=False),
    "mul_": _inplace_binary(_ops.mul), "div_": _inplace_binary(_ops.div),
    "pow_": _inplace_binary(_ops.pow),
    "clamp_": _inplace_unary(_ops.clamp), "clip_": _inplace_unary(_ops.clamp),
    "neg_": _inplace_unary(_ops.neg, reads_self=False), "exp_": _inplace_unary(_ops.exp),
    "log_": _inplace_unary(_ops.log), "sqrt_": _inplace_unary(_ops.sqrt),
    "tanh_": _inplace_unary(_ops.tanh), "sigmoid_": _inplace_unary(_ops.sigmoid),
    "relu_": _inplace_unary(_ops.relu), "abs_": _inplace_unary(_ops.abs),
    **{f"{n}_": _inplace_unary(getattr(_ops, n)) for n in _INPLACE_UNARY},
    "masked_fill_": _inplace_binary(_ops.masked_fill, cast=True),
    "zero_": zero_, "fill_": fill_, "copy_": copy_,
    # methods that are torch functions with self first
    "to": _ops.to, "view": _ops.view, "type": type_, "type_as": type_as,
    "expand_as": expand_as, "view_as": view_as, "reshape_as": reshape_as,
    "new_tensor": new_tensor, "new_zeros": _new_factory("new_zeros"),
    "new_ones": _new_factory("new_ones"), "new_full": _new_factory("new_full"),
    "new_empty": _new_factory("new_empty"), "contiguous": contiguous, "cpu": cpu,
    "ravel": ravel, "take": take, "conj": conj, "real": property(_real),
    "T": property(_T), "mT": property(_mT),
    "max": _method_max, "min": _method_min, "sum": _sum, "mean": _mean,
    "softmax": _softmax, "log_softmax": _log_softmax,
    "float": _astype(_dtype.float32), "double": _astype(_dtype.float64),
    "half": _astype(_dtype.float16), "long": _astype(_dtype.int64),
    "int": _astype(_dtype.int32), "bool": _astype(_dtype.bool),
    "short": _astype(_dtype.int16),
}

_SAME_NAME = (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
    "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2", "arctan2",
    "maximum", "minimum", "fmax", "fmin", "hypot", "logaddexp", "eq", "ne", "lt", "le",
    "gt", "ge", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "equal", "allclose",
    "isclose", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
    "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh",
    "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh",
    "sigmoid", "relu", "neg", "negative", "abs", "absolute", "sign", "floor", "ceil",
    "round", "trunc", "fix", "reciprocal", "square", "erf", "clamp", "clip", "clamp_min",
    "clamp_max", "masked_fill", "isnan", "isinf", "isfinite", "prod", "amax", "amin",
    "argmax", "argmin", "var", "std", "logsumexp", "norm", "all", "any", "count_nonzero",
    "cumsum", "cumprod", "reshape", "flatten", "permute", "transpose", "swapaxes",
    "swapdims", "t", "unsqueeze", "squeeze", "expand", "broadcast_to", "repeat_interleave",
    "split", "chunk", "unbind", "narrow", "select", "flip", "roll", "tril", "triu", "diag",
    "diagonal", "trace", "gather", "index_select", "sort", "argsort", "topk", "nonzero",
    "clone", "matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "ger", "addmm",
    "where",
)


def repeat(self, *sizes):
    """Tile the tensor ``sizes`` times along each dimension."""
    reps = _ops._shape_args(sizes)
    if len(reps) < self._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of "
            "dimensions of tensor"
        )
    out = _ops._composite("RepeatBackward0", tnp.tile, [self], self, reps)
    if out is self:  # (without grad, tiling once is the tensor itself)
        out = Tensor._wrap(self._data)
    return _ops._contiguous(out, self)  # a new contiguous tensor with its own storage


def install():
    for name in _SAME_NAME:
        setattr(Tensor, name, getattr(_ops, name))
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.repeat = repeat
    Tensor.where = lambda self, condition, other: _ops.where(condition, self, other)


install()

del numbers
