"""Staging: trace a function with abstract values into a typed IR (a jaxpr).

The IR (:class:`Jaxpr`) is a list of equations over variables, each
variable typed by an abstract value (:class:`~tracegrad.core.ShapedArray`:
shape and dtype):

* ``constvars``: arrays the function closed over (their values travel
  beside the IR, in :class:`ClosedJaxpr`);
* ``invars``: one per flattened input;
* ``eqns``: :class:`JaxprEqn` -- a primitive, its input atoms (variables,
  or :class:`Literal` Python scalars), its static params and its output
  variables, typed by the primitive's ``abstract_eval``;
* ``outvars``: the atoms returned.

:class:`StagingTrace` is an interpreter like the others: one op-agnostic
``process_primitive`` that appends an equation instead of computing.  Its
:class:`StagingTracer` has a shape and a dtype but no value, so everything
that needs one (``bool``, ``int``, ``np.asarray``, ``concrete_value``)
raises :class:`tracegrad.errors.ConcretizationTypeError`; transforms nest
over it as over any trace (``make_jaxpr(grad(f))`` stages the forward and
the backward pass).

:func:`eval_jaxpr` runs an IR by binding its primitives, so it runs under
any transform too; :func:`check_jaxpr` validates one (every variable
defined once before use, every equation's types as ``abstract_eval`` says).
"""
import itertools

import numpy as np

from ..core import ArrayTracer, ShapedArray, Trace, Tracer
from ..errors import concretization_error

__all__ = ["Var", "Literal", "JaxprEqn", "Jaxpr", "ClosedJaxpr", "StagingTrace",
           "StagingTracer", "eval_jaxpr", "check_jaxpr", "JaxprTypeError", "aval_of"]


class JaxprTypeError(TypeError):
    """An IR failed :func:`check_jaxpr` (a bug in a rule or in staging)."""


def aval_of(x):
    """The abstract value (ShapedArray) of an array, scalar, tracer or aval."""
    if isinstance(x, ShapedArray):
        return x
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None:
        a = np.asarray(x)
        shape, dtype = a.shape, a.dtype
    return ShapedArray(shape, dtype)


_var_count = itertools.count()  # (next() on it is atomic under the GIL)


#: The Python scalar standing for a weakly typed variable in ``abstract_eval``
#: (a rule sees it as the Python number it came from), by dtype kind.
_WEAK_SAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


class Var:
    """A variable of the IR, typed by ``aval``; named when printed.

    ``weak_type``: the variable stands for a Python scalar argument (of
    NumPy's default dtype for its kind), so rules type it as that Python
    number: ``x * y`` with ``x`` float32 and ``y`` a Python float stays
    float32, as when the function runs eagerly.
    """

    __slots__ = ("aval", "count", "weak_type")

    def __init__(self, aval, weak_type=False):
        self.aval = aval
        self.count = next(_var_count)
        self.weak_type = weak_type

    @property
    def rule_aval(self):
        """What ``abstract_eval`` gets for this variable."""
        return _WEAK_SAMPLE[self.aval.dtype.kind] if self.weak_type else self.aval

    def __repr__(self):
        return f"Var({self.count}: {_type_str(self.aval)})"


class Literal:
    """A Python scalar (or None) operand, kept as its value in the IR."""

    __slots__ = ("val",)

    def __init__(self, val):
        self.val = val

    @property
    def aval(self):
        return self.val  # abstract_eval takes Python values as they are

    rule_aval = aval

    def __repr__(self):
        return f"Literal({self.val!r})"


class JaxprEqn:
    """``outvars = primitive[params](*invars)``."""

    __slots__ = ("primitive", "invars", "params", "outvars")

    def __init__(self, primitive, invars, params, outvars):
        self.primitive = primitive
        self.invars = invars
        self.params = params
        self.outvars = outvars


class Jaxpr:
    """The typed IR of a function (see the module docstring).

    Attributes
    ----------
    constvars, invars : list of Var
    eqns : list of JaxprEqn
    outvars : list of Var or Literal
    """

    __slots__ = ("constvars", "invars", "eqns", "outvars")

    def __init__(self, constvars, invars, eqns, outvars):
        self.constvars = constvars
        self.invars = invars
        self.eqns = eqns
        self.outvars = outvars

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [aval_of(v.val) if isinstance(v, Literal) else v.aval for v in self.outvars]

    def __str__(self):
        return _pp_jaxpr(self)

    def pretty_print(self):
        return str(self)

    def __repr__(self):
        return str(self)


class ClosedJaxpr:
    """A :class:`Jaxpr` with the values of its ``constvars`` (``consts``).

    ``str()`` prints the IR one equation per line, as ``jax.make_jaxpr``'s
    result does; ``jaxpr``, ``consts``, ``in_avals``, ``out_avals``,
    ``eqns`` as in JAX.  Calling it evaluates it (:func:`eval_jaxpr`).
    """

    __slots__ = ("jaxpr", "consts")

    def __init__(self, jaxpr, consts):
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)

    def __call__(self, *args):
        return eval_jaxpr(self.jaxpr, self.consts, *args)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__


class StagingTracer(ArrayTracer):
    """A staged value: an IR variable, with a shape and a dtype and no value."""

    __slots__ = ("var",)
    single_value = False  # no value at all

    def __init__(self, trace, var):
        self._trace = trace
        self.var = var

    @property
    def aval(self):
        return self.var.aval

    @property
    def shape(self):
        return self.var.aval.shape

    @property
    def dtype(self):
        return self.var.aval.dtype

    @property
    def primal(self):
        # what concrete_value() follows to the value: there is none
        raise concretization_error("reading the value", _type_str(self.aval))

    def __bool__(self):
        raise concretization_error("bool", _type_str(self.aval))

    def __int__(self):
        raise concretization_error("int", _type_str(self.aval))

    def __index__(self):
        raise concretization_error("index", _type_str(self.aval))

    def __float__(self):  # (the base class's message is about dropped derivatives)
        raise concretization_error("float()", _type_str(self.aval))

    def __complex__(self):
        raise concretization_error("complex()", _type_str(self.aval))

    def __array__(self, dtype=None, copy=None):
        raise concretization_error("array", _type_str(self.aval))

    def __format__(self, spec):
        return repr(self)

    def item(self):
        raise concretization_error("item()", _type_str(self.aval))

    def tolist(self):
        raise concretization_error("tolist()", _type_str(self.aval))

    def __repr__(self):
        return f"Traced<{_type_str(self.aval)}>"


class StagingTrace(Trace):
    """The staging interpreter: records each primitive as an equation.

    Values reaching it that are not its own tracers become operands of the
    IR: Python scalars are :class:`Literal`; arrays (and tracers of
    enclosing, still running transforms) are constants, one ``constvar``
    per distinct object, their values kept in ``consts``.
    """

    __slots__ = ("eqns", "invars", "constvars", "consts", "_const_ids")

    def __init__(self, parent):
        super().__init__(parent)
        self.eqns = []
        self.invars = []
        self.constvars = []
        self.consts = []
        self._const_ids = {}

    def new_arg(self, aval, weak_type=False):
        """A fresh input variable of abstract value ``aval`` and its tracer
        (``weak_type``: it stands for a Python scalar; see :class:`Var`)."""
        var = Var(aval_of(aval), weak_type)
        self.invars.append(var)
        return StagingTracer(self, var)

    def atom(self, x):
        """The IR operand for ``x`` (a tracer of this trace, a scalar, a constant)."""
        if isinstance(x, StagingTracer) and x._trace is self:
            return x.var
        if isinstance(x, Tracer):
            if not x._trace.alive:
                raise self.leaked(x)
            return self.const(x)
        if x is None or isinstance(x, (bool, int, float, complex)):
            return Literal(x)
        return self.const(x)

    def const(self, x):
        """The constvar holding array (or outer tracer) ``x``."""
        var = self._const_ids.get(id(x))
        if var is None:
            if not isinstance(x, Tracer):
                x = np.asarray(x)
            # (an enclosing staging's Python-scalar input stays weakly typed
            # in a sub-IR: a loop body closing over it types as eagerly)
            weak = isinstance(x, StagingTracer) and x.var.weak_type
            var = self._const_ids[id(x)] = Var(aval_of(x), weak)
            self.constvars.append(var)
            self.consts.append(x)
        return var

    def process_primitive(self, prim, args, params):
        for a in args:
            if isinstance(a, Tracer) and a._trace.eager:
                # a value of an eager trace (a tracegrad.torch tensor, whose data may
                # be this trace's tracer): that trace runs the operation, and binds it
                # on the data, as the eval trace hands such values over
                return a._trace.process_primitive(prim, args, params)
        invars = [self.atom(a) for a in args]
        if prim.abstract_eval is None:
            raise NotImplementedError(
                f"primitive '{prim.name}' has no abstract evaluation rule, so it cannot "
                "be staged (traced into the IR)")
        out = prim.abstract_eval(*[v.rule_aval for v in invars], **params)
        avals = [aval_of(a) for a in out] if prim.multiple_results else [aval_of(out)]
        outvars = [Var(a) for a in avals]
        self.eqns.append(JaxprEqn(prim, invars, dict(params), outvars))
        tracers = [StagingTracer(self, v) for v in outvars]
        return tracers if prim.multiple_results else tracers[0]

    def to_jaxpr(self, outs):
        """The IR of everything recorded, returning ``outs`` (flat list)."""
        outvars = [self.atom(o) for o in outs]
        return ClosedJaxpr(Jaxpr(list(self.constvars), list(self.invars), list(self.eqns),
                                 outvars), self.consts)


# --------------------------------------------------------------------------
# evaluation and checking


def eval_jaxpr(jaxpr, consts, *args):
    """Run ``jaxpr`` on ``consts`` and ``args`` by binding its primitives.

    Runs under whatever trace is current, so an IR differentiates, batches
    and stages again like the function it came from.

    Returns
    -------
    list
        One value per ``jaxpr.outvars``.

    Raises
    ------
    TypeError
        If the number of ``consts`` or ``args`` does not match the IR.
    """
    if len(consts) != len(jaxpr.constvars) or len(args) != len(jaxpr.invars):
        raise TypeError(
            f"eval_jaxpr: the IR takes {len(jaxpr.constvars)} constants and "
            f"{len(jaxpr.invars)} arguments, got {len(consts)} and {len(args)}")
    env = {}
    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x

    def read(a):
        return a.val if type(a) is Literal else env[a]

    for eqn in jaxpr.eqns:
        out = eqn.primitive.bind(*[read(a) for a in eqn.invars], **eqn.params)
        if eqn.primitive.multiple_results:
            for v, o in zip(eqn.outvars, out):
                env[v] = o
        else:
            env[eqn.outvars[0]] = out
    return [read(a) for a in jaxpr.outvars]


def check_jaxpr(jaxpr):
    """Validate ``jaxpr``: each variable is defined once, before it is used,
    and each equation's output types are what its primitive's
    ``abstract_eval`` gives for its input types.

    Raises
    ------
    JaxprTypeError
        Naming the equation and what is wrong.
    """
    defined = set()

    def define(v, where):
        if not isinstance(v, Var):
            raise JaxprTypeError(f"{where}: {v!r} is not a variable")
        if v in defined:
            raise JaxprTypeError(f"{where}: variable {v!r} is defined twice")
        defined.add(v)

    def use(a, where):
        if type(a) is Literal:
            return
        if a not in defined:
            raise JaxprTypeError(f"{where}: variable {a!r} is used before it is defined")

    for v in jaxpr.constvars:
        define(v, "constvars")
    for v in jaxpr.invars:
        define(v, "invars")
    for k, eqn in enumerate(jaxpr.eqns):
        where = f"equation {k} ({eqn.primitive.name})"
        for a in eqn.invars:
            use(a, where)
        for name, sub in _sub_jaxprs(eqn.params):
            try:
                check_jaxpr(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub)
            except JaxprTypeError as e:
                raise JaxprTypeError(f"{where}, in its sub-IR {name}: {e}") from None
        out = eqn.primitive.abstract_eval(*[a.rule_aval for a in eqn.invars], **eqn.params)
        expected = ([aval_of(o) for o in out] if eqn.primitive.multiple_results
                    else [aval_of(out)])
        got = [v.aval for v in eqn.outvars]
        if expected != got:
            raise JaxprTypeError(
                f"{where}: its outputs are typed {[_type_str(a) for a in got]}, but "
                f"abstract_eval gives {[_type_str(a) for a in expected]}")
        for v in eqn.outvars:
            define(v, where)
    for a in jaxpr.outvars:
        use(a, "outvars")


# --------------------------------------------------------------------------
# printing, as JAX prints its jaxprs

_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64",
          "int32": "i32", "int16": "i16", "int8": "i8", "uint64": "u64", "uint32": "u32",
          "uint16": "u16", "uint8": "u8", "bool": "bool", "complex128": "c128",
          "complex64": "c64"}


def _type_str(aval):
    shape, dtype = aval
    name = _SHORT.get(np.dtype(dtype).name, np.dtype(dtype).name)
    return f"{name}[{','.join(str(d) for d in shape)}]"


def _names():
    """a, b, ..., z, ba, bb, ... (JAX's variable names)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    n = 0
    while True:
        k, s = n, ""
        while True:
            s = letters[k % 26] + s
            k //= 26
            if k == 0:
                break
        yield s
        n += 1


def _param_str(v):
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return np.dtype(v).name
    if callable(v):
        return getattr(v, "__name__", type(v).__name__)
    if isinstance(v, np.ndarray):
        return f"array<{_type_str(aval_of(v))}>"
    return repr(v)


def _sub_jaxprs(params):
    """``(name, sub-IR)`` for each param holding a Jaxpr or ClosedJaxpr (or a
    tuple of them, named ``name[i]``): the sub-IRs of control flow."""
    out = []
    for k, v in sorted(params.items()):
        if isinstance(v, (Jaxpr, ClosedJaxpr)):
            out.append((k, v))
        elif isinstance(v, tuple) and v and all(isinstance(b, (Jaxpr, ClosedJaxpr)) for b in v):
            out.extend((f"{k}[{i}]", b) for i, b in enumerate(v))
    return out


def _pp_params(params, pad):
    """An equation's ``[...]``: one line, or, when it holds sub-IRs, one
    param per line with each sub-IR indented below (as JAX prints them)."""
    if not params:
        return ""
    items = sorted(params.items())
    def is_sub(v):
        return isinstance(v, (Jaxpr, ClosedJaxpr)) or (
            isinstance(v, tuple) and v and all(isinstance(b, (Jaxpr, ClosedJaxpr)) for b in v))
    if not any(is_sub(v) for _, v in items):
        return "[" + " ".join(f"{k}={_param_str(v)}" for k, v in items) + "]"
    inner = pad + "      "
    lines = ["["]
    for k, v in items:
        if isinstance(v, (Jaxpr, ClosedJaxpr)):
            j = v.jaxpr if isinstance(v, ClosedJaxpr) else v
            lines.append(f"{inner}{k}=" + _pp_jaxpr(j, len(inner)).lstrip())
        elif is_sub(v):
            lines.append(f"{inner}{k}=(")
            for b in v:
                j = b.jaxpr if isinstance(b, ClosedJaxpr) else b
                lines.append(_pp_jaxpr(j, len(inner) + 2))
            lines.append(f"{inner})")
        else:
            lines.append(f"{inner}{k}={_param_str(v)}")
    lines.append(pad + "    ]")
    return "\n".join(lines)


def _pp_jaxpr(jaxpr, indent=0):
    gen = _names()
    names = {}

    def name(a):
        if type(a) is Literal:
            return repr(a.val)
        n = names.get(a)
        if n is None:
            n = names[a] = next(gen)
        return n

    def binder(v):
        return f"{name(v)}:{_type_str(v.aval)}"

    pad = " " * indent
    consts = " ".join(binder(v) for v in jaxpr.constvars)
    ins = " ".join(binder(v) for v in jaxpr.invars)
    lines = [f"{pad}{{ lambda {consts}; {ins}. let"]
    for eqn in jaxpr.eqns:
        outs = " ".join(binder(v) for v in eqn.outvars)
        head = eqn.primitive.name + _pp_params(eqn.params, pad)
        args = " ".join(name(a) for a in eqn.invars)
        lines.append(f"{pad}    {outs} = {head} {args}".rstrip())
    outs = ", ".join(name(a) for a in jaxpr.outvars)
    lines.append(f"{pad}  in ({outs},) }}" if len(jaxpr.outvars) == 1
                 else f"{pad}  in ({outs}) }}")
    return "\n".join(lines)
