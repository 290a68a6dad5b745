"""The core every layer stands on: primitives, traces, tracers, the current trace.

This is the bottom layer of tracegrad (see the README, "How it is built").
It owns:

* :class:`Primitive` and the ``registry`` of them, and ``bind``, the only
  door through which an operation reaches an interpreter;
* abstract values (:class:`ShapedArray`, :func:`shape_of`, :func:`dtype_of`);
* the *current trace*, held in a thread-local context ("stackless" style):
  ``Primitive.bind`` asks it which interpreter should process an operation;
* :class:`Trace`, the base of every interpreter (eval, jvp, vjp, batching,
  later staging), each of which links to the ``parent`` trace it delegates
  primal computations to, and :class:`EvalTrace`, the bottom one;
* :class:`Tracer`, the base of every traced value (the functional
  transforms' and the PyTorch layer's tensors), and :class:`ArrayTracer`,
  the base of the functional transforms' tracers, on which
  ``tracegrad.numpy`` installs NumPy's methods.  Tracers carry concrete
  values, so Python control flow on them works inside every transform.

Each transform creates a fresh trace whose tracers are tagged with it.  A
tracer met by a trace that is not its own is, if its trace is still alive,
a value from an enclosing transform (a closure) and is treated as a
constant; if its trace has finished it has *leaked* out of its transform
and using it raises :class:`UnexpectedTracerError`.  This tagging is what
rules out perturbation confusion in nested derivatives.

Nothing here knows about any particular primitive, interpreter or the
NumPy and PyTorch faces built on top; it imports only NumPy.
"""
import threading

import numpy as np

__all__ = [
    "Primitive",
    "ShapedArray",
    "shape_of",
    "dtype_of",
    "registry",
    "Trace",
    "EvalTrace",
    "Tracer",
    "ArrayTracer",
    "UnexpectedTracerError",
    "current_trace",
    "new_trace",
    "TracerConversionError",
    "get_aval",
    "concrete_value",
    "is_concrete",
]


class UnexpectedTracerError(Exception):
    """A tracer was used after the transform that created it had returned.

    This happens when a traced value is stored somewhere (a global, a list
    outside the function, an object attribute) and used after the
    transform finished.  Return such values from the transformed function
    instead, or wrap them in ``tracegrad.stop_gradient`` before storing.
    """


class Trace:
    """Base class of interpreters.

    Parameters
    ----------
    parent : Trace
        The interpreter that primal computations are delegated to.

    Attributes
    ----------
    level : int
        Nesting depth (the eval trace is level 0).
    alive : bool
        False once the transform that owns this trace has returned.
    """

    __slots__ = ("parent", "level", "alive")

    #: An eager trace records operations as they run, for the whole program
    #: (it is never "current"); the eval trace forwards its tracers to it.
    eager = False

    def __init__(self, parent):
        self.parent = parent
        self.level = 0 if parent is None else parent.level + 1
        self.alive = True

    def process_primitive(self, primitive, args, params):
        """Apply ``primitive`` to ``args`` (a tuple) with static ``params``."""
        raise NotImplementedError

    def leaked(self, tracer):
        if tracer._trace.alive:
            return UnexpectedTracerError(
                f"Encountered a tracer (shape {tracer.shape}, dtype {tracer.dtype}) of "
                f"a {type(tracer._trace).__name__} that is still running, but not in "
                "this context: transforms are per thread, so a traced value cannot be "
                "used from another thread (or outside the function being "
                "transformed). Pass plain arrays between threads, or "
                "tracegrad.stop_gradient(value)."
            )
        return UnexpectedTracerError(
            f"Encountered a tracer of a {type(tracer._trace).__name__} that has "
            f"already finished (shape {tracer.shape}, dtype {tracer.dtype}). "
            "A traced value escaped the transformed function, for example by "
            "being stored in a global or an outer list. Return it from the "
            "function instead, or store tracegrad.stop_gradient(value)."
        )

    def __repr__(self):
        return f"{type(self).__name__}(level={self.level})"


class EvalTrace(Trace):
    """The bottom interpreter: runs each primitive's impl on concrete arrays.

    Tracers of an *eager* trace (a trace that lives for the whole program
    and records as it goes, like the PyTorch layer's) are valid everywhere:
    an operation on one is handed to that trace.  Any other tracer reaching
    this interpreter has leaked out of its transform.
    """

    __slots__ = ()

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                if a._trace.eager:
                    return a._trace.process_primitive(primitive, args, params)
                raise self.leaked(a)
        return primitive.impl(*args, **params) if params else primitive.impl(*args)


class _Context(threading.local):
    def __init__(self):
        self.trace = EvalTrace(None)


_ctx = _Context()


def current_trace():
    """Return the interpreter that ``bind`` currently dispatches to."""
    return _ctx.trace


class TracerConversionError(TypeError):
    """``float()`` or ``complex()`` of a traced value (which would drop its
    derivative), raised explicitly or through NumPy (``a[i] = tracer``)."""


class new_trace:
    """Context manager running its body under a new trace.

    ``with new_trace(JVPTrace) as trace:`` creates ``JVPTrace(parent)``
    whose parent is the current trace, makes it current, and on exit (normal
    or by exception) restores the previous trace and marks the new one dead,
    so no interpreter state outlives the transform.
    """

    __slots__ = ("trace", "prev")

    def __init__(self, trace_type, *args):
        self.prev = _ctx.trace
        self.trace = trace_type(self.prev, *args)

    def __enter__(self):
        _ctx.trace = self.trace
        return self.trace

    def __exit__(self, exc_type, exc, tb):
        _ctx.trace = self.prev
        self.trace.alive = False
        if exc_type is ValueError and isinstance(exc.__cause__, TracerConversionError):
            # NumPy's float store (a[i] = tracer) replaces the tracer's
            # TypeError by its own "setting an array element with a
            # sequence"; hand the user the one that names the fix
            raise exc.__cause__.with_traceback(tb) from None
        return False


class set_trace:
    """Context manager making ``trace`` current for its body (no new trace)."""

    __slots__ = ("trace", "prev")

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        self.prev = _ctx.trace
        _ctx.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        _ctx.trace = self.prev
        return False


def is_concrete(x):
    """True when ``x`` has one concrete value: an array, a scalar, or a
    tracer whose chain of primals ends in one (not a staged value, which has
    none, nor a batched one, which has one per example).  Checks that read
    values (NumPy's errors for bad data) run only on concrete inputs."""
    while isinstance(x, ArrayTracer):
        if not x.single_value:
            return False
        x = x.primal
    return True


def concrete_value(x):
    """The concrete NumPy value under any number of tracer layers."""
    while isinstance(x, Tracer):
        x = x.primal
    return x


def get_aval(x):
    """Return ``(shape, dtype)`` of an array, scalar or tracer."""
    if isinstance(x, (np.ndarray, np.generic, Tracer)):
        return x.shape, x.dtype
    x = np.asarray(x)
    return x.shape, x.dtype


class Tracer:
    """The base of every traced value: what the core needs of one.

    A traced value belongs to the trace in ``_trace``: :meth:`EvalTrace.process_primitive`
    hands an operation on it to that trace if the trace is *eager* (the
    PyTorch layer's tensors), and otherwise reports the value as leaked.
    Each subclass also provides

    * ``primal``: the value one level down (an array, or a tracer of the
      parent trace), which :func:`concrete_value` follows to the concrete
      value;
    * ``shape`` and ``dtype``, read by :func:`get_aval` and the error
      messages of :meth:`Trace.leaked`.

    This class adds no methods, so each face built on top decides the
    methods of its values: :class:`ArrayTracer` is the base of the
    functional interpreters' tracers (NumPy's methods), and
    ``tracegrad.torch.Tensor`` subclasses this class directly (PyTorch's).
    ``isinstance(x, Tracer)`` asks "is ``x`` any traced value";
    ``isinstance(x, ArrayTracer)`` asks "is ``x`` a functional transform's
    tracer".
    """

    __slots__ = ("_trace",)


class ArrayTracer(Tracer):
    """A traced value of a functional transform (jvp, vjp, vmap, and later
    staging): the base of their tracers, which behave like NumPy arrays.

    Subclasses (one per interpreter) store a ``primal`` (the value one level
    down: an array, or a tracer of the parent trace).  Shape, dtype and the
    concrete value are read through the chain of primals.  NumPy's
    operators, methods (``x.sum()``, ``x.T``, ``x.at[i].set(v)``, ...) and
    dispatch protocols (``__array_ufunc__``, ``__array_function__``) are
    installed on this class by ``tracegrad.numpy`` (its ``_methods``
    module), so that ordinary NumPy code runs on tracers; this class holds
    what needs no primitive: shapes, sizes and the conversions to Python
    values.
    """

    __slots__ = ()
    __array_priority__ = 1000
    #: False for tracers without one concrete value (staged; batched): see
    #: :func:`is_concrete`.
    single_value = True
    # Tracers are not hashable (their value changes under transforms), as in
    # every tracing autodiff system; use ``id(x)`` as a key instead.
    __hash__ = None

    @property
    def shape(self):
        return self.primal.shape

    @property
    def dtype(self):
        return self.primal.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.shape[0]))

    # Concrete conversions.  Tracers carry concrete values, so Python control
    # flow works (bool) and integers can index (int, __index__: no derivative
    # exists).  float() and complex() raise: NumPy calls them implicitly
    # (np.float64(x), a[i] = x), and a silent conversion would drop the
    # derivative.  item() and stop_gradient are the explicit ways out.
    def __bool__(self):
        return bool(concrete_value(self))

    def __float__(self):
        raise TracerConversionError(self._conversion_message("float"))

    def __complex__(self):
        raise TracerConversionError(self._conversion_message("complex"))

    def _conversion_message(self, kind):
        return (
            f"{kind}() of a traced value (shape {self.shape}, dtype {self.dtype}) "
            "would silently drop its derivative. This also happens implicitly in "
            "NumPy, e.g. np.float64(x) or a[i] = x on a NumPy array (write "
            "a = tnp.at(a)[i].set(x), or x.at[i].set(v) on a traced array, with "
            "tnp = tracegrad.numpy). Keep the computation on arrays, or take the "
            "value as a constant explicitly: x.item() or tracegrad.stop_gradient(x)."
        )

    def __int__(self):
        return int(concrete_value(self))

    def __index__(self):
        return int(np.asarray(concrete_value(self)).__index__())

    def __format__(self, spec):
        # Formatting (printing, logging) reads the value; no derivative involved.
        return format(concrete_value(self), spec)

    def __copy__(self):
        return self  # traced values are immutable

    def __deepcopy__(self, memo):
        return self

    def item(self):
        """The concrete value as a Python scalar: explicitly a constant (no derivative)."""
        return concrete_value(self).item()

    def tolist(self):
        """The concrete value as nested Python lists (no derivative flows)."""
        return np.asarray(concrete_value(self)).tolist()

    def __array__(self, dtype=None, copy=None):
        # An integer or boolean conversion (np.int64(x), np.asarray(x, dtype=int))
        # reads the concrete value, like int(x): such a result has no derivative
        # (its tangent is float0), so nothing is dropped.  JAX refuses these;
        # tracegrad allows them as it allows int(x).  Any other dtype raises.
        if dtype is not None and np.dtype(dtype).kind in "biu":
            return np.asarray(concrete_value(self)).astype(dtype)
        raise TypeError(
            f"A tracegrad tracer (shape {self.shape}, dtype {self.dtype}) cannot "
            "be converted to a NumPy array: that would silently drop its "
            "derivative (under vmap, its batch). Indexing a NumPy array with a "
            "traced index, xs[i], needs tnp.take(xs, i, axis=0); storing into a "
            "NumPy array, a[i] = x, needs a = tnp.at(a)[i].set(x) (tnp = "
            "tracegrad.numpy). Otherwise use tracegrad.numpy functions (or NumPy "
            "functions that tracegrad supports) on it, or tracegrad.stop_gradient(x) "
            "if you mean to treat it as a constant."
        )

    def __repr__(self):
        return (
            f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
            f"value={concrete_value(self)!r})"
        )


# --- primitives and abstract values ------------------------------------------

registry = {}


class ShapedArray(tuple):
    """An abstract value: ``(shape, dtype)``, what staging knows of an array."""

    __slots__ = ()

    def __new__(cls, shape, dtype):
        return tuple.__new__(cls, (tuple(shape), np.dtype(dtype)))

    shape = property(lambda self: self[0])
    dtype = property(lambda self: self[1])
    ndim = property(lambda self: len(self[0]))

    def __getnewargs__(self):  # pickle (a jitted function's cache keys travel to Dask workers)
        return tuple(self)

    def __repr__(self):
        return f"ShapedArray({self[0]}, {self[1]})"


def shape_of(x):
    """Shape of an array, tracer, abstract value or Python scalar."""
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else np.shape(x)


def dtype_of(x):
    """Dtype of an array, tracer or abstract value; NumPy's for a scalar."""
    d = getattr(x, "dtype", None)
    return d if d is not None else np.asarray(x).dtype


#: ``Primitive.reads`` of a rule that reads every argument and the output.
READS_ALL = ("all", True)
#: ``Primitive.reads`` of a rule that reads no value (only shapes, dtypes).
READS_NOTHING = ((), False)


class Primitive:
    """A primitive operation.

    Parameters
    ----------
    name : str
        Unique name, used in error messages and graph pictures.
    multiple_results : bool, optional
        True if ``impl`` returns a tuple of arrays.

    Attributes
    ----------
    differentiable : bool
        False for operations whose outputs carry no derivative (comparisons,
        argmax, integer results).  Interpreters pass them straight through.
    reads : tuple or callable
        What the reverse rule reads of the recorded values, so what an
        eager recorder (the PyTorch layer) must keep and version-check:
        ``(argnums, reads_output)``, where ``argnums`` is a tuple of argument
        indices or ``"all"`` and ``reads_output`` says whether the rule reads
        the output.  Rules that use only shapes read nothing:
        ``((), False)``.  A callable takes one flag per argument (True if it
        is differentiated) and returns such a pair, for rules whose reads
        depend on it (``x * y``: each side's rule reads the other operand).
        Default :data:`READS_ALL` (every argument and the output), always
        safe.
    torch_name : str or None
        PyTorch's name for the backward node of this primitive alone
        (``"MulBackward0"``), shown as ``grad_fn`` where no PyTorch-level
        operation names the node.  None (default): the name is derived from
        ``name`` (``"log_sigmoid"`` -> ``"LogSigmoidBackward0"``).
    lowering : object or None
        How ``jit`` generates compiled code for this primitive: an
        ``Elementwise``, ``Reduction`` or ``ArrayOp`` of
        :mod:`tracegrad.primitives.lowering` (interface described in
        :mod:`tracegrad.transforms.codegen`).  None (default): compiled
        programs call ``impl`` from their Python driver.
    vjp_fwd : callable or None
        ``vjp_fwd(primals, **params) -> (out, residuals)``: the forward pass
        of a primitive whose reverse rule would otherwise have to recompute
        it (``scan`` stacks its per-step residuals as it runs).  Reverse mode
        calls it under the enclosing trace in place of applying the
        primitive, and hands ``residuals`` to the VJP rule as the keyword
        argument ``residuals``.  None (default): reverse mode applies the
        primitive as usual and the rule sees only the primals and the output.
    """

    __slots__ = (
        "name",
        "multiple_results",
        "impl",
        "abstract_eval",
        "jvp",
        "vjp",
        "batch",
        "differentiable",
        "reads",
        "torch_name",
        "lowering",
        "vjp_fwd",
        "__weakref__",
    )

    def __init__(self, name, multiple_results=False):
        if name in registry:
            raise ValueError(f"primitive {name!r} is already registered")
        self.name = name
        self.multiple_results = multiple_results
        self.impl = None
        self.abstract_eval = None
        self.jvp = None
        self.vjp = None
        self.batch = None
        self.differentiable = True
        self.reads = READS_ALL
        self.torch_name = None
        self.lowering = None
        self.vjp_fwd = None
        registry[name] = self

    def bind(self, *args, **params):
        """Apply this primitive under the current interpreter."""
        return _ctx.trace.process_primitive(self, args, params)

    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_abstract_eval(self, fn):
        self.abstract_eval = fn
        return fn

    def __repr__(self):
        return f"Primitive({self.name})"
