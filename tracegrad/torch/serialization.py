"""``torch.save`` and ``torch.load`` in PyTorch's own file format.

:func:`save` writes the zip archive that PyTorch has written since 1.6, and
:func:`load` reads it (and PyTorch's older non-zip "legacy" stream), so
checkpoints move between tracegrad and PyTorch in both directions.

The archive (every record under one folder, ``<name>/``, the file's base
name or ``archive`` for a file object; records stored uncompressed, the
storages aligned to 64 bytes as PyTorch aligns them):

* ``data.pkl``: the object, pickled (protocol 2 by default).  A tensor is
  ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
  requires_grad, OrderedDict())``; its storage is a *persistent id*
  ``('storage', torch.FloatStorage, key, 'cpu', numel)`` naming the record
  ``data/<key>``.  A parameter is ``torch._utils._rebuild_parameter(tensor,
  requires_grad, OrderedDict())``; dtypes, ``torch.Size`` and
  ``torch.device`` are pickled under PyTorch's names, so the file does not
  mention tracegrad.
* ``data/<key>``: the raw bytes of one storage, in the byte order named by
  ``byteorder``.
* ``.format_version`` (``1``), ``.storage_alignment`` (``64``),
  ``byteorder``, ``version`` (``3``) and ``.data/serialization_id``.

Tensors that share memory (views, ``detach()``, a state dict and the
parameters themselves) are saved as one storage, with their offsets and
strides, and load as NumPy views of one buffer, so the sharing survives the
round trip.  The facts about the format come from reading PyTorch's
``torch/serialization.py``, ``torch/_utils.py`` and
``torch/_weights_only_unpickler.py``.
"""
import _codecs
import _compat_pickle
import collections
import ctypes
import io
import os
import pickle
import secrets
import struct
import sys
import tarfile
import zipfile

import numpy as np

from . import _dtype
from ._tensor import Size, Tensor, device
from .nn.parameter import Parameter

__all__ = ["save", "load", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
"""The pickle protocol :func:`save` uses by default (PyTorch's)."""

_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the legacy stream's first pickle
_LEGACY_PROTOCOL_VERSION = 1001
_ALIGNMENT = 64
_FORMAT_VERSION = "3\n"  # the ``version`` record PyTorch 2.x writes

# PyTorch's legacy typed-storage classes, by NumPy element type
_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "int8": "CharStorage", "int16": "ShortStorage", "int32": "IntStorage",
    "int64": "LongStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
}
# PyTorch storages whose element type tracegrad.torch lacks
_UNSUPPORTED_STORAGES = {
    "BFloat16Storage": "bfloat16", "QInt8Storage": "qint8", "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
    "ComplexHalfStorage": "complex32",
}

_WEIGHTS_ONLY_FIX = (
    "Loading with weights_only=True (the default, as in PyTorch 2.6 and later) allows "
    "only tensors, parameters, dtypes, devices, sizes, OrderedDict and plain Python "
    "containers and scalars. If you trust the source of the file, call "
    "torch.load(f, weights_only=False): it unpickles any object, which can execute "
    "arbitrary code."
)


# ----------------------------------------------------------------------
# saving


class _Global:
    """A reference to a PyTorch global (``torch._utils._rebuild_tensor_v2``)
    that the pickler writes by name, without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, *args):  # pickle requires a callable reduce function
        raise TypeError(f"{self.module}.{self.name} is a name written into a file, not a function")


_REBUILD_TENSOR_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_WITH_STATE = _Global("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE_V2 = _Global("torch._tensor", "_rebuild_from_type_v2")
_TORCH_TENSOR = _Global("torch", "Tensor")
_TORCH_SIZE = _Global("torch", "Size")
_TORCH_DEVICE = _Global("torch", "device")
_STORAGE_GLOBALS = {k: _Global("torch", v) for k, v in _STORAGE_NAMES.items()}


class _SavedStorage:
    """One storage to write: ``nbytes`` bytes of memory from address ``address``
    (kept alive by ``owner``), holding elements of ``dtype``."""

    __slots__ = ("key", "dtype", "address", "nbytes", "owner")

    def __init__(self, key, dtype, address, nbytes, owner):
        self.key = key
        self.dtype = dtype
        self.address = address
        self.nbytes = nbytes
        self.owner = owner

    def buffer(self):
        """The bytes, as a memoryview of the memory (no copy)."""
        if self.nbytes == 0:
            return memoryview(b"")
        raw = (ctypes.c_ubyte * self.nbytes).from_address(self.address)
        return memoryview(np.frombuffer(raw, np.uint8))


class _PlainTensor:
    """The data of a parameter: pickled as a tensor without requires_grad."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


def _memory_owner(arr):
    """The outermost ndarray of ``arr``'s chain of bases (the allocation all
    views of the same memory lead to)."""
    if isinstance(arr, np.memmap):
        return arr
    root = arr
    obj = arr.base
    while obj is not None:
        if isinstance(obj, np.memmap):  # a loaded storage mapped from its file: that slice
            return obj
        if isinstance(obj, np.ndarray):
            root = obj
        obj = getattr(obj, "base", None)  # numpy's as_strided wraps the base in an object
    return root


def _byte_bounds(arr):
    lo = hi = arr.__array_interface__["data"][0]
    if arr.size == 0:
        return lo, lo
    itemsize = arr.itemsize
    for n, s in zip(arr.shape, arr.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + itemsize


class _StorageTable:
    """The storages of one :func:`save`: tensors whose data share an
    allocation (and element type) share one storage, as in PyTorch."""

    def __init__(self):
        self.storages = []
        self._by_owner = {}

    def _new(self, dtype, address, nbytes, owner):
        st = _SavedStorage(str(len(self.storages)), dtype, address, nbytes, owner)
        self.storages.append(st)
        return st

    def locate(self, t):
        """``(storage, storage_offset, stride)`` of tensor ``t``, elements."""
        arr = t._data
        if not isinstance(arr, np.ndarray):
            raise RuntimeError(
                "torch.save of a tensor inside a tracegrad.torch.func transform: its value "
                f"is traced ({type(arr).__name__}); save it outside the transformed function."
            )
        itemsize = arr.itemsize
        dt = arr.dtype
        owner = _memory_owner(arr)
        lo, hi = _byte_bounds(arr)
        olo, ohi = _byte_bounds(owner)
        start = arr.__array_interface__["data"][0]
        if (all(s >= 0 and s % itemsize == 0 for s in arr.strides)
                and olo <= lo and hi <= ohi and (ohi - olo) % itemsize == 0
                and (start - olo) % itemsize == 0 and arr.size > 0):
            key = (id(owner), dt)
            st = self._by_owner.get(key)
            if st is None:
                st = self._by_owner[key] = self._new(dt, olo, ohi - olo, owner)
            stride = tuple(s // itemsize for s in arr.strides)
            return st, (start - olo) // itemsize, stride
        # negative strides, or memory we cannot describe as one storage: a copy
        copy = np.ascontiguousarray(arr)
        st = self._new(dt, copy.__array_interface__["data"][0], copy.nbytes, copy)
        return st, 0, _contiguous_strides(arr.shape)


def _contiguous_strides(shape):
    """Row-major strides in elements, as PyTorch gives them (empty shapes too)."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


def _extra_state(t):
    """A tensor's Python attributes that PyTorch would pickle; names starting
    with ``_`` are tracegrad's own bookkeeping (views, the buffer flag) and are
    left out, and so is the buffer flag ``persistent``."""
    d = getattr(t, "__dict__", None) or {}
    return {k: v for k, v in d.items() if not k.startswith("_") and k != "persistent"}


class _TorchPickler(pickle._Pickler):
    """A pickler that writes tracegrad's tensors, dtypes, sizes and devices
    under PyTorch's names, with the storages as persistent ids."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol, storages, legacy=False):
        super().__init__(file, protocol=protocol)
        self._storages = storages
        self._legacy = legacy

    def persistent_id(self, obj):
        if type(obj) is _SavedStorage:
            name = _STORAGE_GLOBALS[obj.dtype.name]
            numel = obj.nbytes // obj.dtype.itemsize
            if self._legacy:
                return ("storage", name, obj.key, "cpu", numel, None)
            return ("storage", name, obj.key, "cpu", numel)
        return None

    def _tensor_args(self, t, requires_grad):
        st, offset, stride = self._storages.locate(t)
        return (st, offset, Size(t._data.shape), stride, requires_grad,
                collections.OrderedDict())

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if isinstance(obj, Parameter):
                args = (_PlainTensor(obj), obj._requires_grad, collections.OrderedDict())
                state = _extra_state(obj)
                if state:
                    return (_REBUILD_PARAMETER_WITH_STATE, args + (state,))
                return (_REBUILD_PARAMETER, args)
            args = self._tensor_args(obj, obj._requires_grad)
            state = _extra_state(obj)
            if state:
                return (_REBUILD_FROM_TYPE_V2, (_REBUILD_TENSOR_V2, _TORCH_TENSOR, args, state))
            return (_REBUILD_TENSOR_V2, args)
        if type(obj) is _PlainTensor:
            return (_REBUILD_TENSOR_V2, self._tensor_args(obj.tensor, False))
        if isinstance(obj, Size):
            return (_TORCH_SIZE, (tuple(obj),))
        if isinstance(obj, device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_TORCH_DEVICE, args)
        return NotImplemented

    def _write_global(self, obj, module, name):
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    def _save_torch_global(self, obj):
        self._write_global(obj, obj.module, obj.name)

    def _save_dtype(self, obj):
        self._write_global(obj, "torch", obj._name)

    dispatch[_Global] = _save_torch_global
    dispatch[_dtype.dtype] = _save_dtype


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f))
        stem = os.path.splitext(base)[0]
        return stem or "archive"
    return "archive"


def _write_record(zf, name, data):
    """One stored (uncompressed) record whose data starts on a multiple of
    64 bytes from the start of the archive (padding in an extra field, as
    PyTorch's writer pads)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = len(data)
    pos = zf.start_dir
    header = 30 + len(name.encode("utf-8")) + 4
    if len(data) * 1.05 > zipfile.ZIP64_LIMIT:
        header += 20  # zipfile adds a zip64 extra field to the local header
    pad = (-(pos + header)) % _ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # 'FB' padding field
    with zf.open(info, "w") as out:
        out.write(data)


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save an object (tensors, state dicts, checkpoints) to a file in PyTorch's format.

    The file loads in PyTorch (``torch.load``, with ``weights_only=True`` for
    tensors, state dicts and plain containers) and in :func:`load`.

    Parameters
    ----------
    obj : object
        Anything picklable: tensors, parameters, ``nn.Module.state_dict()``
        (an OrderedDict with ``_metadata``), optimizer state dicts, nested
        dicts/lists/tuples of tensors, numbers and strings.  Other objects
        (a whole ``nn.Module``) are pickled by their tracegrad classes, so only
        tracegrad can load them (with ``weights_only=False``).
    f : str, os.PathLike or binary file object
        The file (created or truncated) or an object with ``write`` (and
        ``tell``/``seek`` for the zip format), such as ``io.BytesIO``.
    pickle_module : module, optional
        Must be the standard :mod:`pickle` (the default).
    pickle_protocol : int, optional
        Pickle protocol of the object record (default 2, as PyTorch's).
    _use_new_zipfile_serialization : bool, optional
        False writes PyTorch's legacy (pre-1.6, non-zip) stream instead.
    _disable_byteorder_record : bool, optional
        Leave out the ``byteorder`` record.

    Raises
    ------
    ValueError
        For a ``pickle_module`` other than :mod:`pickle`.
    RuntimeError
        For a tensor holding a ``torch.func`` transform's traced value.

    Notes
    -----
    Tensors whose memory is shared are saved once, as one storage; a view is
    saved with the whole allocation it views, as PyTorch does.  A view with
    negative strides (which PyTorch cannot represent) is saved as a
    contiguous copy.  ``.grad`` is not saved (as in PyTorch).
    """
    if pickle_module is not pickle:
        raise ValueError(
            "tracegrad.torch.save supports only the standard pickle module as pickle_module"
        )
    if _use_new_zipfile_serialization:
        storages = _StorageTable()
        buf = io.BytesIO()
        _TorchPickler(buf, pickle_protocol, storages).dump(obj)
        data_pkl = buf.getvalue()
        writer = lambda out: _write_zip(out, _archive_name(f), data_pkl, storages,  # noqa: E731
                                         _disable_byteorder_record)
    else:
        writer = lambda out: _write_legacy(out, obj, pickle_protocol)  # noqa: E731
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            writer(out)
    else:
        writer(f)


def _write_zip(out, prefix, data_pkl, storages, disable_byteorder):
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{prefix}/data.pkl", data_pkl)
        _write_record(zf, f"{prefix}/.format_version", b"1")
        _write_record(zf, f"{prefix}/.storage_alignment", str(_ALIGNMENT).encode())
        if not disable_byteorder:
            _write_record(zf, f"{prefix}/byteorder", sys.byteorder.encode())
        for st in storages.storages:
            _write_record(zf, f"{prefix}/data/{st.key}", st.buffer())
        _write_record(zf, f"{prefix}/version", _FORMAT_VERSION.encode())
        sid = "%020d%020d" % (secrets.randbits(64), secrets.randbits(64))
        _write_record(zf, f"{prefix}/.data/serialization_id", sid.encode())


def _write_legacy(out, obj, protocol):
    storages = _StorageTable()
    pickle.dump(_MAGIC_NUMBER, out, protocol=protocol)
    pickle.dump(_LEGACY_PROTOCOL_VERSION, out, protocol=protocol)
    sys_info = {"protocol_version": _LEGACY_PROTOCOL_VERSION,
                "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    pickle.dump(sys_info, out, protocol=protocol)
    _TorchPickler(out, protocol, storages, legacy=True).dump(obj)
    pickle.dump([st.key for st in storages.storages], out, protocol=protocol)
    for st in storages.storages:
        out.write(struct.pack("<q", st.nbytes // st.dtype.itemsize))
        out.write(st.buffer())


# ----------------------------------------------------------------------
# loading


class _StorageType:
    """What ``torch.FloatStorage`` (and the other storage globals) load as:
    the element type of a storage."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, np_dtype):
        self.name = name
        self.dtype = None if np_dtype is None else np.dtype(np_dtype)

    def __repr__(self):
        return f"StorageType(torch.{self.name})"


_STORAGE_TYPES = {f"torch.{v}": _StorageType(v, k) for k, v in _STORAGE_NAMES.items()}
_STORAGE_TYPES["torch.UntypedStorage"] = _StorageType("UntypedStorage", np.uint8)
_STORAGE_TYPES["torch.storage.UntypedStorage"] = _STORAGE_TYPES["torch.UntypedStorage"]
for _name, _dt in _UNSUPPORTED_STORAGES.items():
    _STORAGE_TYPES[f"torch.{_name}"] = _StorageType(_name, None)
del _name, _dt


class _Storage:
    """A loaded storage: a writable buffer of bytes and its element type.

    ``map_location`` callables receive it; ``cpu()`` returns it, ``cuda()``
    raises (tracegrad runs on the CPU only).
    """

    __slots__ = ("data", "dtype", "location")

    def __init__(self, data, dtype, location="cpu"):
        self.data = data  # uint8 ndarray
        self.dtype = dtype  # numpy dtype
        self.location = location

    @property
    def device(self):
        return device("cpu")

    def nbytes(self):
        return int(self.data.size)

    def size(self):
        return int(self.data.size) // self.dtype.itemsize

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        raise RuntimeError(_cuda_message(self.location))

    def typed(self):
        """The buffer as an array of the storage's element type."""
        return self.data.view(self.dtype)


def _cuda_message(location):
    return (
        f"Attempting to deserialize object on device {location!r}, but tracegrad.torch "
        "runs on the CPU only. Use torch.load with map_location='cpu' (or "
        "map_location=torch.device('cpu')) to map the storages to the CPU."
    )


def _check_tensor_dtype(dt):
    if dt is None:
        raise RuntimeError("the file holds tensors of an element type tracegrad.torch lacks")
    _dtype.as_dtype(dt)


def _tensor_from_storage(storage, storage_offset, size, stride, np_dtype):
    if np_dtype is None:
        np_dtype = storage.dtype
    if storage.dtype is None:
        raise RuntimeError("the file holds tensors of an element type tracegrad.torch lacks")
    np_dtype = np.dtype(np_dtype)
    _check_tensor_dtype(np_dtype)
    typed = storage.data.view(np_dtype) if storage.data.size else np.empty(0, np_dtype)
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    offset = int(storage_offset)
    numel = int(np.prod(size)) if size else 1
    if numel == 0:
        return Tensor._wrap(np.empty(size, np_dtype))
    extent = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if offset < 0 or any(s < 0 for s in stride) or extent > typed.size:
        raise RuntimeError(
            f"corrupt file: a tensor of size {list(size)} and stride {list(stride)} at offset "
            f"{offset} does not fit its storage of {typed.size} elements"
        )
    arr = np.lib.stride_tricks.as_strided(typed[offset:], size,
                                          tuple(s * np_dtype.itemsize for s in stride))
    return Tensor._wrap(arr)


def _set_state(t, state):
    if state:
        for k, v in state.items():
            setattr(t, k, v)


def _rebuild_tensor(storage, storage_offset, size, stride):
    """PyTorch's oldest rebuild function (no requires_grad)."""
    return _tensor_from_storage(storage, storage_offset, size, stride, None)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a tensor viewing a loaded storage."""
    t = _tensor_from_storage(storage, storage_offset, size, stride, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    """``torch._utils._rebuild_tensor_v3``: as v2, with the dtype given explicitly."""
    t = _tensor_from_storage(storage, storage_offset, size, stride, _dtype.as_dtype(dtype).dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: a Parameter sharing the tensor's data."""
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a Parameter with attributes."""
    p = Parameter(data, requires_grad)
    _set_state(p, state)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: a tensor with Python attributes."""
    t = func(*args)
    if new_type is Parameter and not isinstance(t, Parameter):
        t = Parameter(t, t.requires_grad)
    elif isinstance(new_type, type) and new_type is not Tensor and not isinstance(t, new_type):
        raise pickle.UnpicklingError(f"cannot rebuild a tensor of type {new_type}")
    if isinstance(state, tuple) and len(state) == 2:  # (dict, slots)
        _set_state(t, state[0])
        _set_state(t, state[1])
    else:
        _set_state(t, state)
    return t


def _load_device(type, index=None):  # noqa: A002
    return device(type, index)


def _load_size(dims=()):
    return Size(dims)


def _safe_globals():
    table = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.Tensor": Tensor,
        "torch._tensor.Tensor": Tensor,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": _load_size,
        "torch.device": _load_device,
        "_codecs.encode": _codecs.encode,  # bytes, under protocol 2
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.complex": complex,
        "builtins.slice": slice,
        "builtins.range": range,
    }
    table.update(_STORAGE_TYPES)
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                 "bool", "complex64", "complex128"):
        table[f"torch.{name}"] = getattr(_dtype, name)
    return table


_SAFE_GLOBALS = None
_UNSUPPORTED_DTYPES = ("bfloat16", "complex32", "uint16", "uint32", "uint64", "float8_e4m3fn",
                       "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "qint8", "quint8",
                       "qint32", "bits8", "bits16")


def _lookup_safe(module, name):
    global _SAFE_GLOBALS
    if _SAFE_GLOBALS is None:
        _SAFE_GLOBALS = _safe_globals()
    full = f"{module}.{name}"
    if full in _SAFE_GLOBALS:
        return _SAFE_GLOBALS[full]
    if module == "torch" and name in _UNSUPPORTED_DTYPES:
        raise RuntimeError(f"the file holds torch.{name} values; tracegrad.torch has no "
                           f"{name} dtype")
    return None


def _lookup_torch(module, name):
    """A ``torch.*`` global for the full unpickler: tracegrad's counterpart."""
    candidates = ["tracegrad." + module]
    if module.startswith("torch.nn.modules") or module.startswith("torch.nn.parameter"):
        candidates.append("tracegrad.torch.nn")
    if module.startswith("torch.optim"):
        candidates.append("tracegrad.torch.optim")
    for mod in candidates:
        # every tracegrad.torch submodule is imported with the package: look the
        # counterpart up among the loaded modules (nothing is imported on behalf of a file)
        obj = getattr(sys.modules.get(mod), name, None)
        if obj is not None:
            return obj
    raise pickle.UnpicklingError(
        f"the file refers to {module}.{name}, which has no counterpart in tracegrad.torch"
    )


def _compat_name(module, name):
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _make_unpickler(base, weights_only, persistent_load):
    class _Unpickler(base):
        def find_class(self, module, name):
            # Python 2 names, which protocols 0-2 write (__builtin__.set)
            module, name = _compat_name(module, name)
            obj = _lookup_safe(module, name)
            if obj is not None:
                return obj
            if weights_only:
                raise pickle.UnpicklingError(
                    f"Weights only load failed. Unsupported global: GLOBAL {module}.{name} "
                    "is not allowed by weights_only=True. " + _WEIGHTS_ONLY_FIX
                )
            if module == "torch" or module.startswith("torch."):
                return _lookup_torch(module, name)
            return super().find_class(module, name)

        def persistent_load(self, pid):
            return persistent_load(pid)

    return _Unpickler


def _restore_location(storage, location, map_location):
    """Apply ``map_location`` to a storage saved on ``location``."""
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, (str, bytes, device)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
    elif callable(map_location):
        result = map_location(storage, location)
        if result is None:
            target = location
        elif isinstance(result, _Storage):
            return result
        else:
            raise TypeError(
                f"map_location returned {type(result).__name__}; expected the storage it "
                "was given (or None)"
            )
    else:
        raise TypeError(
            "map_location should be a string, a torch.device, a dict or a callable, "
            f"got {type(map_location).__name__}"
        )
    target = str(target)
    if target.split(":", 1)[0] != "cpu":
        raise RuntimeError(_cuda_message(target))
    return storage


def _decode(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


class _ZipLoader:
    def __init__(self, zf, prefix, map_location, memmap):
        self.zf = zf
        self.prefix = prefix
        self.map_location = map_location
        self.memmap = memmap
        self.loaded = {}
        order = zf.read(prefix + "byteorder").decode() if self.has("byteorder") else "little"
        if order not in ("little", "big"):
            raise ValueError("Unknown endianness type: " + order)
        self.swap = order != sys.byteorder

    def has(self, name):
        try:
            self.zf.getinfo(self.prefix + name)
        except KeyError:
            return False
        return True

    def read_storage(self, name, nbytes):
        info = self.zf.getinfo(self.prefix + name)
        if info.file_size != nbytes:
            raise RuntimeError(
                f"corrupt file: record {name} holds {info.file_size} bytes, expected {nbytes}"
            )
        if self.memmap is not None and info.compress_type == zipfile.ZIP_STORED and nbytes:
            self.zf.fp.seek(info.header_offset)
            header = self.zf.fp.read(30)
            n, e = struct.unpack("<HH", header[26:30])
            start = info.header_offset + 30 + n + e
            return self.memmap[start:start + nbytes]
        return np.frombuffer(bytearray(self.zf.read(info)), np.uint8)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid or _decode(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        storage_type, key, location, numel = pid[1:5]
        key = _decode(key)
        if key in self.loaded:
            return self.loaded[key]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r}")
        if storage_type.dtype is None:
            raise RuntimeError(
                f"the file holds a torch.{storage_type.name}; tracegrad.torch has no "
                f"{_UNSUPPORTED_STORAGES.get(storage_type.name, storage_type.name)} dtype"
            )
        dt = storage_type.dtype
        data = self.read_storage(f"data/{key}", int(numel) * dt.itemsize)
        if self.swap and dt.itemsize > 1:
            data = np.frombuffer(bytearray(data.view(dt.newbyteorder()).astype(dt).tobytes()),
                                 np.uint8)
        location = _decode(location)
        st = _restore_location(_Storage(data, dt, location), location, self.map_location)
        self.loaded[key] = st
        return st


def _open_for_reading(f):
    if isinstance(f, (str, os.PathLike)):
        return open(f, "rb"), True
    if not hasattr(f, "read"):
        raise TypeError(f"f must be a path or a binary file object, got {type(f).__name__}")
    return f, False


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Load an object saved by :func:`save` or by PyTorch's ``torch.save``.

    Parameters
    ----------
    f : str, os.PathLike or binary file object
        The file, or an object with ``read``, ``readline``, ``seek`` and
        ``tell`` (``io.BytesIO``).
    map_location : str, torch.device, dict, callable or None, optional
        Where to put the storages; tracegrad runs on the CPU, so the result
        must be ``"cpu"``: ``"cpu"``/``torch.device("cpu")``, a dict from the
        saved locations to new ones (``{"cuda:0": "cpu"}``), or a callable
        ``(storage, location) -> storage or None``.
    pickle_module : module, optional
        With ``weights_only=False``, the module whose ``Unpickler`` is used
        (default :mod:`pickle`).
    weights_only : bool, optional
        True (the default, as in PyTorch 2.6 and later; None means True):
        allow only tensors, parameters, dtypes, ``torch.Size``,
        ``torch.device``, ``OrderedDict``/``Counter``, and plain containers
        and scalars (dict, list, tuple, set, str, bytes, numbers, None).
        False: unpickle anything (PyTorch's names are mapped to tracegrad's);
        only for files from a trusted source.
    mmap : bool, optional
        Map the storages from the file (copy-on-write) instead of reading
        them; ``f`` must then be a path.
    **pickle_load_args
        Passed to the unpickler (``encoding``, default ``"utf-8"``).

    Returns
    -------
    object
        The saved object, with :class:`~tracegrad.torch.Tensor` (and
        :class:`~tracegrad.torch.nn.Parameter`, ``requires_grad`` kept) for
        PyTorch's tensors; tensors that shared a storage view one buffer.

    Raises
    ------
    pickle.UnpicklingError
        With ``weights_only=True``, for any other global (the message names
        ``weights_only=False`` as the way to load it); and for a file that
        was not written by ``torch.save``.
    FileNotFoundError
        If ``f`` is a path that does not exist.
    RuntimeError
        For a storage on a CUDA (or other non-CPU) device without a
        ``map_location`` to the CPU (tracegrad raises rather than moving it
        silently), for TorchScript archives, PyTorch's pre-0.4 tar format,
        and element types tracegrad lacks (bfloat16, ...).
    ValueError
        For ``mmap=True`` with a file object.
    """
    if weights_only is None:
        weights_only = True
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    base = pickle.Unpickler if pickle_module is None else pickle_module.Unpickler
    pickle_load_args.setdefault("encoding", "utf-8")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    fp, close = _open_for_reading(f)
    try:
        start = fp.tell()
        head = fp.read(4)
        fp.seek(start)
        if head == b"PK\x03\x04":
            return _load_zip(fp, f, base, weights_only, map_location, mmap, pickle_load_args)
        if mmap:
            raise RuntimeError("mmap can only be used with files saved in the zip format "
                               "(torch.save with _use_new_zipfile_serialization=True)")
        return _load_legacy(fp, base, weights_only, map_location, pickle_load_args)
    finally:
        if close:
            fp.close()


def _load_zip(fp, f, base, weights_only, map_location, mmap, pickle_load_args):
    with zipfile.ZipFile(fp) as zf:
        names = zf.namelist()
        first = names[0] if names else ""
        if "/" not in first:
            raise RuntimeError("corrupt file: the archive's records are not in a folder, so it "
                               "was not written by torch.save")
        prefix = first.split("/", 1)[0] + "/"
        if prefix + "constants.pkl" in names:
            raise RuntimeError("the file is a TorchScript archive (torch.jit.save); "
                               "tracegrad.torch cannot load TorchScript")
        if prefix + "data.pkl" not in names:
            raise RuntimeError(f"corrupt file: the archive has no {prefix}data.pkl record")
        memmap = np.memmap(f, dtype=np.uint8, mode="c") if mmap else None
        loader = _ZipLoader(zf, prefix, map_location, memmap)
        unpickler = _make_unpickler(base, weights_only, loader.persistent_load)
        return unpickler(io.BytesIO(zf.read(prefix + "data.pkl")), **pickle_load_args).load()


def _load_legacy(fp, base, weights_only, map_location, pickle_load_args):
    start = fp.tell()
    try:
        is_tar = tarfile.is_tarfile(fp)
    except Exception:  # noqa: BLE001 - any failure means "not a tar archive"
        is_tar = False
    fp.seek(start)
    if is_tar:
        raise RuntimeError("the file is in PyTorch's pre-0.4 tar format, which tracegrad.torch "
                           "does not read; load and re-save it with PyTorch")
    storages = {}

    def persistent_load(pid):
        if not isinstance(pid, tuple) or not pid:
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        kind = _decode(pid[0])
        if kind == "module" and not weights_only:
            return pid[1]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        storage_type, root_key, location, numel, view = pid[1:6]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r}")
        if storage_type.dtype is None:
            raise RuntimeError(f"the file holds a torch.{storage_type.name}, an element type "
                               "tracegrad.torch lacks")
        dt = storage_type.dtype
        root_key = _decode(root_key)
        if root_key not in storages:
            location = _decode(location)
            st = _Storage(np.zeros(int(numel) * dt.itemsize, np.uint8), dt, location)
            storages[root_key] = _restore_location(st, location, map_location)
        root = storages[root_key]
        if view is None:
            return root
        view_key, offset, size = view
        view_key = _decode(view_key)
        if view_key not in storages:
            b = int(offset) * dt.itemsize
            storages[view_key] = _Storage(root.data[b:b + int(size) * dt.itemsize], dt,
                                          root.location)
        return storages[view_key]

    header = _make_unpickler(pickle.Unpickler, True, persistent_load)
    try:
        magic = header(fp, **pickle_load_args).load()
    except (pickle.UnpicklingError, EOFError, ValueError, KeyError, IndexError,
            TypeError, AttributeError) as exc:
        raise pickle.UnpicklingError(
            "the file was not written by torch.save: it is neither a zip archive nor "
            f"PyTorch's legacy format ({type(exc).__name__}: {exc})"
        ) from None
    if magic != _MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = header(fp, **pickle_load_args).load()
    if version != _LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = header(fp, **pickle_load_args).load()
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    unpickler = _make_unpickler(base, weights_only, persistent_load)
    result = unpickler(fp, **pickle_load_args).load()
    keys = header(fp, **pickle_load_args).load()
    endian = "<" if little else ">"
    for key in keys:
        st = storages[_decode(key)]
        raw = fp.read(8)
        if len(raw) != 8:
            raise RuntimeError("corrupt file: it ends before its storages")
        (numel,) = struct.unpack(endian + "q", raw)
        nbytes = numel * st.dtype.itemsize
        if nbytes != st.data.size:
            raise RuntimeError(f"corrupt file: storage {key} holds {numel} elements, "
                               f"expected {st.data.size // st.dtype.itemsize}")
        payload = fp.read(nbytes)
        if len(payload) != nbytes:
            raise RuntimeError("corrupt file: it ends inside a storage")
        arr = np.frombuffer(payload, np.uint8)
        if little != (sys.byteorder == "little") and st.dtype.itemsize > 1:
            arr = arr.view(st.dtype.newbyteorder()).astype(st.dtype).view(np.uint8)
        st.data[:] = arr
    return result
