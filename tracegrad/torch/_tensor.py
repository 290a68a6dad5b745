"""``tracegrad.torch.Tensor``: PyTorch's tensor, on tracegrad's reverse mode.

A tensor holds a NumPy array (``_data``, which ``detach()``, ``.data``,
``numpy()`` and view operations share, as PyTorch's storage) and its autograd
state: ``requires_grad``, the recorded node that produced it (``grad_fn``),
``.grad``, hooks, and a version counter (shared by views and ``detach()``)
that lets a backward pass detect saved values modified in place.  Tensors are
tracers of the eager trace :data:`~._autograd.TORCH`, so every primitive and
every ``tracegrad.numpy`` function accepts them and records on them.

The class stands directly on the core's :class:`~tracegrad.core.Tracer`,
not on the functional transforms' :class:`~tracegrad.core.ArrayTracer`, so
none of the NumPy layer's methods reach it: its names are PyTorch's (the
operations, ``+``, ``sum``, ``view``, ``T``, ..., are installed by
:mod:`._methods`, most of them from :mod:`._ops`).
"""
import warnings
import weakref

import numpy as np

from ..core import ArrayTracer, Tracer
from ..interpreters.vjp import VJPNode
from ..primitives import ops
from . import _dtype, _grad_mode
from ._autograd import TORCH, AccumulateGrad, _RemovableHandle, extras, facade, run_backward
from ._format import format_tensor

__all__ = ["Tensor", "Size", "device", "VersionCounter"]


class VersionCounter:
    """Counts in-place modifications of a tensor's data (shared by its views)."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


COMPLEX_GRAD = (
    "tracegrad.torch does not differentiate complex tensors (PyTorch does, with "
    "Wirtinger calculus); differentiate the real and imaginary parts as separate "
    "real tensors (torch.view_as_real is not available either)."
)


class InferenceCounter(VersionCounter):
    """The counter of an inference tensor (created under ``inference_mode``):
    such tensors track no version and cannot be saved for backward."""

    __slots__ = ()


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __new__(cls, dims=()):
        return tuple.__new__(cls, (int(d) for d in dims))

    def numel(self):
        """Number of elements of a tensor of this shape."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, k):
        r = tuple.__getitem__(self, k)
        return Size(r) if isinstance(k, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __repr__(self):
        return f"torch.Size({list(self)})"


class device:  # noqa: N801 - PyTorch's name
    """A device; tracegrad runs on the CPU only, so this is always ``cpu``.

    Raises
    ------
    RuntimeError
        For any other device type (``cuda``, ``mps``, ...).
    """

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        name = str(type)
        if ":" in name:
            name, idx = name.split(":", 1)
            index = int(idx)
        if name != "cpu":
            raise RuntimeError(
                f"tracegrad.torch runs on the CPU only; device {str(type)!r} is not "
                "available. Use device='cpu' (or omit it)."
            )
        self.type = "cpu"
        self.index = index

    def __eq__(self, other):
        try:
            return device(other).type == self.type
        except (RuntimeError, TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.type)

    def __repr__(self):
        return "device(type='cpu')" if self.index is None else f"device(type='cpu', index={self.index})"

    def __str__(self):
        return "cpu"


_CPU = device("cpu")


def check_device(d):
    """Accept None or a CPU device; raise a clear error for anything else."""
    if d is not None:
        device(d)


class Tensor(Tracer):
    """A multi-dimensional array with PyTorch's autograd semantics.

    ``torch.Tensor(data)`` builds a tensor of the default dtype (float32),
    ``torch.Tensor(2, 3)`` one of that shape; prefer :func:`tensor`.

    Attributes
    ----------
    requires_grad : bool
        Record operations on this tensor (settable on leaves).
    grad : Tensor or None
        Accumulated gradient (leaves, or non-leaves after ``retain_grad``).
    grad_fn : object or None
        The node that produced this tensor (None for leaves).
    is_leaf : bool
    shape : Size
    dtype : dtype
    device : device
    """

    __slots__ = ("_data", "_requires_grad", "_grad", "_node", "_out_index", "_vc",
                 "_retains_grad", "_leaf_node", "_acc", "_hooks", "_base", "__weakref__",
                 "__dict__")
    _trace = TORCH
    __hash__ = object.__hash__
    __array_priority__ = 1000

    # ----------------------------------------------------------------------
    # construction

    def __init__(self, *args, device=None, dtype=None):
        check_device(device)
        dt = _dtype.get_default_dtype() if dtype is None else _dtype.as_dtype(dtype)
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = args[0]
            if isinstance(data, Tensor):
                data = data._data
            arr = np.array(data, dtype=dt.dtype)
        else:
            arr = np.zeros(tuple(int(a) for a in args), dtype=dt.dtype)
        self._init(arr)

    def _init(self, data, requires_grad=False, node=None, out_index=0, version=None):
        self._data = data
        self._requires_grad = requires_grad
        self._grad = None
        self._node = node
        self._out_index = out_index
        if version is None:
            version = InferenceCounter() if _grad_mode._state.inference else VersionCounter()
        self._vc = version
        self._retains_grad = False
        self._leaf_node = None
        self._acc = None
        self._hooks = None
        self._base = None

    @classmethod
    def _wrap(cls, data):
        """A tensor that does not require grad, holding ``data`` (not copied)."""
        t = object.__new__(Tensor)
        if type(data) is not np.ndarray:  # a tracegrad.Array's data is its plain view
            data = _as_data(data)
        t._init(data)
        return t

    @classmethod
    def _from_node(cls, data, node, out_index, version):
        """The tensor output ``out_index`` of a recorded node (the hot path:
        :meth:`_init` inlined)."""
        t = object.__new__(Tensor)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._requires_grad = True
        t._grad = None
        t._node = node
        t._out_index = out_index
        t._vc = version
        t._retains_grad = False
        t._leaf_node = None
        t._acc = None
        t._hooks = None
        t._base = None
        return t

    # ----------------------------------------------------------------------
    # engine plumbing

    @property
    def primal(self):
        return self._data

    def _leaf_engine_node(self):
        node = self._leaf_node
        if node is None:
            node = self._leaf_node = VJPNode(None, None, None, None, (), meta=self)
        return node

    def _engine_edge(self):
        """``(node, out_index)`` where this tensor's cotangent goes."""
        if self._node is None:
            return self._leaf_engine_node(), 0
        return self._node, self._out_index

    def _edge(self):
        """This tensor's entry in a consumer's ``next_functions``."""
        if not self._requires_grad:
            return None
        if self._node is None:
            return self
        return (self._node, self._out_index)

    def _accumulate_grad(self):
        acc = self._acc
        if acc is None:
            acc = self._acc = AccumulateGrad(self)
        return acc

    def _accumulate(self, g, create_graph=False):
        """Add a finished gradient tensor ``g`` into ``.grad``, as PyTorch does."""
        if self._hooks and self._node is None:
            for h in list(self._hooks):
                r = h(g)
                if r is not None:
                    g = r
        if self._grad is None:
            self._grad = g if (create_graph or not g._requires_grad) else g.detach()
        elif create_graph:
            self._grad = self._grad + g  # recorded: higher derivatives see the sum
        else:
            # in place, as PyTorch's no-grad ``grad += new`` (a grad made with
            # create_graph keeps requiring grad); a read-only or shared buffer
            # gets new data instead
            old = self._grad._data
            if old.flags.writeable and old.flags.owndata and old.dtype == g._data.dtype:
                np.add(old, g._data, out=old)
            else:
                self._grad._data = (old + g._data).astype(old.dtype, copy=False)
            self._grad._vc.value += 1

    # ----------------------------------------------------------------------
    # attributes

    @property
    def shape(self):
        d = self._data
        if type(d) is np.ndarray:  # a tuple of ints already: no per-dimension int()
            return tuple.__new__(Size, d.shape)
        return Size(d.shape)

    def size(self, dim=None):
        """The shape (a :class:`Size`), or the length of dimension ``dim``."""
        if dim is None:
            return self.shape
        return self._data.shape[_dim(dim, self._data.ndim)]

    def dim(self):
        """Number of dimensions."""
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        """Number of elements."""
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        """Bytes per element."""
        return self._data.itemsize

    @property
    def dtype(self):
        return _dtype.as_dtype(self._data.dtype)

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    @property
    def layout(self):
        return "torch.strided"

    def is_floating_point(self):
        """True for a floating-point dtype."""
        return self._data.dtype.kind == "f"

    def is_complex(self):
        """True for a complex dtype."""
        return self._data.dtype.kind == "c"

    def is_contiguous(self, memory_format=None):
        """True if the data is C-contiguous (always, inside ``torch.func`` transforms)."""
        if type(self._data) is not np.ndarray:
            return True
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim=None):
        """Strides in elements (PyTorch's convention), or of one dimension."""
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_dim(dim, self._data.ndim)]

    def data_ptr(self):
        """Address of the first element."""
        return self._data.__array_interface__["data"][0]

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        flag = bool(flag)
        if self._node is not None:
            if flag:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want "
                "to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
        if flag and self._data.dtype.kind not in "fc":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        if flag and self._data.dtype.kind == "c":
            raise NotImplementedError(COMPLEX_GRAD)
        self._requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place and return ``self``.

        On a non-leaf, ``requires_grad_(True)`` is a no-op (it already
        requires grad) and ``requires_grad_(False)`` raises RuntimeError.
        """
        if self._node is not None and requires_grad:
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def grad_fn(self):
        node = self._node
        return None if node is None else facade(node)

    @property
    def grad(self):
        if self._node is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                "accessed. Its .grad attribute won't be populated during "
                "autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
                "access the non-leaf Tensor by mistake, make sure you access the leaf "
                "Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
                "information.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.cpp_name(value._data.dtype)}'"
                    f" to a tensor with grad_dtype '{_dtype.scalar_type_name(self._data.dtype)}'. "
                    "The gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, "
                    "or None to allow any dtype. Set grad_dtype with caution. Diverging the "
                    "dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def _version(self):
        """How many times this tensor's data was modified in place (PyTorch's ``_version``)."""
        if type(self._vc) is InferenceCounter:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    def is_inference(self):
        """True if this tensor was created under ``inference_mode()``."""
        return type(self._vc) is InferenceCounter

    @property
    def data(self):
        t = Tensor._wrap(self._data)  # same storage, untracked (not the same counter)
        t._base = self
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError("data must be a Tensor")
        self._data = value._data

    # ----------------------------------------------------------------------
    # autograd methods

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the leaves' ``.grad``.

        Parameters
        ----------
        gradient : Tensor, optional
            The vector of the vector-Jacobian product, shaped like ``self``;
            required unless ``self`` has one element.
        retain_graph : bool, optional
            Keep saved values for another backward (default: ``create_graph``).
        create_graph : bool, optional
            Record the backward pass, for higher-order derivatives.
        inputs : Tensor or sequence of Tensors, optional
            Accumulate only into these.

        Raises
        ------
        RuntimeError
            If ``self`` does not require grad, ``gradient`` is missing for a
            non-scalar or has the wrong shape, a saved value was modified in
            place, or the graph was already freed.
        """
        if inputs is not None and isinstance(inputs, Tensor):
            inputs = (inputs,)
        run_backward((self,), (gradient,), retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Populate ``.grad`` for this non-leaf tensor during backward passes."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._node is None or self._retains_grad:
            return
        x = extras(self._node.meta)
        if x.retained is None:
            x.retained = {}
        x.retained.setdefault(self._out_index, []).append(weakref.ref(self))
        self._retains_grad = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed.

        The hook may return a new gradient to use instead.  Returns a handle
        with ``remove()``.

        Raises
        ------
        RuntimeError
            If the tensor does not require grad.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._node is None:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return _RemovableHandle(self._hooks, hook)
        x = extras(self._node.meta)
        if x.hooks is None:
            x.hooks = {}
        hooks = x.hooks.setdefault(self._out_index, [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def detach(self):
        """A new tensor sharing storage and version counter, outside the graph.

        Inside a ``torch.func`` transform, a constant to that transform
        (``tracegrad.stop_gradient``); a ``vmap`` batch stays batched.
        """
        if type(self._data) is not np.ndarray:
            return Tensor._wrap(ops.stop_gradient(self._data))
        t = Tensor._wrap(self._data)
        t._vc = self._vc
        t._base = self
        return t

    def detach_(self):
        """Detach this tensor from the graph in place (it becomes a leaf)."""
        if self._base is not None and self._base._requires_grad and self._node is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead."
            )
        self._node = None
        self._out_index = 0
        self._requires_grad = False
        return self

    # ----------------------------------------------------------------------
    # conversions

    def numpy(self, *, force=False):
        """The data as a NumPy array (shares memory).

        Raises
        ------
        RuntimeError
            If the tensor requires grad and grad mode is on (use
            ``detach().numpy()``), unless ``force=True`` (then a copy).
        """
        if type(self._data) is not np.ndarray:
            _traced_conversion(self, "numpy()")
        if self._requires_grad and _grad_mode._state.enabled:
            if force:
                return np.array(self._data)
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """The result of a NumPy function applied to tensors (``np.sin(t)``,
        which read them through :meth:`__array__`) as a tensor, as PyTorch's
        (a boolean result as ``uint8``, as PyTorch's)."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor._wrap(array)

    def item(self):
        """The value of a one-element tensor as a Python number.

        Raises
        ------
        RuntimeError
            If the tensor has more than one element.
        """
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        # (inside torch.func the tracer's value as a constant; under vmap it raises)
        return self._data.reshape(()).item()

    def tolist(self):
        """The data as (nested) Python lists."""
        return self._data.tolist()

    def __float__(self):
        if type(self._data) is not np.ndarray:
            _traced_conversion(self, "float()")
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous"
            )
        if type(self._data) is not np.ndarray:
            return bool(self._data.reshape(()))  # the tracer decides (vmap: raises)
        return bool(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self.item())

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __reversed__(self):
        return self.flip(0)

    def __contains__(self, value):
        return bool((self == value).any())

    def __repr__(self):
        if type(self._data) is not np.ndarray:
            # inside a torch.func transform (PyTorch prints its wrapper tensors similarly)
            try:
                return f"tensor({self._data!r})"
            except TypeError:  # (a batched value inside another transform)
                return (f"tensor({type(self._data).__name__}, shape={tuple(self._data.shape)}, "
                        f"dtype={self._data.dtype})")
        name = self.grad_fn.name() if self._node is not None else None
        if name is not None and name.startswith("torch::autograd::"):
            name = name[len("torch::autograd::"):]  # PyTorch prints <CopySlices>
        return format_tensor(self._data, requires_grad=self._requires_grad, grad_fn_name=name)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if self._node is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        t = Tensor._wrap(np.array(self._data))
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._wrap(np.array(self._grad._data))
        memo[id(self)] = t
        return t

    def __reduce_ex__(self, proto):
        # (pickle saves the data; copy.copy(t) shares it, as PyTorch's)
        return (_rebuild, (self._data, self._requires_grad))

    def __setstate__(self, state):  # pragma: no cover - pickling goes through _rebuild
        pass


def _as_data(data):
    """``data`` as a tensor's data: an array, or a functional transform's
    tracer (inside ``tracegrad.torch.func``), kept as it is."""
    if isinstance(data, ArrayTracer):
        return data
    return np.asarray(data)


def _traced_conversion(t, what):
    """The error for ``what`` (a conversion to NumPy or Python) of a tensor
    inside a ``torch.func`` transform."""
    raise RuntimeError(
        f"{what} of a tensor inside a tracegrad.torch.func transform (its value is "
        f"traced: {type(t._data).__name__}, shape {tuple(t._data.shape)}) would drop "
        "its derivative (or, under vmap, has one value per example). Keep the "
        "computation on tensors, use t.detach() for a constant, or move the "
        "conversion outside the transformed function."
    )


def _rebuild(data, requires_grad):
    t = Tensor._wrap(data)
    t._requires_grad = requires_grad
    return t


def _dim(d, ndim):
    d = int(d)
    if not -max(ndim, 1) <= d < max(ndim, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
            f"{max(ndim, 1) - 1}], but got {d})"
        )
    return d % max(ndim, 1)
