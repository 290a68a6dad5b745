"""Shared helpers of the tracegrad.torch tests (not a test module).

The test files load it by path (pytest runs with ``--import-mode=importlib``)::

    torch_programs = load_torch_programs()   # see the top of each test file

It holds what more than one of them needs: comparing a tracegrad tensor with
a real PyTorch tensor, the tolerances by dtype, grad_fn names, and the
random-program generator of ``test_torch_differential.py``.
"""
import numpy as np

# --------------------------------------------------------------------------
# comparing tensors of the two libraries

#: (rtol, atol) per dtype name, as ``torch.testing.assert_close`` defaults
#: (loosened a little: the two libraries sum in different orders)
TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "float32": (2e-5, 2e-5),
    "float64": (1e-7, 1e-7),
}


def dtype_name(t):
    """``'float32'`` for ``torch.float32`` of either library."""
    return str(t.dtype).replace("torch.", "")


def as_numpy(t):
    """The values of a tensor of either library as a NumPy array (a copy)."""
    return np.array(t.detach().numpy(force=True))  # force: PyTorch's ZeroTensors too


def grad_fn_name(t):
    """``t.grad_fn.name()``, or None for a leaf / untracked tensor."""
    fn = t.grad_fn
    return None if fn is None else fn.name()


def tolerance(t, scale=1.0):
    rtol, atol = TOLERANCES.get(dtype_name(t), (0.0, 0.0))
    return rtol * scale, atol * scale


def assert_values_close(ours, theirs, what="", scale=1.0):
    """Same shape, same dtype, values close for the dtype (exact for integers/bools)."""
    assert tuple(ours.shape) == tuple(theirs.shape), (
        f"{what}: shape {tuple(ours.shape)} != PyTorch's {tuple(theirs.shape)}")
    assert dtype_name(ours) == dtype_name(theirs), (
        f"{what}: dtype {ours.dtype} != PyTorch's {theirs.dtype}")
    a, b = as_numpy(ours), as_numpy(theirs)
    rtol, atol = tolerance(theirs, scale)
    # relative to the size of the (finite) values: sums of many terms cancel
    finite = np.abs(b[np.isfinite(b)]) if b.dtype.kind == "f" else ()
    atol = atol * max(1.0, float(finite.max())) if len(finite) else atol
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def assert_same_tensor(ours, theirs, what="", scale=1.0, check_grad=True):
    """Values, dtype, ``requires_grad``, ``is_leaf``, ``grad_fn`` name and ``.grad`` agree."""
    assert_values_close(ours, theirs, what, scale)
    assert ours.requires_grad == theirs.requires_grad, (
        f"{what}: requires_grad {ours.requires_grad} != PyTorch's {theirs.requires_grad}")
    assert ours.is_leaf == theirs.is_leaf, (
        f"{what}: is_leaf {ours.is_leaf} != PyTorch's {theirs.is_leaf}")
    assert grad_fn_name(ours) == grad_fn_name(theirs), (
        f"{what}: grad_fn {grad_fn_name(ours)} != PyTorch's {grad_fn_name(theirs)}")
    if not check_grad:
        return
    if not theirs.is_leaf:
        assert ours.retains_grad == theirs.retains_grad, f"{what}: retains_grad differs"
        if not theirs.retains_grad:
            return
    g_ours, g_theirs = ours.grad, theirs.grad
    assert (g_ours is None) == (g_theirs is None), (
        f"{what}: .grad is {g_ours!r}, PyTorch's is {g_theirs!r}")
    if g_theirs is not None:
        assert_values_close(g_ours, g_theirs, f"{what}.grad", scale)
        assert g_ours.requires_grad == g_theirs.requires_grad, (
            f"{what}.grad: requires_grad {g_ours.requires_grad} != PyTorch's "
            f"{g_theirs.requires_grad}")


# --------------------------------------------------------------------------
# random programs (test_torch_differential.py)
#
# A program is straight-line Python source over a module bound to ``T``
# (``tracegrad.torch`` or real PyTorch) and NumPy arrays ``D0, D1, ...``
# (the leaves' values), one statement group per :class:`Step`.  The generator
# keeps a symbolic record of every variable (shape, dtype, requires_grad,
# leaf-ness, which leaves it depends on, storage sharing) to draw only valid
# operations; :func:`run_differential` executes the steps on both libraries
# in lock step and compares everything after each one.

import dataclasses
import math
import warnings


@dataclasses.dataclass
class Var:
    """What the generator knows about one program variable."""

    name: str
    shape: tuple
    dtype: str                      # "float32", "float64", "int64" or "bool"
    rg: bool = False                # requires_grad
    leaf: bool = True
    deps: frozenset = frozenset()   # the leaves requiring grad it depends on
    contig: bool = True             # surely contiguous in PyTorch (view() allowed)
    base: str = None                # the variable whose storage it aliases
    detached: bool = False          # aliases ``base`` through detach()
    mag: float = 2.0                # a bound on |values|
    consumed: bool = False          # an operation (other than a view) took it as input
    retained: bool = False          # it called retain_grad()
    shallow: bool = False           # its next_functions are not compared
    freed: bool = False             # a backward pass without retain_graph went through it
    saves_out: bool = False         # its node saves it (both libraries)
    ties: bool = False              # may hold equal values (PyTorch's max(dim) may then
                                    # pick another index than the first)
    broken: bool = False            # modified in place after its node saved it
    kink: bool = False              # a norm or std: at 0 (zeros happen: zero_(), relu,
                                    # ...) the libraries' second derivatives differ
    ancestors: frozenset = frozenset()  # the non-leaf variables it was computed from
    outsafe: bool = True            # writing it in place is safe (see _Gen.inplace_ok)

    @property
    def nd(self):
        return len(self.shape)

    @property
    def numel(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def isfloat(self):
        return self.dtype.startswith("float")


@dataclasses.dataclass
class Step:
    """One statement group of a program, and how to compare after it."""

    code: str
    kind: str = "op"        # op, inplace, backward, grad, error
    message: bool = False   # the exception message is PyTorch's too
    loose: tuple = ()       # names bound to results of backward passes: no grad_fn names
    scale: float = 1.0      # tolerance scale for the names it binds (second derivatives)
    recorded: bool = False  # a backward pass with create_graph: whether the gradients
                            # require grad is up to each library's formulas
    shallow: tuple = ()     # names whose next_functions are not compared (by design)


@dataclasses.dataclass
class Program:
    seed: int
    data: dict = dataclasses.field(default_factory=dict)
    steps: list = dataclasses.field(default_factory=list)
    #: float32 and float64 values meet: float64 results carry float32 rounding
    mixed: bool = False

    def source(self, module="torch", upto=None):
        """The program as a runnable script (``import torch as T``)."""
        lines = ["import numpy as np", f"import {module} as T", ""]
        for name, arr in self.data.items():
            lines.append(f"{name} = np.array({arr.tolist()!r}, dtype=np.{arr.dtype})")
        for i, step in enumerate(self.steps[:upto]):
            lines.append(f"# step {i} ({step.kind})")
            lines.append(step.code)
        return "\n".join(lines)


_SIZES = (1, 2, 2, 3, 3, 4)
#: tolerance scale of second derivatives (the libraries' formulas differ, e.g.
#: cumprod's, so float32 rounding differs more)
_SECOND_ORDER = 30.0
_MAX_MAG = 1e3


def _bshape(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


_CATEGORY = {"bool": 0, "int64": 1, "float32": 2, "float64": 2}


def _promote(*operands):
    """PyTorch's result dtype for Var operands and Python scalars ("float", "int").

    Within each group (dimensioned tensors, 0-d tensors, Python scalars) the
    wider type wins; a later group changes the result only with a higher
    category (a float scalar makes an integer tensor float32).
    """
    best = {}
    for o in operands:
        if isinstance(o, Var):
            key, d = ("dim" if o.nd else "zero"), o.dtype
        else:
            key, d = "wrapped", {"float": "float32", "int": "int64"}[o]
        prev = best.get(key)
        if prev is None or (_CATEGORY[d], d) > (_CATEGORY[prev], prev):  # float64 > float32
            best[key] = d
    result = None
    for key in ("dim", "zero", "wrapped"):
        d = best.get(key)
        if d is not None and (result is None or _CATEGORY[d] > _CATEGORY[result]):
            result = d
    return result


class _Gen:
    """Draws one random program (see :func:`generate_program`)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.prog = Program(seed)
        self.vars = {}
        self.count = 0
        self.no_grad = False
        self.retained = False  # a variable called retain_grad()
        self.backwards = 0     # backward passes drawn so far

    # ---- helpers

    def chance(self, p):
        return self.rng.random() < p

    def choice(self, seq):
        seq = list(seq)
        return seq[int(self.rng.integers(len(seq)))] if seq else None

    def pick(self, pred=lambda v: True, recent=True):
        """A random live variable satisfying ``pred`` (recent ones more likely).

        Values of a graph a backward pass freed are not used again: which
        nodes save values differs between the libraries (see
        test_torch_differential.py), so whether using them raises differs too.
        """
        cands = [v for v in self.live() if pred(v)]
        if not cands:
            return None
        if recent and len(cands) > 2 and self.chance(0.5):
            cands = cands[-3:]
        return self.choice(cands)

    def data(self, arr):
        name = f"D{len(self.prog.data)}"
        self.prog.data[name] = arr
        return name

    def values(self, shape, dtype):
        if dtype == "int64":
            return self.rng.integers(-3, 4, size=shape).astype(np.int64)
        if dtype == "bool":
            return self.rng.random(shape) < 0.5
        return self.rng.uniform(-2.0, 2.0, size=shape).astype(dtype)

    def mask(self, shape):
        """A random boolean mask with at least one True."""
        m = self.rng.random(shape) < 0.5
        m.flat[int(self.rng.integers(m.size))] = True
        return m

    def emit(self, code, **kw):
        if self.no_grad:
            code = "with T.no_grad():\n" + "\n".join("    " + ln for ln in code.split("\n"))
        self.prog.steps.append(Step(code, **kw))

    def new(self, expr, shape, dtype, inputs, diff=True, mag=None, contig=True, view=False,
            kind="op", shallow=False, outsafe=False, ties=False, **kw):
        """Bind ``expr`` to a fresh variable and record what it is.

        ``view``: the result shares the first input's storage; ``outsafe``:
        neither library's node saves the result, or both do (see
        :meth:`inplace_ok`); ``shallow``: PyTorch builds the operation from
        several nodes (its ``next_functions`` are not compared).
        """
        rg = (diff and not self.no_grad and dtype.startswith("float")
              and any(v.rg for v in inputs))
        deps = frozenset().union(*(v.deps for v in inputs)) if rg else frozenset()
        if mag is None:
            mag = max([v.mag for v in inputs] or [2.0])
        base = None
        if view:
            base = inputs[0].base or inputs[0].name
        else:
            for v in inputs:
                v.consumed = True
        name = f"v{self.count}"
        self.count += 1
        ancestors = frozenset().union(*(v.ancestors | {v.name} for v in inputs if not v.leaf))
        ties = ties or dtype in ("int64", "bool") or any(v.ties for v in inputs)
        var = Var(name, tuple(shape), dtype, rg, not rg, deps, contig, base, mag=mag,
                  outsafe=outsafe, ancestors=ancestors, ties=ties, shallow=shallow, **kw)
        self.emit(f"{name} = {expr}", kind=kind, shallow=(name,) if shallow else ())
        self.vars[name] = var
        return var

    def live(self):
        """The variables whose graphs no backward pass freed (any part of)."""
        freed = {n for n, v in self.vars.items() if v.freed}
        return [v for v in self.vars.values()
                if not (v.rg and (v.freed or v.ancestors & freed))]

    def free(self, *vs):
        """A backward pass without retain_graph went through the graphs of ``vs``."""
        for v in vs:
            for name in v.ancestors | {v.name}:
                if name in self.vars and not self.vars[name].leaf:
                    self.vars[name].freed = True

    def is_broken(self, v):
        """True if a backward pass through ``v``'s graph meets a modified saved value."""
        return any(self.vars[a].broken for a in v.ancestors | {v.name} if a in self.vars)

    def family(self, v):
        """``v`` and every variable sharing its storage."""
        root = v.base or v.name
        return [u for u in self.vars.values() if u.name == root or u.base == root]

    def dims(self, v):
        return list(range(-max(v.nd, 1), max(v.nd, 1)))

    def reduced(self, v, d, keepdim):
        if v.nd == 0:
            return ()
        d %= v.nd
        if keepdim:
            return v.shape[:d] + (1,) + v.shape[d + 1:]
        return v.shape[:d] + v.shape[d + 1:]

    def floats(self, v):
        return v.isfloat and v.mag < _MAX_MAG

    # ---- leaves

    def leaf(self):
        nd = self.choice((0, 1, 1, 2, 2, 2, 3, 3))
        shape = tuple(self.choice(_SIZES) for _ in range(nd))
        dtype = self.choice(("float32",) * 5 + ("float64",) * 3 + ("int64",))
        rg = dtype != "int64" and self.chance(0.75)
        style = self.rng.random()
        if dtype != "int64" and style < 0.15:
            # (no zeros: the libraries' second derivatives differ at kinks, such as
            # the norm's at 0, NaN in PyTorch)
            args = ", ".join(str(s) for s in shape) or "()"
            expr = self.choice((f"T.ones({args}, dtype=T.{dtype}, requires_grad={rg})",
                                f"T.full({shape}, -0.5, dtype=T.{dtype}, requires_grad={rg})"))
            mag = 1.0
        else:
            d = self.data(self.values(shape, dtype))
            expr = f"T.tensor({d}, requires_grad=True)" if rg else f"T.tensor({d})"
            mag = 3.0
        name = f"v{self.count}"
        self.count += 1
        self.vars[name] = Var(name, shape, dtype, rg, True,
                              frozenset((name,)) if rg else frozenset(), mag=mag,
                              ties=mag == 1.0 or dtype == "int64")
        self.emit(f"{name} = {expr}", kind="leaf")

    # ---- operations (each returns False when it does not apply)

    # Operations whose result may be written in place: neither library's node
    # saves the result (or both do).  tracegrad's nodes save more than
    # PyTorch's for some operations (a false "modified by an inplace
    # operation" error, difference 6 in test_torch_differential.py): those
    # are left out.
    SAVES_OUTPUT = {"T.exp({x})", "{x}.exp()", "T.tanh({x})", "{x}.sigmoid()", "T.sigmoid({x})",
                    "T.relu({x})"}

    # templates whose results repeat values (constants, saturation)
    TIES = {"T.relu({x})", "T.sign({x})", "T.floor({x})", "{x}.ceil()",
            "T.clamp({x}, min=-0.5, max=0.5)", "{x}.clamp(min=0.0)", "{x}.clamp(max=0.25)",
            "T.clip({x}, -1, 1)", "{x}.masked_fill({x} < 0, 0.5)", "T.where({x} > 0, {x}, 0.0)",
            "T.maximum({a}, {b})", "T.minimum({a}, {b})", "T.where({a} > {b}, {a}, {b})",
            "T.clamp({a}, min={b})", "{a}.clamp(max={b})"}

    OUTSAFE = {
        "T.exp({x})", "{x}.exp()", "T.tanh({x})", "{x}.sigmoid()", "T.sigmoid({x})",
        "T.relu({x})", "-{x}", "T.neg({x})", "{x} * 2.5", "3 * {x}", "{x} + 1", "1 - {x}",
        "{x} - 0.5", "T.add({x}, 1.5, alpha=2)", "T.mul({x}, -1.5)", "{x}.clone()",
        "T.where({x} > 0, {x}, 0.0)", "{a} + {b}", "{a} - {b}", "{a} * {b}", "T.mul({a}, {b})",
        "T.add({a}, {b}, alpha=2)", "T.sub({a}, {b})", "T.maximum({a}, {b})",
        "T.minimum({a}, {b})", "T.where({a} > {b}, {a}, {b})",
    }

    UNARY = (
        # (template, magnitude of the result from |x| <= m, applicable to m)
        ("T.exp({x})", lambda m: math.exp(m), lambda m: m <= 5),
        ("{x}.exp()", lambda m: math.exp(m), lambda m: m <= 5),
        ("T.log({x}.abs() + 0.5)", lambda m: max(1.0, math.log(m + 1)), None),
        ("({x}.abs() + 0.1).sqrt()", lambda m: math.sqrt(m + 1), None),
        ("T.rsqrt({x}.abs() + 0.5)", lambda m: 1.5, None),
        ("({x}.abs() + 0.5).reciprocal()", lambda m: 2.0, None),
        ("T.sin({x})", lambda m: 1.0, None),
        ("{x}.cos()", lambda m: 1.0, None),
        ("T.tanh({x})", lambda m: 1.0, None),
        ("{x}.sigmoid()", lambda m: 1.0, None),
        ("T.sigmoid({x})", lambda m: 1.0, None),
        ("T.relu({x})", lambda m: m, None),
        ("{x}.abs()", lambda m: m, None),
        ("-{x}", lambda m: m, None),
        ("T.neg({x})", lambda m: m, None),
        ("{x}.square()", lambda m: m * m, None),
        ("{x} ** 2", lambda m: m * m, None),
        ("T.pow({x}, 3)", lambda m: m ** 3, None),
        ("({x}.abs() + 0.1) ** 1.5", lambda m: (m + 1) ** 1.5, None),
        ("2.0 ** {x}", lambda m: 2.0 ** m, lambda m: m <= 8),
        ("T.erf({x})", lambda m: 1.0, None),
        ("T.expm1({x})", lambda m: math.exp(m), lambda m: m <= 5),
        ("T.log1p({x}.abs())", lambda m: math.log1p(m) + 1, None),
        ("T.atan({x})", lambda m: 1.6, None),
        ("T.asin({x}.tanh() * 0.9)", lambda m: 1.6, None),
        ("T.sinh({x})", lambda m: math.sinh(m) + 1, lambda m: m <= 5),
        ("{x}.cosh()", lambda m: math.cosh(m), lambda m: m <= 5),
        ("T.sign({x})", lambda m: 1.0, None),
        ("T.floor({x})", lambda m: m + 1, None),
        ("{x}.ceil()", lambda m: m + 1, None),
        ("T.clamp({x}, min=-0.5, max=0.5)", lambda m: 0.5, None),
        ("{x}.clamp(min=0.0)", lambda m: m, None),
        ("{x}.clamp(max=0.25)", lambda m: m, None),
        ("T.clip({x}, -1, 1)", lambda m: 1.0, None),
        ("{x}.masked_fill({x} < 0, 0.5)", lambda m: m, None),
        ("T.where({x} > 0, {x}, 0.0)", lambda m: m, None),
        ("{x} * 2.5", lambda m: 2.5 * m, None),
        ("3 * {x}", lambda m: 3 * m, None),
        ("{x} + 1", lambda m: m + 1, None),
        ("1 - {x}", lambda m: m + 1, None),
        ("{x} - 0.5", lambda m: m + 1, None),
        ("{x} / 4", lambda m: m, None),
        ("2 / ({x}.abs() + 1)", lambda m: 2.0, None),
        ("T.add({x}, 1.5, alpha=2)", lambda m: m + 3, None),
        ("T.mul({x}, -1.5)", lambda m: 1.5 * m, None),
        ("T.div({x}, 3)", lambda m: m, None),
        ("{x}.clone()", lambda m: m, None),
    )

    def op_unary(self):
        x = self.pick(self.floats)
        if x is None:
            return False
        templates = [t for t in self.UNARY if t[2] is None or t[2](x.mag)]
        tpl, mag, _ = self.choice(templates)
        self.new(tpl.format(x=x.name), x.shape, x.dtype, [x], mag=mag(x.mag),
                 outsafe=tpl in self.OUTSAFE, saves_out=tpl in self.SAVES_OUTPUT,
                 ties=tpl in self.TIES)
        return True

    def op_convert(self):
        x = self.pick(lambda v: v.dtype != "bool")
        if x is None:
            return False
        target = self.choice([d for d in ("float32", "float64") if d != x.dtype])
        expr = self.choice((f"{x.name}.to(T.{target})",
                            f"{x.name}.{'float' if target == 'float32' else 'double'}()"))
        self.new(expr, x.shape, target, [x], diff=x.isfloat, outsafe=True)
        return True

    BINARY = (
        ("{a} + {b}", lambda p, q: p + q),
        ("{a} - {b}", lambda p, q: p + q),
        ("{a} * {b}", lambda p, q: p * q),
        ("T.mul({a}, {b})", lambda p, q: p * q),
        ("{a} / ({b}.abs() + 0.5)", lambda p, q: 2 * p),
        ("T.div({a}, {b}.exp())", lambda p, q: p * math.exp(q)),
        ("T.add({a}, {b}, alpha=2)", lambda p, q: p + 2 * q),
        ("T.sub({a}, {b})", lambda p, q: p + q),
        ("T.maximum({a}, {b})", max),
        ("T.minimum({a}, {b})", max),
        ("T.atan2({a}, {b})", lambda p, q: 3.2),
        ("T.pow({a}.abs() + 0.5, {b})", lambda p, q: (p + 0.5) ** q + 2.0 ** q),
        ("T.where({a} > {b}, {a}, {b})", max),
        ("T.clamp({a}, min={b})", max),
        ("{a}.clamp(max={b})", max),
    )

    def partner(self, a, ok=lambda v: True):
        """A variable broadcastable with ``a`` (the result not too large)."""
        def fits(v):
            s = _bshape(a.shape, v.shape)
            return (s is not None and int(np.prod(s)) <= 48 and v.dtype != "bool" and ok(v)
                    and v.mag < _MAX_MAG)
        return self.pick(fits)

    def op_binary(self):
        a = self.pick(self.floats)
        if a is None:
            return False
        tpl, mag = self.choice(self.BINARY)
        ints_ok = "abs()" not in tpl and "exp()" not in tpl and "clamp" not in tpl
        # the same variable twice only where that makes no exact zero (x - x, then
        # atan2(0, 0): both libraries' gradients are 0 * inf there, NaN or not)
        same_ok = tpl.startswith(("{a} + ", "{a} * ", "T.mul", "T.maximum", "T.minimum"))
        b = self.partner(a, ok=lambda v: (v.isfloat or (ints_ok and v.dtype == "int64"))
                         and (same_ok or v.name != a.name))
        if b is None:
            return False
        if "exp()" in tpl and b.mag > 5 or "T.pow" in tpl and b.mag > 3:
            return False
        if "clamp" in tpl and _bshape(a.shape, b.shape) != a.shape:
            return False
        if "clamp" in tpl and b.dtype != a.dtype:
            return False  # PyTorch keeps the input's dtype only for same-dtype bounds
        if "atan2" in tpl and (a.ties or b.ties):
            return False  # (zeros: tracegrad's index assignment loses -0.0's sign)
        m = mag(a.mag, b.mag)
        if m > _MAX_MAG:
            return False
        if self.chance(0.2) and "{a} " in tpl:
            a, b = b, a  # the integer or broadcast operand on the left
            if not a.isfloat and tpl.startswith("{a} /"):
                return False
        self.new(tpl.format(a=a.name, b=b.name), _bshape(a.shape, b.shape),
                 _promote(a, b), [a, b], mag=m, outsafe=tpl in self.OUTSAFE, ties=tpl in self.TIES)
        return True

    def op_compare(self):
        a = self.pick(lambda v: v.dtype != "bool")
        if a is None:
            return False
        b = self.partner(a)
        if b is not None and self.chance(0.6):
            expr, shape = f"{a.name} {self.choice(('>', '<=', '>='))} {b.name}", _bshape(a.shape, b.shape)
        else:
            expr, shape = f"{a.name} > {self.choice(('0', '0.5', '-1'))}", a.shape
        self.new(expr, shape, "bool", [a], diff=False)
        return True

    def op_where(self):
        c = self.pick(lambda v: v.dtype == "bool")
        if c is None:
            return False
        a = self.partner(c, ok=lambda v: v.isfloat)
        if a is None:
            return False
        b = self.partner(a, ok=lambda v: v.isfloat and _bshape(v.shape, c.shape) is not None)
        if b is None or _bshape(a.shape, b.shape, c.shape) is None:
            return False
        self.new(f"T.where({c.name}, {a.name}, {b.name})", _bshape(a.shape, b.shape, c.shape),
                 _promote(a, b), [a, b], mag=max(a.mag, b.mag), outsafe=True)
        return True

    def op_reduce(self):
        x = self.pick(self.floats)
        if x is None:
            return False
        d = self.choice(self.dims(x))
        k = bool(self.chance(0.4))
        n = x.name
        kind = self.rng.integers(13)
        red = self.reduced(x, d, k)
        size_d = x.shape[d] if x.nd else 1
        if kind == 0:
            self.new(self.choice((f"T.sum({n})", f"{n}.sum()")), (), x.dtype, [x], mag=x.mag * x.numel,
                     outsafe=True)
        elif kind == 1:
            self.new(f"{n}.sum(dim={d}, keepdim={k})", red, x.dtype, [x], mag=x.mag * size_d,
                     outsafe=True)
        elif kind == 2:
            if x.nd >= 2:
                self.new(f"{n}.sum(({d}, {(d + 1) % x.nd}))",
                         tuple(s for i, s in enumerate(x.shape) if i not in (d % x.nd, (d + 1) % x.nd)),
                         x.dtype, [x], mag=x.mag * x.numel)
            else:
                self.new(f"T.mean({n})", (), x.dtype, [x])
        elif kind == 3:
            self.new(f"{n}.mean(dim={d}, keepdim={k})", red, x.dtype, [x])
        elif kind == 4:
            if x.mag ** min(x.numel, 12) > _MAX_MAG:
                return False
            if self.chance(0.5):
                self.new(f"T.prod({n})", (), x.dtype, [x], mag=x.mag ** x.numel)
            else:
                self.new(f"{n}.prod(dim={d}, keepdim={k})", red, x.dtype, [x], mag=x.mag ** size_d)
        elif kind == 5:
            fn = self.choice(("amax", "amin"))
            if self.chance(0.5):
                self.new(f"T.{fn}({n}, dim={d}, keepdim={k})", red, x.dtype, [x])
            else:
                self.new(f"{n}.{fn}()", (), x.dtype, [x])
        elif kind == 6:
            fn = self.choice(("max", "min"))
            if self.chance(0.3) or x.ties:
                self.new(self.choice((f"T.{fn}({n})", f"{n}.{fn}()")), (), x.dtype, [x])
            else:
                values = self.new(f"T.{fn}({n}, dim={d}, keepdim={k})[0]", red, x.dtype, [x],
                                  outsafe=True)
                self.new(f"{n}.{fn}(dim={d}, keepdim={k}).indices", red, "int64", [x], diff=False)
                del values
        elif kind == 7:
            fn = self.choice(("var", "std"))
            c = int(self.rng.integers(2))
            if size_d <= c or x.nd == 0 or (fn == "std" and size_d == 1):
                return False  # (std of one value: 0, a kink where second derivatives differ)
            self.new(f"{n}.{fn}(dim={d}, correction={c}, keepdim={k})", red, x.dtype, [x],
                     mag=x.mag * 2, kink=fn == "std")
        elif kind == 8:
            if x.mag > 30:
                return False
            self.new(f"T.logsumexp({n}, dim={d}, keepdim={k})", red, x.dtype, [x],
                     mag=x.mag + math.log(size_d) + 1)
        elif kind == 9:
            p = self.choice((1, 2))
            if self.chance(0.4):
                self.new(f"T.norm({n})" if p == 2 else f"{n}.norm(p=1)", (), x.dtype, [x],
                         mag=x.mag * x.numel, kink=True)
            else:
                self.new(f"{n}.norm(p={p}, dim={d}, keepdim={k})", red, x.dtype, [x],
                         mag=x.mag * size_d, kink=True)
        elif kind == 10:
            if self.chance(0.6) or x.mag ** size_d > _MAX_MAG:
                self.new(f"T.cumsum({n}, dim={d})", x.shape, x.dtype, [x], mag=x.mag * size_d,
                         outsafe=True)
            else:
                self.new(f"{n}.cumprod({d})", x.shape, x.dtype, [x], mag=x.mag ** size_d)
        elif kind == 11:
            fn = self.choice(("T.softmax({n}, dim={d})", "{n}.log_softmax({d})",
                              "T.log_softmax({n}, dim={d})", "{n}.softmax(dim={d})"))
            # (a 0-d result: tracegrad's message names the 1-element vector it saved)
            self.new(fn.format(n=n, d=d), x.shape, x.dtype, [x],
                     mag=1.0 if "log" not in fn else 2 * x.mag + 3, outsafe=x.nd > 0,
                     saves_out=True, ties=size_d == 1)
        else:
            if x.ties:
                return False
            fn = self.choice(("argmax", "argmin"))
            self.new(f"{n}.{fn}(dim={d})", self.reduced(x, d, False), "int64", [x], diff=False)
        return True

    def op_matmul(self):
        a = self.pick(lambda v: self.floats(v) and v.nd >= 1)
        if a is None:
            return False
        n = a.name

        def mshape(p, q):
            if not p or not q:
                return None
            p2 = (1,) + p if len(p) == 1 else p
            q2 = q + (1,) if len(q) == 1 else q
            if p2[-1] != q2[-2]:
                return None
            batch = _bshape(p2[:-2], q2[:-2])
            if batch is None:
                return None
            return batch + ((p2[-2],) if len(p) > 1 else ()) + ((q2[-1],) if len(q) > 1 else ())

        cands = [v for v in self.live()
                 if self.floats(v) and mshape(a.shape, v.shape) is not None]
        b = self.choice(cands) if cands and self.chance(0.7) else None
        style = self.rng.integers(4)
        if b is not None:
            shape = mshape(a.shape, b.shape)
            if a.nd == 2 and b.nd == 2 and style == 0:
                expr = f"T.mm({n}, {b.name})"
            elif a.nd == 3 and b.nd == 3 and a.shape[0] == b.shape[0] and style == 1:
                expr = f"T.bmm({n}, {b.name})"
            elif a.nd == 1 and b.nd == 1 and style == 2:
                expr = f"T.dot({n}, {b.name})"
            elif a.nd == 2 and b.nd == 1 and style == 2:
                expr = f"T.mv({n}, {b.name})"
            else:
                expr = self.choice((f"{n} @ {b.name}", f"T.matmul({n}, {b.name})"))
            # PyTorch reduces the other products to mm/mv/bmm with views around them
            shallow = (a.nd, b.nd) not in ((1, 1), (2, 1), (2, 2)) or expr.startswith("T.bmm")
            if expr.startswith("T.bmm"):
                shallow = False
        elif a.nd == 1:
            cands = [v for v in self.live() if self.floats(v) and v.nd == 1]
            b = self.choice(cands)
            expr, shape, shallow = f"T.outer({n}, {b.name})", a.shape + b.shape, False
        elif a.nd == 2:
            expr = self.choice((f"{n} @ {n}.t()", f"T.mm({n}.T, {n})",
                                f"T.einsum('ij,kj->ik', {n}, {n})"))
            shape = (a.shape[0],) * 2 if "kj" in expr or ".t()" in expr else (a.shape[1],) * 2
            b, shallow = a, "einsum" in expr  # PyTorch's einsum: permutes, views and a bmm
        else:
            expr = f"{n} @ {n}.transpose(-1, -2)"
            shape, b, shallow = a.shape[:-1] + a.shape[-2:-1], a, True
        k = a.shape[-1]
        if a.dtype != b.dtype:
            return False  # PyTorch's matmul refuses mixed dtypes (a RuntimeError case below)
        self.new(expr, shape, a.dtype, [a, b], mag=a.mag * b.mag * k, shallow=shallow,
                 outsafe=not shallow)
        return True

    def factorizations(self, n, nd):
        """Shapes of ``nd`` dimensions with ``n`` elements."""
        out = []
        for shape in np.ndindex(*(5,) * nd):
            s = tuple(d + 1 for d in shape)
            if int(np.prod(s)) == n:
                out.append(s)
        return out

    def op_shape(self):
        x = self.pick(lambda v: v.dtype != "bool")
        if x is None:
            return False
        n, nd = x.name, x.nd
        kind = self.rng.integers(16)
        c = x.contig
        if kind == 0:
            expr = self.choice((f"{n}.reshape(-1)", f"{n}.flatten()"))
            # (flatten of a vector is the vector itself)
            self.new(expr, (x.numel,), x.dtype, [x], view=c or nd == 1, contig=True,
                     shallow=x.shallow and nd == 1 and "flatten" in expr)
        elif kind == 1:
            shapes = self.factorizations(x.numel, int(self.rng.integers(1, 4)))
            if not shapes:
                return False
            s = self.choice(shapes)
            fn = "view" if c and self.chance(0.5) else "reshape"
            self.new(f"{n}.{fn}{s}" if len(s) > 1 else f"{n}.{fn}({s[0]})", s, x.dtype, [x],
                     view=c, contig=True)
        elif kind == 2:
            if nd < 2:
                return False
            perm = tuple(int(i) for i in self.rng.permutation(nd))
            self.new(f"{n}.permute{perm}", tuple(x.shape[i] for i in perm), x.dtype, [x],
                     view=True, contig=perm == tuple(range(nd)) and c)
        elif kind == 3:
            if nd < 2:
                return False
            d0, d1 = (int(i) for i in self.rng.choice(nd, 2, replace=False))
            s = list(x.shape)
            s[d0], s[d1] = s[d1], s[d0]
            self.new(self.choice((f"{n}.transpose({d0}, {d1})", f"T.transpose({n}, {d0}, {d1})")),
                     s, x.dtype, [x], view=True, contig=False)
        elif kind == 4:
            if nd != 2:
                return False
            self.new(self.choice((f"{n}.t()", f"{n}.T", f"T.t({n})")), x.shape[::-1], x.dtype, [x],
                     view=True, contig=False)
        elif kind == 5:
            d = int(self.rng.integers(-nd - 1, nd + 1))
            s = list(x.shape)
            s.insert(d % (nd + 1), 1)
            self.new(self.choice((f"{n}.unsqueeze({d})", f"T.unsqueeze({n}, {d})")), s,
                     x.dtype, [x], view=True, contig=c)
        elif kind == 6:
            if nd == 0:
                return False
            d = self.choice(range(nd))
            if self.chance(0.5) and 1 in x.shape:
                self.new(f"{n}.squeeze()", tuple(s for s in x.shape if s != 1), x.dtype, [x],
                         view=True, contig=c)
            else:
                s = x.shape if x.shape[d] != 1 else x.shape[:d] + x.shape[d + 1:]
                self.new(f"{n}.squeeze({d})", s, x.dtype, [x], view=True, contig=c)
        elif kind == 7:
            s = tuple(3 if d == 1 else d for d in x.shape)
            lead = (2,) if self.chance(0.4) or s == x.shape else ()
            if int(np.prod(lead + s)) > 48:
                return False
            args = lead + tuple(-1 if d == e else e for d, e in zip(x.shape, s))
            self.new(f"{n}.expand{args}" if len(args) > 1 else f"{n}.expand({args[0]})",
                     lead + s, x.dtype, [x], view=True, contig=False, ties=True)
        elif kind == 8:
            if nd == 0 or x.numel > 12:
                return False
            reps = tuple(self.choice((1, 2)) for _ in range(nd))
            self.new(f"{n}.repeat{reps}" if nd > 1 else f"{n}.repeat({reps[0]})",
                     tuple(a * b for a, b in zip(x.shape, reps)), x.dtype, [x], outsafe=True,
                     ties=True)
        elif kind == 9:
            if nd == 0:
                return False
            dims = tuple(sorted(set(int(i) for i in self.rng.integers(0, nd, 2))))
            self.new(f"T.flip({n}, {dims})", x.shape, x.dtype, [x])
        elif kind == 10:
            if nd == 0:
                return False
            d = self.choice(range(nd))
            size = x.shape[d]
            start = int(self.rng.integers(size))
            length = int(self.rng.integers(1, size - start + 1))
            s = list(x.shape)
            s[d] = length
            self.new(f"{n}.narrow({d}, {start}, {length})", s, x.dtype, [x], view=True,
                     contig=False)
        elif kind == 11:
            if nd == 0:
                return False
            d = self.choice(range(nd))
            i = int(self.rng.integers(-x.shape[d], x.shape[d]))
            self.new(self.choice((f"{n}.select({d}, {i})", f"T.select({n}, {d}, {i})")),
                     x.shape[:d] + x.shape[d + 1:], x.dtype, [x], view=True, contig=False)
        elif kind == 12:
            if nd != 2:
                return False
            self.new(f"T.{self.choice(('tril', 'triu'))}({n}, {int(self.rng.integers(-1, 2))})",
                     x.shape, x.dtype, [x], ties=True)
        elif kind == 13:
            if nd < 2:
                return False
            s = x.shape[:-2] + (x.shape[-1], x.shape[-2])
            self.new(f"{n}.mT", s, x.dtype, [x], view=True, contig=False)
        elif kind == 14:
            if nd < 2:
                return False
            s = x.shape[:1] + (int(np.prod(x.shape[1:])),)
            self.new(f"T.flatten({n}, 1)", s, x.dtype, [x], view=c or nd == 2, contig=True,
                     shallow=x.shallow and nd == 2)  # (of a matrix: the matrix itself)
        else:
            other = self.pick(lambda v: v.nd == nd and v.dtype == x.dtype)
            if other is None or _bshape(x.shape, other.shape) != other.shape:
                return False
            self.new(f"{n}.expand_as({other.name})", other.shape, x.dtype, [x], view=True,
                     contig=other.shape == x.shape and c, ties=other.shape != x.shape)
        return True

    def op_join(self):
        x = self.pick(lambda v: v.dtype != "bool" and v.nd >= 1)
        if x is None:
            return False
        if self.chance(0.5):
            d = self.choice(range(x.nd))
            same = [v for v in self.live() if v.nd == x.nd and v.dtype != "bool"
                    and all(a == b for i, (a, b) in enumerate(zip(v.shape, x.shape)) if i != d)]
            parts = [x] + [self.choice(same) for _ in range(int(self.rng.integers(1, 3)))]
            s = list(x.shape)
            s[d] = sum(p.shape[d] for p in parts)
            if int(np.prod(s)) > 48:
                return False
            dd = d - x.nd if self.chance(0.3) else d
            names = ", ".join(p.name for p in parts)
            self.new(f"T.cat([{names}], dim={dd})" if self.chance(0.7) else f"T.cat(({names}), {dd})",
                     s, _promote(*parts), parts, outsafe=True,
                     ties=len({p.name for p in parts}) < len(parts))
        else:
            same = [v for v in self.live() if v.shape == x.shape and v.dtype != "bool"]
            parts = [x] + [self.choice(same) for _ in range(int(self.rng.integers(1, 3)))]
            d = int(self.rng.integers(-x.nd - 1, x.nd + 1))
            s = list(x.shape)
            s.insert(d % (x.nd + 1), len(parts))
            if int(np.prod(s)) > 48:
                return False
            names = ", ".join(p.name for p in parts)
            self.new(f"T.stack([{names}], dim={d})", s, _promote(*parts), parts, outsafe=True,
                     ties=len({p.name for p in parts}) < len(parts))
        return True

    def op_index(self):
        x = self.pick(lambda v: v.nd >= 1 and v.dtype != "bool")
        if x is None:
            return False
        n, s0 = x.name, x.shape[0]
        kind = self.rng.integers(9)
        if kind == 0:
            i = int(self.rng.integers(-s0, s0))
            self.new(f"{n}[{i}]", x.shape[1:], x.dtype, [x], view=True, contig=x.contig)
        elif kind == 1:
            a = int(self.rng.integers(s0))
            b = int(self.rng.integers(a + 1, s0 + 1))
            self.new(f"{n}[{a}:{b}]", (b - a,) + x.shape[1:], x.dtype, [x], view=True,
                     contig=x.contig)
        elif kind == 2:
            self.new(f"{n}[..., ::2]", x.shape[:-1] + ((x.shape[-1] + 1) // 2,), x.dtype, [x],
                     view=True, contig=False)
        elif kind == 3:
            if x.nd < 2:
                return False
            i = int(self.rng.integers(x.shape[1]))
            self.new(f"{n}[:, {i}]", x.shape[:1] + x.shape[2:], x.dtype, [x], view=True,
                     contig=False)
        elif kind == 4:
            self.new(f"{n}[None]", (1,) + x.shape, x.dtype, [x], view=True, contig=x.contig)
        elif kind == 5:
            idx = [int(i) for i in self.rng.integers(-s0, s0, int(self.rng.integers(1, 4)))]
            self.new(f"{n}[{idx}]", (len(idx),) + x.shape[1:], x.dtype, [x], outsafe=True,
                     ties=len({i % s0 for i in idx}) < len(idx))
        elif kind == 6:
            mask = self.mask(x.shape)
            self.new(f"{n}[T.tensor({self.data(mask)})]", (int(mask.sum()),), x.dtype, [x],
                     outsafe=True)
        elif kind == 7:
            d = self.choice(range(x.nd))
            k = int(self.rng.integers(1, 4))
            ishape = list(x.shape)
            ishape[d] = k
            idx = self.rng.integers(0, x.shape[d], ishape)
            self.new(f"T.gather({n}, {d}, T.tensor({self.data(idx)}))", tuple(ishape), x.dtype, [x],
                     outsafe=True, ties=True)
        else:
            d = self.choice(range(x.nd))
            idx = [int(i) for i in self.rng.integers(0, x.shape[d], int(self.rng.integers(1, 4)))]
            s = list(x.shape)
            s[d] = len(idx)
            self.new(f"T.index_select({n}, {d}, T.tensor({idx}))", s, x.dtype, [x], outsafe=True,
                     ties=len(set(idx)) < len(idx))
        return True

    def op_detach(self):
        x = self.pick(lambda v: v.isfloat)
        if x is None:
            return False
        # shares x's storage and version counter: the generator treats it as a view
        if self.chance(0.5):
            v = self.new(f"{x.name}.detach()", x.shape, x.dtype, [x], diff=False, contig=x.contig,
                         view=True, outsafe=True)
        else:
            v = self.new(f"{x.name}.detach().requires_grad_()", x.shape, x.dtype, [x], diff=False,
                         contig=x.contig, view=True, outsafe=True)
            v.rg, v.leaf, v.deps = True, True, frozenset((v.name,))
        v.detached = True
        return True

    def op_retain(self):
        x = self.pick(lambda v: v.rg and not v.leaf)
        if x is None:
            return False
        self.emit(f"{x.name}.retain_grad()")
        self.retained = x.retained = True
        return True

    def op_no_grad(self):
        self.no_grad = True
        try:
            return self.choice((self.op_unary, self.op_binary, self.op_reduce,
                                self.op_inplace))()
        finally:
            self.no_grad = False

    # in-place operations after which the target may be written in place again
    # (their nodes save nothing of the result, in either library)
    REWRITABLE = ("add_", "sub_", "+=", "-=", "*= 0.5", "mul_(2)", "zero_", "fill_", "copy_",
                  "] = ")

    INPLACE = (
        # (template, uses an operand {y}, magnitude)
        ("{t}.add_({y})", True, lambda m, q: m + q),
        ("{t}.sub_({y})", True, lambda m, q: m + q),
        ("{t}.mul_({y})", True, lambda m, q: m * q),
        ("{t}.div_({y}.abs() + 0.5)", True, lambda m, q: 2 * m),
        ("{t} += {y}", True, lambda m, q: m + q),
        ("{t}.copy_({y})", True, lambda m, q: q),
        ("{t}.mul_(2)", False, lambda m, q: 2 * m),
        ("{t} *= 0.5", False, lambda m, q: m),
        ("{t} -= 1", False, lambda m, q: m + 1),
        ("{t}.add_(1.5)", False, lambda m, q: m + 1.5),
        ("{t}.clamp_(-1, 1)", False, lambda m, q: 1.0),
        ("{t}.relu_()", False, lambda m, q: m),
        ("{t}.tanh_()", False, lambda m, q: 1.0),
        ("{t}.sigmoid_()", False, lambda m, q: 1.0),
        ("{t}.neg_()", False, lambda m, q: m),
        ("{t}.abs_()", False, lambda m, q: m),
        ("{t}.sin_()", False, lambda m, q: 1.0),
        ("{t}.pow_(2)", False, lambda m, q: m * m),
        ("{t}.zero_()", False, lambda m, q: 0.0),
        ("{t}.fill_(0.5)", False, lambda m, q: 0.5),
        ("{t}.masked_fill_({t} > 0, 0.25)", False, lambda m, q: m),
        ("{t}[{i}] = {y}", True, max),
        ("{t}[{i}] = 0.0", False, lambda m, q: m),
        ("{t}[{a}:{b}] = {y}", True, max),
        ("{t}[T.tensor({mask})] = 1.0", False, lambda m, q: m + 1),
    )

    def inplace_ok(self, t, tracking):
        """In-place writes the generator draws (the exclusions are differences
        listed in test_torch_differential.py).

        The target's value was not taken by an operation (a node may have saved
        it, and the two libraries save different things: difference 6), its
        producer saves its output in both libraries or in neither, and if it
        is a view, nothing involved requires grad (tracegrad refuses in-place
        writes to views of tensors that require grad, by design).
        """
        if not t.isfloat or (t.leaf and t.rg and not self.no_grad) or not t.outsafe:
            return False
        fam = self.family(t)
        if any(u.consumed for u in fam):
            return False
        if t.base is not None and (tracking or any(u.rg for u in fam)):
            return False
        if any(u.detached and u.rg for u in fam) and len(fam) > 2:
            # views of a detached alias are regenerated by PyTorch when the shared
            # version counter moves; tracegrad regenerates only its base's views
            return False
        return True

    def op_inplace(self):
        tpl, uses_y, mag = self.choice(self.INPLACE)
        t = self.pick(lambda v: self.inplace_ok(v, v.rg and not self.no_grad))
        if t is None:
            return False
        fmt = {"t": t.name}
        target_shape = t.shape
        if "[{i}]" in tpl or "[{a}" in tpl:
            if t.nd == 0:
                return False
            s0 = t.shape[0]
            if "{i}" in tpl:
                fmt["i"] = int(self.rng.integers(-s0, s0))
                target_shape = t.shape[1:]
            else:
                fmt["a"] = int(self.rng.integers(s0))
                fmt["b"] = int(self.rng.integers(fmt["a"] + 1, s0 + 1))
                target_shape = (fmt["b"] - fmt["a"],) + t.shape[1:]
        if "{mask}" in tpl:
            fmt["mask"] = self.data(self.mask(t.shape))
        y = None
        if uses_y:
            fam = {u.name for u in self.family(t)}
            y = self.pick(lambda v: v.isfloat and v.mag < _MAX_MAG
                          and _bshape(v.shape, target_shape) == target_shape
                          and v.name not in fam)
            if y is None:
                return False
            fmt["y"] = y.name
        tracking = not self.no_grad and (t.rg or (y is not None and y.rg))
        if not self.inplace_ok(t, tracking) or (y is not None and len(self.family(t)) > 1 and y.rg):
            return False
        m = mag(t.mag, y.mag if y is not None else 0.0)
        if m > _MAX_MAG:
            return False
        self.emit(tpl.format(**fmt), kind="inplace")
        if t.saves_out and t.rg and not t.leaf:
            t.broken = True  # a backward pass through its old node raises (both libraries)
        if y is not None:
            y.consumed = True
        if not any(k in tpl for k in self.REWRITABLE):
            t.consumed = True
        if y is not None and not y.leaf:
            t.ancestors = t.ancestors | y.ancestors | {y.name}
        t.ties = t.ties or (y is not None and y.ties) or not any(
            k in tpl for k in ("add_", "sub_", "mul_", "div_", "+=", "-=", "*=", "tanh_", "sigmoid_",
                               "neg_", "sin_", "pow_"))
        for u in self.family(t):  # writing through a view changes its base too
            u.ties = u.ties or t.ties
        if tracking:
            deps = t.deps | (y.deps if y is not None and y.rg else frozenset())
            t.rg, t.leaf, t.deps = True, False, deps
            for u in self.family(t):  # the views are regenerated from the new graph
                if u.base == t.name and not u.detached:
                    u.rg, u.leaf, u.deps = True, False, deps
                    u.ancestors = u.ancestors | t.ancestors | {t.name}
        t.mag = max(t.mag, m)
        return True

    OPS = (
        ("op_unary", 10), ("op_binary", 10), ("op_convert", 1), ("op_compare", 2),
        ("op_where", 2), ("op_reduce", 8), ("op_matmul", 4), ("op_shape", 9),
        ("op_join", 3), ("op_index", 5), ("op_detach", 1), ("op_retain", 1),
        ("op_no_grad", 1), ("op_inplace", 6),
    )

    def forward(self, n_ops):
        names = [n for n, _ in self.OPS]
        weights = np.array([w for _, w in self.OPS], float)
        done = tries = 0
        while done < n_ops and tries < 20 * n_ops:
            tries += 1
            if self.chance(0.08):
                self.leaf()
            elif getattr(self, names[self.rng.choice(len(names), p=weights / weights.sum())])():
                done += 1

    # ---- backward passes

    def grad_data(self, v):
        return f"T.tensor({self.data(self.values(v.shape, v.dtype))})"

    def loss(self, name="loss"):
        """A scalar made of 1 to 3 variables requiring grad."""
        rgs = [v for v in self.live() if v.rg and v.mag < _MAX_MAG]
        if not rgs:
            return None
        parts = [self.choice(rgs[-4:])] + [self.choice(rgs) for _ in range(int(self.rng.integers(0, 3)))]
        terms = []
        for p in parts:
            terms.append(self.choice((f"{p.name}.sum()", f"{p.name}.mean()",
                                      f"({p.name} ** 2).sum()", f"{p.name}.tanh().sum()")))
        expr = " + ".join(terms) if self.chance(0.7) else " * 0.5 + ".join(terms)
        deps = frozenset().union(*(p.deps for p in parts))
        ancestors = frozenset().union(*(p.ancestors | {p.name} for p in parts if not p.leaf))
        self.emit(f"{name} = {expr}")
        var = Var(name, (), _promote(*parts), True, False, deps, ancestors=ancestors)
        self.vars[name] = var
        return var

    def targets(self, loss, k=2, leaves_only=False):
        """Some tensors requiring grad: mostly leaves ``loss`` depends on.

        All of those leaves if a value of the graph was modified after it was
        saved, or a tensor called retain_grad(): PyTorch runs only the part of
        the graph leading to the inputs (and raises, or fills retained
        gradients, only in that part), tracegrad runs all of it (difference
        1, see test_torch_differential.py).
        """
        leaves = sorted(loss.deps)
        pool = [self.vars[n] for n in leaves if n in self.vars]
        others = [v for v in self.live() if v.rg and v.name != loss.name
                  and (v.leaf or not leaves_only)]
        out = []
        if self.is_broken(loss) or self.retained:
            out = [v.name for v in pool]
        for _ in range(int(self.rng.integers(1, k + 1))):
            src = pool if pool and self.chance(0.75) else others
            if src:
                v = self.choice(src)
                if v.name not in out:
                    out.append(v.name)
        return out

    def unshare(self):
        """Before a backward pass that may accumulate into existing gradients, give
        each its own storage: tracegrad's gradients of different tensors can share
        memory, and accumulating into them then adds twice (difference 4, see
        test_torch_differential.py)."""
        self.backwards += 1
        if self.backwards == 1:
            return
        names = [v.name for v in self.vars.values() if v.rg and (v.leaf or v.retained)]
        if names:
            self.emit(f"for _t in [{', '.join(names)}]:\n    if _t.grad is not None:\n"
                      "        _t.grad = _t.grad.clone()")

    def backward(self):
        self.unshare()
        mode = self.choice(("scalar", "scalar", "retain", "gradient", "gradient", "inputs",
                            "create_graph", "grad", "grad", "grad2", "multi"))
        if self.retained and mode in ("create_graph", "grad2"):
            # which retained gradients a second-order pass fills (and with what) is
            # up to each library's recorded derivative graph
            mode = "scalar"
        if mode == "gradient":
            v = self.pick(lambda v: v.rg and v.mag < _MAX_MAG)
            if v is None:
                return
            self.emit(f"{v.name}.backward({self.grad_data(v)})", kind="backward", message=True)
            self.free(v)
            return
        if mode == "multi":
            vs = [self.pick(lambda v: v.rg and v.mag < _MAX_MAG) for _ in range(2)]
            if vs[0] is None or vs[0] is vs[1]:
                return
            grads = ", ".join(self.grad_data(v) for v in vs)
            self.emit(f"T.autograd.backward([{vs[0].name}, {vs[1].name}], grad_tensors=[{grads}])",
                      kind="backward", message=True)
            self.free(*vs)
            return
        loss = self.loss()
        if loss is None:
            return
        if mode in ("create_graph", "grad2") and any(
                self.vars[a].kink for a in loss.ancestors if a in self.vars):
            mode = "scalar"
        self.free(loss)
        if mode == "scalar":
            self.emit("loss.backward()", kind="backward", message=True)
        elif mode == "retain":
            self.emit("loss.backward(retain_graph=True)", kind="backward", message=True)
            self.unshare()
            self.emit("loss.backward()", kind="backward", message=True)
        elif mode == "inputs":
            # leaves only: PyTorch also makes a non-leaf input retain its grad
            # (difference 2, see test_torch_differential.py)
            names = self.targets(loss, leaves_only=True)
            self.emit(f"loss.backward(inputs=[{', '.join(names)}])", kind="backward", message=True)
        elif mode == "create_graph":
            self.emit("loss.backward(create_graph=True)", kind="backward", message=True,
                      recorded=True)
            leaves = [n for n in sorted(loss.deps) if n in self.vars]
            if leaves:
                x = self.vars[self.choice(leaves)]
                w = self.data(self.values(x.shape, x.dtype))
                self.emit(f"gg = {second(f'({x.name}.grad * T.tensor({w})).sum()', leaves)}",
                          kind="grad", message=True, loose=("gg",), scale=_SECOND_ORDER,
                          recorded=True)
            # gradients that require grad, accumulated into again, keep requiring grad
            # in PyTorch (difference 3, see test_torch_differential.py): reset them
            # (and retained ones: accumulating into them raises in tracegrad, difference 5)
            rg_leaves = [v.name for v in self.vars.values() if v.rg]
            self.emit("\n".join(f"{n}.grad = None" for n in rg_leaves))
        elif mode == "grad":
            names = self.targets(loss, 3)
            unused = self.chance(0.5)
            retain = self.chance(0.3)
            self.emit(f"gs = T.autograd.grad(loss, [{', '.join(names)}]"
                      + (", allow_unused=True" if unused else "")
                      + (", retain_graph=True" if retain else "") + ")",
                      kind="grad", message=True, loose=("gs",))
        else:  # grad2
            names = self.targets(loss, 2)
            for n in names:
                self.free(self.vars[n])
            self.emit(f"gs = T.autograd.grad(loss, [{', '.join(names)}], create_graph=True, "
                      "allow_unused=True)", kind="grad", loose=("gs",))
            self.emit(f"gs2 = [{second('g.sum()', names)} for g in gs if g is not None]",
                      kind="grad", message=True, loose=("gs2",), scale=_SECOND_ORDER)

    def second_round(self):
        """Reset some gradients, then another backward pass (gradients accumulate)."""
        leaves = [v for v in self.vars.values() if v.leaf and v.rg]
        for v in leaves:
            if self.chance(0.3):
                self.emit(f"{v.name}.grad = None")
            # (no v.grad.zero_(): tracegrad's gradients of different tensors may share
            # memory, difference 4, see test_torch_differential.py)
        self.forward(int(self.rng.integers(1, 4)))
        self.backward()

    # ---- error cases

    def error(self):
        kind = self.rng.integers(11)
        if kind in (0, 7, 8):  # (these run backward passes)
            self.unshare()
        rg = self.pick(lambda v: v.rg and v.mag < _MAX_MAG)
        norg = self.pick(lambda v: v.isfloat and not v.rg)
        if kind == 0 and rg is not None:
            # the first node below ``e`` saves values in both libraries
            self.emit(f"e = ({rg.name} * {rg.name}).sum()\ne.backward()\ne.backward()",
                      kind="error", message=True)
            self.free(rg)
        elif kind == 1 and rg is not None and rg.numel > 1:
            self.emit(f"{rg.name}.backward()", kind="error", message=True)
        elif kind == 2 and rg is not None:
            self.emit(f"{rg.name}.backward(T.ones({rg.shape + (2,)}, dtype=T.{rg.dtype}))",
                      kind="error", message=True)
        elif kind == 3:
            leaf = self.pick(lambda v: v.leaf and v.rg)
            if leaf is not None:
                tpl = self.choice(("{t}.add_(1)", "{t}.mul_(2)", "{t}.zero_()", "{t} += 1",
                                   "{t}[0] = 1.0"))
                if leaf.nd or "[0]" not in tpl:
                    self.emit(tpl.format(t=leaf.name), kind="error", message=True)
        elif kind == 4 and norg is not None:
            self.emit(f"{norg.name}.sum().backward()", kind="error", message=True)
        elif kind == 5 and rg is not None and norg is not None:
            self.emit(f"T.autograd.grad({rg.name}.sum(), [{norg.name}])", kind="error",
                      message=True)
        elif kind == 6 and rg is not None and not self.retained and not self.is_broken(rg):
            # (difference 1: tracegrad runs the whole graph, raising for broken
            # parts and filling retained gradients; PyTorch runs none of it)
            unused = self.pick(lambda v: v.rg and v.leaf and v.name not in rg.deps)
            if unused is not None:
                self.emit(f"T.autograd.grad({rg.name}.sum(), [{unused.name}])", kind="error",
                          message=True)
                self.free(rg)  # tracegrad ran (and freed) the graph, PyTorch not (difference 1)
        elif kind == 7:
            # a saved value modified in place, then backward
            x = self.pick(lambda v: v.rg and not v.leaf and self.inplace_ok(v, True)
                          and v.mag < 10)
            if x is not None:
                self.emit(f"e = ({x.name} * {x.name}).sum()\n{x.name}.mul_(2)\ne.backward()",
                          kind="error", message=True)
                x.consumed = True
        elif kind == 8 and rg is not None:
            # c keeps its dtype in the product: tracegrad's message names the
            # promoted copy it saved (difference 7, see test_torch_differential.py)
            c = self.pick(lambda v: self.inplace_ok(v, False) and not v.rg
                          and _bshape(v.shape, rg.shape) is not None and _promote(rg, v) == v.dtype)
            if c is not None:
                self.emit(f"e = ({rg.name} * {c.name}).sum()\n{c.name}.add_(1)\ne.backward()",
                          kind="error", message=True)
                c.consumed = True
        elif kind == 9:
            nonleaf = self.pick(lambda v: v.rg and not v.leaf)
            if nonleaf is not None:
                self.emit(f"{nonleaf.name}.requires_grad = False", kind="error", message=True)
        else:
            code = self.choice(("T.tensor([1, 2]).requires_grad_()",
                                "T.ones(2, dtype=T.int64, requires_grad=True)",
                                f"{rg.name}.numpy()" if rg is not None else "T.ones(1).numpy()",
                                f"{norg.name}.retain_grad()" if norg is not None else "pass"))
            self.emit(code, kind="error", message=True)


def second(expr, names):
    """Source of the gradient of ``expr`` (a scalar made of first derivatives
    recorded with create_graph) with respect to ``names``, zeros where unused.

    Whether a recorded first derivative requires grad is up to each
    library's derivative formulas (``abs``'s uses ``sign``, recorded by
    PyTorch, not by tracegrad: a zero second derivative either way), so one
    that does not is taken as a zero second derivative.
    """
    inputs = ", ".join(names)
    return (f"(lambda s: T.autograd.grad(s, [{inputs}], allow_unused=True, materialize_grads=True,"
            " retain_graph=True)"
            f" if s.requires_grad else tuple(T.zeros_like(t) for t in [{inputs}]))({expr})")


def generate_program(seed):
    """A random straight-line program (deterministic in ``seed``).

    Leaves of random shapes and dtypes (float32, float64, some int64; most
    floats requiring grad), 4 to 14 operations drawn from the generator's
    tables, one backward pass (or ``autograd.grad``) of a random kind,
    sometimes a second round (gradients reset or accumulated), then 0 to 2
    error cases.
    """
    g = _Gen(seed)
    for _ in range(int(g.rng.integers(2, 5))):
        g.leaf()
    g.forward(int(g.rng.integers(4, 15)))
    g.backward()
    if g.chance(0.3):
        g.second_round()
    for _ in range(int(g.rng.integers(0, 3))):
        g.error()
    g.prog.mixed = len({v.dtype for v in g.vars.values()} & {"float32", "float64"}) == 2
    return g.prog


def fixed_program(name, *steps, **data):
    """A hand-written program: each step a statement group, or ``(code, False)``
    for one whose exception message is not PyTorch's (its type still is);
    ``data`` the NumPy arrays it names."""
    prog = Program(name, data={k: np.asarray(v) for k, v in data.items()})
    prog.steps = [Step(code, kind="fixed", message=True) if isinstance(code, str)
                  else Step(code[0], kind="fixed", message=code[1]) for code in steps]
    prog.mixed = True
    return prog


# --------------------------------------------------------------------------
# running a program on both libraries


def run_steps(T, program):
    """Execute ``program`` with ``T`` as the module: yields ``(step, namespace, error)``."""
    ns = {"T": T, "np": np, **program.data}
    for i, step in enumerate(program.steps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(compile(step.code, f"<step {i}>", "exec"), ns)
                err = None
            except Exception as e:  # noqa: BLE001 - compared with the other library's
                err = e
        yield step, ns, err


class ProgramMismatch(AssertionError):
    pass


def _graph_edges(t, names):
    """``t.grad_fn``'s name and its inputs, each named by the variable it is.

    An input is ``None``, ``("leaf", name)`` for a leaf's AccumulateGrad,
    ``("var", name)`` for a node that produced a program variable (now or
    before an in-place write), or the name of an inner node followed by its
    own inputs (two levels at most).
    """
    def describe(fn, depth):
        if fn is None:
            return None
        if fn.name() == "torch::autograd::AccumulateGrad":
            return ("leaf", names.get(id(fn.variable), "?"))
        if id(fn) in names and depth:
            return ("var", names[id(fn)])
        if depth >= 3:
            return (fn.name(), "...")
        return (fn.name(), tuple((describe(f, depth + 1), k) for f, k in fn.next_functions))

    return describe(t.grad_fn, 0)


class _Names:
    """Names of a namespace's tensors and of every grad_fn a variable ever had
    (the objects are kept alive, so their ids stay theirs)."""

    def __init__(self, tensor_type):
        self.type = tensor_type
        self.names = {}
        self.keep = []

    def update(self, ns):
        for name, val in ns.items():
            if isinstance(val, self.type):
                self.names[id(val)] = name
                self.keep.append(val)
                fn = val.grad_fn
                if fn is not None:
                    self.keep.append(fn)
                    self.names.setdefault(id(fn), name)


def compare_namespaces(ours, theirs, ours_T, real, step, scale, names=None, shallow=(),
                       loose=(), mixed=False, scales=None):
    """Every tensor variable of both namespaces agrees (values, dtype, requires_grad,
    is_leaf, grad_fn name and inputs, retains_grad, ``.grad``)."""
    if names is None:
        names = (_Names(ours_T.Tensor), _Names(real.Tensor))
    names[0].update(ours)
    names[1].update(theirs)
    for name in sorted(theirs):
        b = theirs[name]
        if name in ("T", "np") or name.startswith(("D", "_")):
            continue
        a = ours.get(name)
        is_loose = name in loose or name in step.loose
        _compare_value(a, b, name, ours_T, real, scale * (scales or {}).get(name, 1.0), is_loose,
                       mixed, recorded=is_loose or step.recorded)
        if (isinstance(b, real.Tensor) and not is_loose and name not in shallow
                and b.grad_fn is not None):
            e_ours = _graph_edges(a, names[0].names)
            e_theirs = _graph_edges(b, names[1].names)
            if e_ours != e_theirs:
                raise ProgramMismatch(f"{name}: next_functions {e_ours} != PyTorch's {e_theirs}")


def _compare_value(a, b, what, ours_T, real, scale, loose, mixed=False, recorded=False):
    if isinstance(b, real.Tensor):
        if not isinstance(a, ours_T.Tensor):
            raise ProgramMismatch(f"{what}: {type(a).__name__} where PyTorch has a Tensor")
        if mixed and dtype_name(b) == "float64":
            scale = scale * TOLERANCES["float32"][0] / TOLERANCES["float64"][0]
        assert_values_close(a, b, what, scale)
        if a.requires_grad != b.requires_grad and not recorded:
            raise ProgramMismatch(f"{what}: requires_grad {a.requires_grad} != {b.requires_grad}")
        if a.is_leaf != b.is_leaf and not recorded:
            raise ProgramMismatch(f"{what}: is_leaf {a.is_leaf} != {b.is_leaf}")
        if not loose and grad_fn_name(a) != grad_fn_name(b):
            raise ProgramMismatch(f"{what}: grad_fn {grad_fn_name(a)} != {grad_fn_name(b)}")
        if a.retains_grad != b.retains_grad:
            raise ProgramMismatch(f"{what}: retains_grad {a.retains_grad} != {b.retains_grad}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ga, gb = a.grad, b.grad
        if (ga is None) != (gb is None):
            raise ProgramMismatch(f"{what}.grad is {ga!r}, PyTorch's is {gb!r}")
        if gb is not None:
            _compare_value(ga, gb, what + ".grad", ours_T, real, scale, True, mixed, recorded)
    elif isinstance(b, (tuple, list)):
        if not isinstance(a, (tuple, list)) or len(a) != len(b):
            raise ProgramMismatch(f"{what}: {a!r} where PyTorch has {b!r}")
        for i, (x, y) in enumerate(zip(a, b)):
            _compare_value(x, y, f"{what}[{i}]", ours_T, real, scale, loose, mixed, recorded)
    elif b is None:
        if a is not None:
            raise ProgramMismatch(f"{what}: {a!r} where PyTorch has None")


def _same_error(ours, theirs, step):
    if theirs is None and ours is None:
        return
    if theirs is None:
        raise ProgramMismatch(f"tracegrad raised {type(ours).__name__}: {ours}; PyTorch did not")
    if ours is None:
        raise ProgramMismatch(f"PyTorch raised {type(theirs).__name__}: {theirs}; tracegrad did not")
    if not isinstance(ours, type(theirs)):
        raise ProgramMismatch(f"tracegrad raised {type(ours).__name__}: {ours}; PyTorch raised "
                              f"{type(theirs).__name__}: {theirs}")
    if step.message and str(ours) != str(theirs):
        raise ProgramMismatch(f"message {str(ours)!r} != PyTorch's {str(theirs)!r}")


def run_differential(program, ours_T, real, scale=1.0):
    """Run ``program`` on both libraries in lock step, comparing after every step.

    Raises AssertionError naming the step and the difference, followed by
    the program's source (runnable with real PyTorch).
    """
    names = (_Names(ours_T.Tensor), _Names(real.Tensor))
    shallow, loose, scales = set(), set(), {}
    for i, ((step, ns_a, err_a), (_, ns_b, err_b)) in enumerate(
            zip(run_steps(ours_T, program), run_steps(real, program))):
        shallow.update(step.shallow)
        loose.update(step.loose)
        scales.update((n, step.scale) for n in step.loose)
        try:
            _same_error(err_a, err_b, step)
            if err_b is not None and step.kind in ("backward", "grad"):
                # PyTorch may have accumulated some gradients before it raised
                # (tracegrad raises before accumulating any): stop here
                return
            compare_namespaces(ns_a, ns_b, ours_T, real, step, scale, names, shallow, loose,
                               program.mixed, scales)
        except AssertionError as e:
            raise AssertionError(
                f"program {program.seed}, step {i} ({step.kind}): {step.code!r}\n{e}\n\n"
                f"--- the program (with `import torch as T`) ---\n{program.source()}"
            ) from None
