"""Numba code generation for ``jit``: a staged program becomes compiled loops.

:func:`compile_program` turns a :class:`ClosedJaxpr` into Python source and a
function ``run(*args) -> list``.  What is generated
---------------------------------------------------

The live equations are split into *segments*: maximal runs of equations
whose primitive has a lowering (``Primitive.lowering``, declared in the
primitive's block, see :mod:`tracegrad.primitives.lowering`) become one
``numba.njit`` function each; an equation without one (or whose lowering
declines its dtypes) runs its impl from a thin Python driver between them.
When every equation lowers -- the usual case -- the program is one compiled
function behind a one-line driver: one Numba dispatch per call.

Inside a segment the equations are grouped into *clusters* while walking
them in order: elementwise equations of one output shape (operands of other
shapes broadcast by index arithmetic) and reductions over arrays of that
shape share one loop nest over that shape, with static trip counts; a value
is written to an array only if something outside the cluster reads it
(every other value is a local scalar of the loop body), and a reduction
accumulates inside the loop.  An array statement (``reshape``,
``transpose``, ``matmul``, a sub-IR) that does not read the open cluster is
hoisted above its loop, so it does not cut the cluster; one that does closes
it.  Loops are flat (``for i in range(n)`` over reshaped views) unless an
operand broadcasts or a reduction keeps axes; clusters of at least
:data:`PARALLEL_MIN_SIZE` elements without array accumulators run their
outer loop with ``prange`` (the function is then compiled ``parallel=True``).

Dtypes are eager's: operands are cast to the computation dtype (the output
dtype, or for comparisons the promoted operand dtype: weak Python scalars
and literals take the other operands'), and every element is cast to the
output dtype.  Complex and float16 values are left to the impls.

Transcendentals use the expression of the primitive's ``Elementwise``
lowering; a ``fast`` expression valid only in a range (``fsin``, range-reduced)
comes with ``check``/``exact``: the loop ORs ``check`` over the cluster and
runs the cluster again with the exact (``math.*``) expressions if any element
needed it, so the common pass stays branch-free and vectorizes.

matmul and other BLAS calls are lowered only when Numba's ``np.dot`` works,
which needs SciPy (:func:`blas_available`, monkeypatched in the tests);
without it ``matmul`` has no lowering and the program is split there, NumPy's
``matmul`` running from the driver.

Lowering interface (for new primitives, control flow included)
---------------------------------------------------------------
``prim.lowering`` is an :class:`~tracegrad.primitives.lowering.Elementwise`
(a scalar expression), a :class:`~tracegrad.primitives.lowering.Reduction`,
or an :class:`~tracegrad.primitives.lowering.ArrayOp` whose
``emit(ctx, eqn, operands, outputs)`` returns source lines.  ``outputs`` holds None for a result nothing reads (of a
multiple-result equation).  ``ctx`` is an :class:`EmitContext`: ``constant``, ``dtype``, ``fresh``, ``blas``,
``can_lower(jaxpr)`` (every equation of a sub-IR compiles; else the rule
declines) and ``lower_jaxpr(jaxpr, consts, operands) -> (lines, outputs)``,
which emits a sub-IR's code (its own clusters) into the current function, so
a ``scan`` lowering writes ``for k in range(n):`` followed by the indented
lines of its body (:mod:`tracegrad.transforms.codegen_loops`: ``scan``,
``cond``, ``while``).  An equation with a sub-IR is compiled even alone
between impls (see :func:`_worth_compiling`).

Source and compilation
----------------------
The generated source names arrays after the IR's variables (``c`` is the IR's
``c``), loop-local scalars ``e_c``, and each statement carries the
primitive's name in a comment; ``jitted.lower(*args).source`` shows it.
:func:`compile_source` is the one place turning source into functions: the
segments and the driver are one module, run from its file in the compile
cache (:mod:`tracegrad.transforms.compile_cache`), so Numba's on-disk cache
serves it to the next process.

Measured (2 cores shared with five other workers, medians)
----------------------------------------------------------
Numba dispatch: 0.35 us per call plus about 0.05 us per array argument, so
constants are passed as arguments (not frozen as globals: that would copy
them into the machine code and break reading them by reference).  See
:data:`PARALLEL_MIN_SIZE` for the threading threshold.

Compile time decided three choices: Numba's ``x.transpose(axes)`` cost 4.0 s
to compile (a generated copying loop: nothing measurable), ``np.dot`` about
1 s per signature (so products above 2**18 multiply-adds, BLAS-bound anyway,
run NumPy's matmul from the driver), and 50 inlined polynomial sines in one
loop 100 s (small clusters call ``math.*``, see :data:`FAST_MATH_MIN_SIZE`).
``jit(grad(mlp))`` first call in a fresh process (CPU seconds, medians of
3, machine load 4-5 on 2 cores; wall was twice that): 0.70 s with the
compile cache and Numba's cache warm (1.4-1.7 s without the compile cache,
eager kernels' cache warm), 3.3 s with both empty.  Of the warm 0.70 s,
0.42 s is Numba's fixed cost (import and first dispatch) and 0.09 s
importing ``_nn_kernels`` (68 dispatchers); of the empty-cache time, the
eager kernels the driver's impls run (tanh, log_softmax and its vjp,
sum_to_shape, Numba's warm-up) take about two thirds.

``python jitcmp.py chain mlp big jac hess per_example`` (``tg.jit(grad(f))``
against ``jax.jit(jax.grad(f))`` on benchmarks/bench.py's workloads, medians,
machine loaded by six workers), tracegrad/jax ratios: chain 0.76 (28 vs 37
us), big 0.21 (2.4 vs 11.5 ms), jac 0.72 (47 vs 65 us), hess 0.98 (47 vs
48 us), mlp 0.93 (2.1 vs 2.2 ms), per_example 0.37 (85 vs 230 ms).  Before
this module (the impl-calling driver): 8.99, 2.02, 1.67, 3.33, 0.72, 0.28.
"""
import importlib.util
import keyword
import os

import numpy as np

from ..interpreters.staging import ClosedJaxpr, Literal, _names
from ..primitives.kernels import ensure_numba
from ..primitives.lowering import ArrayOp, Elementwise, Reduction
from .compile_cache import load_module

__all__ = ["compile_program", "compile_source", "blas_available", "live_eqns",
           "EmitContext", "PARALLEL_MIN_SIZE"]

#: Clusters of at least this many elements use the lowerings' ``fast``
#: (vectorizable, inlined) scalar functions with their fix-up pass; smaller
#: ones call the exact ones (``math.*``): vectorizing 16 elements gains
#: nothing, and inlining 50 polynomial sines into one loop cost 100 s of
#: compile time on the chain workload.
FAST_MATH_MIN_SIZE = 512

#: Clusters of at least this many elements run their outer loop on all
#: cores (``prange``).  Measured on the ``big`` workload's fused gradient
#: loop, serial against prange (two cores, both busy with other workers):
#: 2**14: 86 vs 69 us; 2**16: 317 vs 395 us; 2**18: 940-1211 vs 1470-1730
#: us; 1e6: 3.7-4.1 vs 4.6-4.7 ms.  Under that load threads lose from 2**16
#: on, so the threshold sits above the measured sizes; re-measure on an idle
#: machine, where two cores should win for large loops.
PARALLEL_MIN_SIZE = 1 << 21

_OK_DTYPES = frozenset(np.dtype(d) for d in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))

_blas = None


def blas_available():
    """Whether Numba's ``np.dot`` can run here (it binds SciPy's BLAS,
    ``scipy.linalg.cython_blas``).  Looked up on disk, not imported: importing
    ``scipy.linalg`` costs 0.15-0.4 s of the first compile, and a program
    whose cached machine code calls BLAS imports it when it runs."""
    global _blas
    if _blas is None:
        try:
            spec = importlib.util.find_spec("scipy")
        except (ImportError, ValueError):
            spec = None
        folders = (spec.submodule_search_locations or []) if spec is not None else []
        _blas = any(name.startswith("cython_blas.") and not name.endswith((".pxd", ".pyi"))
                    for folder in folders if os.path.isdir(os.path.join(folder, "linalg"))
                    for name in os.listdir(os.path.join(folder, "linalg")))
    return _blas


def live_eqns(jaxpr):
    """The equations some output depends on, in order (primitives are pure)."""
    needed = {a for a in jaxpr.outvars if type(a) is not Literal}
    keep = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in needed for v in eqn.outvars):
            keep.append(eqn)
            needed.update(a for a in eqn.invars if type(a) is not Literal)
    keep.reverse()
    return keep


def compile_source(source, namespace, name, frozen=(), driver=None):
    """Run the module ``source`` with the globals ``namespace`` (and the
    Python-only globals ``driver``) and return its function ``name`` (the
    one place turning generated source into functions).

    The module runs from its file in the compile cache, so its
    ``@numba.njit(cache=CACHE, ...)`` functions load from Numba's on-disk
    cache in a new process; ``frozen`` names the globals whose values the
    compiled code freezes (they key the file by value).  See
    :func:`tracegrad.transforms.compile_cache.load_module`.
    """
    return load_module(source, namespace, frozen, driver)[name]


def _aval(a):
    if type(a) is Literal:
        return None
    return a.aval


def _dtype_src(dtype):
    return f"np.{np.dtype(dtype).name}" if np.dtype(dtype) != np.bool_ else "np.bool_"


def _is_weak(a):
    return type(a) is Literal or getattr(a, "weak_type", False)


def _lowering_of(eqn):
    """The lowering that applies to ``eqn``, or None."""
    rule = getattr(eqn.primitive, "lowering", None)
    if rule is None:
        return None
    avals = [_aval(a) for a in eqn.invars]
    outs = [v.aval for v in eqn.outvars]
    if any(a is not None and np.dtype(a.dtype) not in _OK_DTYPES for a in avals + outs):
        return None
    if any(type(a) is Literal and not isinstance(a.val, (bool, int, float)) for a in eqn.invars):
        return None
    if isinstance(rule, (Elementwise, Reduction)):
        in_dtypes = [np.dtype(a.dtype) if a is not None else np.result_type(v.val)
                     for a, v in zip(avals, eqn.invars)]
        if len(outs) != 1 or not rule.applies(in_dtypes, np.dtype(outs[0].dtype), eqn.params):
            return None
    return rule


class EmitContext:
    """What a lowering rule may ask of the code generator (see the module
    docstring).  One per generated module."""

    def __init__(self, namespace, blas):
        self.namespace = namespace
        self.blas = blas
        self._taken = set(namespace) | set(keyword.kwlist) | {"run", "np", "math"}
        self._count = 0

    def fresh(self, hint="t"):
        """A new local name starting with ``hint``."""
        while True:
            self._count += 1
            name = f"{hint}_{self._count}"
            if name not in self._taken:
                self._taken.add(name)
                return name

    def reserve(self, name):
        """``name`` itself if free (IR names), else a fresh variant."""
        if name in self._taken or not name.isidentifier():
            return self.fresh(name + "_")
        self._taken.add(name)
        return name

    def constant(self, value, hint="K"):
        """The name of a module global holding ``value``."""
        name = self.fresh(hint)
        self.namespace[name] = value
        return name

    def dtype(self, dtype):
        return _dtype_src(dtype)

    def can_lower(self, jaxpr):
        """Whether every live equation of ``jaxpr`` (a :class:`Jaxpr`) has a
        lowering that accepts it, so :meth:`lower_jaxpr` can emit it (a
        control-flow rule declines its equation otherwise)."""
        probe = EmitContext({}, self.blas)
        return all(_lowerable(eqn, probe) is not None for eqn in live_eqns(jaxpr))

    def lower_jaxpr(self, jaxpr, consts, operands):
        """Source lines computing ``jaxpr`` (its constvars bound to the names
        ``consts``, its invars to ``operands``: array names, not literals)
        and its output names (an output that is an input is that input's
        name, a literal output its source).  Every equation must lower
        (:meth:`can_lower`)."""
        names = {}
        for v, n in zip(list(jaxpr.constvars) + list(jaxpr.invars), list(consts) + list(operands)):
            names[v] = n
        body = _Body(self, names, live_eqns(jaxpr), jaxpr.outvars)
        lines = body.emit_all()
        return lines, [body.array(a) for a in jaxpr.outvars]


class _Cluster:
    """One loop nest under construction."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.ops = []          # ("elem", eqn, rule) / ("acc", eqn, rule)
        self.defined = set()   # vars computed in the loop body (scalars)
        self.post = set()      # reduction results (arrays after the loop)
        self.last = -1         # index of its last equation


class _Body:
    """The statements of one segment (or sub-IR): clusters and array ops."""

    def __init__(self, ctx, names, eqns, outvars, display=None):
        self.ctx = ctx
        self.names = names     # var -> array name
        self.eqns = eqns
        self.outvars = [a for a in outvars if type(a) is not Literal]
        self.display = display or {}
        self.lines = []
        self.cluster = None
        self.uses = {}
        for k, eqn in enumerate(eqns):
            for a in eqn.invars:
                if type(a) is not Literal:
                    self.uses.setdefault(a, []).append(k)

    # ---- names
    def array(self, v):
        if type(v) is Literal:
            return self.literal(v, np.result_type(v.val))
        n = self.names.get(v)
        if n is None:
            n = self.names[v] = self.ctx.reserve(self.display.get(v, "v"))
        return n

    def literal(self, lit, dtype):
        val = lit.val
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            val = float(val)
            if not np.isfinite(val):
                return f"{_dtype_src(dtype)}({self.ctx.constant(val)})"
        elif dtype.kind == "b":
            val = bool(val)
        else:
            val = int(val)
        return f"{_dtype_src(dtype)}({val!r})"

    # ---- driver
    def emit_all(self):
        for k, eqn in enumerate(self.eqns):
            rule = eqn.primitive.lowering
            if isinstance(rule, Elementwise):
                self.add_elementwise(k, eqn, rule)
            elif isinstance(rule, Reduction):
                self.add_reduction(k, eqn, rule)
            else:
                self.add_array_op(k, eqn, rule)
        self.flush()
        return self.lines

    def _reads_cluster(self, eqn):
        c = self.cluster
        return c is not None and any(type(a) is not Literal and (a in c.defined or a in c.post)
                                     for a in eqn.invars)

    def add_elementwise(self, k, eqn, rule):
        shape = tuple(eqn.outvars[0].aval.shape)
        c = self.cluster
        if c is not None and (c.shape != shape or any(
                type(a) is not Literal and a in c.post for a in eqn.invars)):
            self.flush()
        if self.cluster is None:
            self.cluster = _Cluster(shape)
        c = self.cluster
        c.ops.append(("elem", eqn, rule))
        c.defined.add(eqn.outvars[0])
        c.last = k

    def add_reduction(self, k, eqn, rule):
        (x,) = eqn.invars
        shape = tuple(x.aval.shape)
        c = self.cluster
        if c is not None and (c.shape != shape or x in c.post):
            self.flush()
        if self.cluster is None:
            self.cluster = _Cluster(shape)
        c = self.cluster
        c.ops.append(("acc", eqn, rule))
        c.post.add(eqn.outvars[0])
        c.last = k

    def add_array_op(self, k, eqn, rule):
        if self._reads_cluster(eqn):
            self.flush()
        operands = [self.array(a) for a in eqn.invars]
        live = set(self.outvars)
        outputs = [self.array(v) if v in live or v in self.uses or len(eqn.outvars) == 1 else None
                   for v in eqn.outvars]  # None: a result nothing reads
        lines = rule.emit(self.ctx, eqn, operands, outputs)
        comment = f"  # {eqn.primitive.name}"
        self.lines.extend(line + comment if i == 0 else line for i, line in enumerate(lines))

    # ---- one loop nest
    def _needed_after(self, v, c):
        return v in self.outvars or any(k > c.last for k in self.uses.get(v, ()))

    def flush(self):
        c, self.cluster = self.cluster, None
        if c is None or not c.ops:
            return
        lines = self.lines
        materialized = [op[1].outvars[0] for op in c.ops
                        if op[0] == "elem" and self._needed_after(op[1].outvars[0], c)]
        accs = [op for op in c.ops if op[0] == "acc"]
        array_accs = [op for op in accs if op[1].outvars[0].aval.shape != ()]
        broadcasting = any(
            type(a) is not Literal and a not in c.defined and a.aval.shape != c.shape
            and _size(a.aval.shape) != 1 for op in c.ops for a in op[1].invars)
        flat = not array_accs and not broadcasting and len(c.shape) != 1
        fast = c.size >= FAST_MATH_MIN_SIZE
        checks = fast and any(op[0] == "elem" and op[2].check is not None for op in c.ops)
        parallel = c.size >= PARALLEL_MIN_SIZE and not array_accs
        if parallel:
            self.ctx.parallel = True
        names = ", ".join(self.array(v) for v in materialized + [op[1].outvars[0] for op in accs])
        lines.append(f"# loop over {c.shape}: {names}")
        for v in materialized:
            lines.append(f"{self.array(v)} = np.empty({c.shape!r}, {_dtype_src(v.aval.dtype)})")

        def loop(exact, par):
            acc_names = {}
            out = []
            for op in accs:
                eqn, rule = op[1], op[2]
                v = eqn.outvars[0]
                dt = np.dtype(v.aval.dtype)
                if v.aval.shape == ():
                    acc_dt = np.float64 if dt.kind == "f" else dt
                    a = acc_names[v] = f"s_{self.array(v)}"
                    out.append(f"{a} = {_dtype_src(acc_dt)}({rule.init})")
                else:
                    out.append(f"{self.array(v)} = np.empty({v.aval.shape!r}, {_dtype_src(dt)})")
                    out.append(f"{self.array(v)}[...] = {rule.init}")
            if checks and not exact:
                out.append("n_bad = 0")
            rank = len(c.shape)
            if c.shape == ():
                idx = None
                ind = ""
            elif flat or rank == 1:
                rng = "numba.prange" if par else "range"
                idx = ["i0"]
                out.append(f"for i0 in {rng}({c.size}):")
                ind = "    "
            else:
                idx = [f"i{d}" for d in range(rank)]
                ind = ""
                for d, n in enumerate(c.shape):
                    rng = "numba.prange" if par and d == 0 else "range"
                    out.append(f"{ind}for i{d} in {rng}({n}):")
                    ind += "    "
            body, pre = self._loop_body(c, idx, flat, exact, materialized, acc_names, checks)
            out[0:0] = pre
            out.extend(ind + b for b in body)
            for op in accs:
                v = op[1].outvars[0]
                if v in acc_names:
                    out.append(f"{self.array(v)} = np.empty((), {_dtype_src(v.aval.dtype)})")
                    out.append(f"{self.array(v)}[()] = {acc_names[v]}")
            return out

        lines.extend(loop(not fast, parallel))
        if checks:  # a second pass with the exact functions, where needed
            lines.append("if n_bad:  # some element outside the fast functions' range")
            lines.extend("    " + ln for ln in loop(True, False))

    def _read(self, a, c, idx, flat, pre, body, local):
        """The scalar expression of operand ``a`` inside the loop."""
        if type(a) is Literal:
            return None
        if a in c.defined:
            return f"e_{self.array(a)}"
        got = local.get(a)
        if got is not None:
            return got
        name = f"e_{self.array(a)}"
        arr = self.array(a)
        shape = tuple(a.aval.shape)
        if shape == ():
            pre.append(f"{name} = {arr}[()]")
        elif idx is None or _size(shape) == 1:
            pre.append(f"{name} = {arr}.reshape(1)[0]")
        elif flat and len(shape) > 1:
            pre.append(f"{arr}_flat = {arr}.reshape({c.size})")
            body.append(f"{name} = {arr}_flat[i0]")
        elif flat:
            body.append(f"{name} = {arr}[i0]")
        else:
            off = len(c.shape) - len(shape)
            ix = ", ".join("0" if s == 1 and c.shape[off + d] != 1 else idx[off + d]
                           for d, s in enumerate(shape))
            body.append(f"{name} = {arr}[{ix}]")
        local[a] = name
        return name

    def _loop_body(self, c, idx, flat, exact, materialized, acc_names, checks):
        pre, body, local = [], [], {}
        seen_checks = set()
        flat_views = {}
        for kind, eqn, rule in c.ops:
            if kind == "elem":
                v = eqn.outvars[0]
                out_dt = np.dtype(v.aval.dtype)
                if out_dt.kind == "b":
                    strong = [np.dtype(a.aval.dtype) for a in eqn.invars if not _is_weak(a)]
                    weak = [np.result_type(a.val) if type(a) is Literal else np.dtype(a.aval.dtype)
                            for a in eqn.invars if _is_weak(a)]
                    target = np.result_type(*strong) if strong else np.result_type(*weak)
                    if weak and strong and target.kind in "iub" and any(w.kind == "f" for w in weak):
                        target = np.dtype(np.float64)
                else:
                    target = out_dt
                ops = []
                for a in eqn.invars:
                    if type(a) is Literal:
                        ops.append(self.literal(a, target))
                        continue
                    e = self._read(a, c, idx, flat, pre, body, local)
                    if _is_weak(a) or np.dtype(a.aval.dtype) != target:
                        e = f"{_dtype_src(target)}({e})"
                    ops.append(e)
                expr = rule.expression(ops, eqn.params, _dtype_src(target), exact)
                if not (out_dt == np.float64 and target == np.float64):
                    expr = f"{_dtype_src(out_dt)}({expr})"
                name = f"e_{self.array(v)}"
                body.append(f"{name} = {expr}  # {eqn.primitive.name}")
                if checks and not exact:
                    chk = rule.needs_exact(ops, eqn.params, _dtype_src(target))
                    if chk is not None and chk not in seen_checks:
                        seen_checks.add(chk)
                        body.append(f"n_bad += np.int64({chk})")
                if v in materialized:
                    if idx is None:
                        body.append(f"{self.array(v)}[()] = {name}")
                    elif flat and len(c.shape) > 1:
                        fv = flat_views.get(v)
                        if fv is None:
                            fv = flat_views[v] = f"{self.array(v)}_flat"
                            pre.append(f"{fv} = {self.array(v)}.reshape({c.size})")
                        body.append(f"{fv}[i0] = {name}")
                    else:
                        body.append(f"{self.array(v)}[{', '.join(idx)}] = {name}")
            else:
                (x,) = eqn.invars
                v = eqn.outvars[0]
                e = self._read(x, c, idx, flat, pre, body, local)
                if v in acc_names:
                    a = acc_names[v]
                    body.append(f"{a} = {rule.combine.format(acc=a, x=e)}  # {eqn.primitive.name}")
                else:
                    where = rule.out_index(tuple(x.aval.shape), tuple(v.aval.shape), eqn.params)
                    ix = ", ".join(idx[d] if w != "0" else "0"
                                   for d, w in enumerate(where) if w is not None)
                    a = f"{self.array(v)}[{ix}]"
                    body.append(f"{a} = {rule.combine.format(acc=a, x=e)}  # {eqn.primitive.name}")
        return body, pre


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _display_names(jaxpr):
    gen = _names()
    names = {}
    for v in list(jaxpr.constvars) + list(jaxpr.invars):
        names[v] = next(gen)
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            names[v] = next(gen)
    return names


def _lowerable(eqn, probe):
    """The lowering compiling ``eqn``, or None; an ArrayOp is dry-run on the
    context ``probe`` (a throwaway one), since it may decline the equation."""
    rule = _lowering_of(eqn)
    if isinstance(rule, ArrayOp):
        names = [f"x{i}" for i in range(len(eqn.invars))]
        outs = [f"y{i}" for i in range(len(eqn.outvars))]
        if rule.emit(probe, eqn, names, outs) is None:
            rule = None
    return rule


def _segments(eqns, blas):
    """``[(lowered?, [eqns])]``: runs of lowerable equations, and the rest one by one."""
    segs = []
    probe = EmitContext({}, blas)
    for eqn in eqns:
        ok = _lowerable(eqn, probe) is not None
        if ok and segs and segs[-1][0]:
            segs[-1][1].append(eqn)
        else:
            segs.append((ok, [eqn]))
    # A segment's trailing views move out only when an impl follows to read
    # them; the program's last segment keeps its outputs compiled.
    segs = [part for k, (ok, seg) in enumerate(segs)
            for part in (_split_views(seg) if ok and k + 1 < len(segs) else [(ok, seg)])]
    if len(segs) > 1:  # between impls, a short segment costs more to dispatch than it saves
        segs = [(ok and _worth_compiling(seg), seg) for ok, seg in segs]
    return segs


#: Two lowered equations between impls are compiled when their results have
#: at least this many elements: fused, they make one pass over the data
#: instead of two, and spare the eager kernels their impls would compile
#: (``add`` then ``tanh`` of a 128x256 layer: the tanh kernel's compile).
FUSE_PAIR_MIN_SIZE = 1024

#: Between impls, a run of lowered equations whose results all have fewer
#: than :data:`FUSE_PAIR_MIN_SIZE` elements is compiled only from this many
#: equations (loops always are).  Run by their impls, such equations cost
#: about 1-2 us each per call; compiled, each new function costs 0.2-0.8 s
#: of Numba compile in the first call (mlp's gradient had a 4-equation
#: scalar segment, ``-c / 128`` broadcast to the batch: 0.33-0.79 s of its
#: empty-cache first call, to save about 5 us per call).
SMALL_SEGMENT_MIN = 8


def _worth_compiling(seg):
    if any(map(_has_sub_ir, seg)):
        return True  # a loop: its impl would run the body eagerly, step by step
    if max(_size(v.aval.shape) for eqn in seg for v in eqn.outvars) >= FUSE_PAIR_MIN_SIZE:
        return len(seg) >= 2
    return len(seg) >= SMALL_SEGMENT_MIN


#: Primitives whose impl returns a view (no copy) while their lowering copies
#: (compiled code keeps arrays C-contiguous).
_VIEW_PRIMITIVES = frozenset(("transpose",))


def _split_views(seg):
    """``[(True, seg)]``, or with the view equations no later equation of the
    segment reads moved behind it, run by their impls: the transposes of a
    backward pass feed NumPy's matmul, which reads a transposed view as it is
    (copying ``x.T`` for ``x.T @ g`` in the segment cost 65-100 us per call
    at 128x784)."""
    read = set()
    kept, moved = [], []
    for eqn in reversed(seg):
        if eqn.primitive.name in _VIEW_PRIMITIVES and not any(v in read for v in eqn.outvars):
            moved.append(eqn)
        else:
            kept.append(eqn)
            read.update(a for a in eqn.invars if type(a) is not Literal)
    if not moved:
        return [(True, seg)]
    return ([(True, kept[::-1])] if kept else []) + [(False, moved[::-1])]


def _has_sub_ir(eqn):
    """Whether ``eqn`` carries a sub-IR (a loop or a branch)."""
    return any(isinstance(sub, ClosedJaxpr) for p in eqn.params.values()
               for sub in (p if isinstance(p, tuple) else (p,)))


def _literal_source(val, namespace):
    if isinstance(val, (bool, int)) or val is None:
        return repr(val)
    if isinstance(val, float) and np.isfinite(val) and not isinstance(val, np.generic):
        return repr(val)
    name = f"K{len(namespace)}"
    namespace[name] = val
    return name


def _impl_call(eqn, ctx, py_ns, dname):
    """The driver's line running ``eqn`` by its primitive's impl."""
    prim = eqn.primitive
    iname = ctx.fresh(f"impl_{prim.name}")
    py_ns[iname] = prim.impl
    call = f"{iname}({', '.join(dname(a) for a in eqn.invars)}"
    if eqn.params:
        pname = ctx.fresh("params")
        py_ns[pname] = eqn.params
        call += f"{', ' if eqn.invars else ''}**{pname}"
    call += ")"
    outs = ", ".join(dname(v) for v in eqn.outvars)
    if prim.multiple_results:
        outs += "," if len(eqn.outvars) == 1 else ""
    return f"    {outs} = {call}  # {prim.name} (its impl)"


def compile_program(closed, *, blas=None):
    """Source and function running ``closed``'s live equations.

    Parameters
    ----------
    closed : ClosedJaxpr
    blas : bool, optional
        Whether ``matmul`` may be compiled (default :func:`blas_available`).

    Returns
    -------
    (str, callable)
        The whole generated source (compiled segments and the driver), and
        ``run(*args) -> list`` with the constants bound.
    """
    numba = ensure_numba()  # the first compile pays Numba's import (with the collector paused)

    from . import codegen_math  # lazy: imports Numba

    if blas is None:
        blas = blas_available()
    jaxpr = closed.jaxpr
    display = _display_names(jaxpr)
    eqns = live_eqns(jaxpr)
    segs = _segments(eqns, blas)
    # an ArrayOp may decline (returns None): such equations run their impl
    py_ns = {"np": np, "asarray": np.asarray, "contiguous": np.ascontiguousarray}
    ctx_ns = dict(codegen_math.NAMESPACE)
    ctx_ns["numba"] = numba
    ctx = EmitContext(ctx_ns, blas)
    ctx._taken.update(ctx_ns)
    ctx._taken.update(("asarray", "contiguous", "CACHE"))
    drv_names = {}

    def dname(v):
        if type(v) is Literal:
            return _literal_source(v.val, py_ns)
        n = drv_names.get(v)
        if n is None:
            n = drv_names[v] = ctx.reserve(display.get(v, "v"))
        return n

    for k, (v, c) in enumerate(zip(jaxpr.constvars, closed.consts)):
        py_ns[dname(v)] = c
    later_uses = {}
    for k, (_, seg) in enumerate(segs):
        for eqn in seg:
            for a in eqn.invars:
                if type(a) is not Literal:
                    later_uses.setdefault(a, set()).add(k)
    outset = {a for a in jaxpr.outvars if type(a) is not Literal}
    seg_sources = []
    driver = [f"def run({', '.join(dname(v) for v in jaxpr.invars)}):"]
    for k, (lowered, seg) in enumerate(segs):
        if lowered:
            defined = {v for eqn in seg for v in eqn.outvars}
            params = []
            for eqn in seg:
                for a in eqn.invars:
                    if type(a) is not Literal and a not in defined and a not in params:
                        params.append(a)
            outs = [v for v in defined if v in outset or any(j > k for j in later_uses.get(v, ()))]
            outs.sort(key=lambda v: display.get(v, ""))
            ctx.parallel = False
            names = {a: dname(a) for a in params}
            body = _Body(ctx, names, seg, outs, display)
            lines = body.emit_all()
            fname = f"segment{k}"
            head = [f"def {fname}({', '.join(names[a] for a in params)}):"]

            ret = ", ".join(body.array(v) for v in outs)
            src = "\n".join(head + ["    " + ln for ln in lines]
                            + [f"    return ({ret}{',' if len(outs) == 1 else ''})"]) + "\n"
            opts = dict(error_model="numpy", nogil=True)  # (no FMA contraction: eager rounds each op)
            if ctx.parallel:
                opts["parallel"] = True
            src = f"@numba.njit(cache=CACHE, **{opts!r})\n" + src
            seg_sources.append(src)
            for v in outs:
                drv_names[v] = body.array(v) if v not in drv_names else drv_names[v]
            lhs = ", ".join(dname(v) for v in outs) + ("," if len(outs) == 1 else "")
            if outs:
                args = ", ".join(f"{'asarray' if a.aval.shape == () else 'contiguous'}({dname(a)})"
                                 for a in params)
                driver.append(f"    {lhs} = {fname}({args})")
        else:
            for eqn in seg:
                driver.append(_impl_call(eqn, ctx, py_ns, dname))
    driver.append(f"    return [{', '.join(dname(a) for a in jaxpr.outvars)}]")
    drv_src = "\n".join(driver) + "\n"
    # one module (segments and driver): one cache file, one Numba cache index
    source = "\n".join(seg_sources + [drv_src])
    frozen = [k for k in ctx_ns if k not in codegen_math.NAMESPACE and k != "numba"]
    clash = [k for k in py_ns if k in ctx_ns and py_ns[k] is not ctx_ns[k]]
    assert not clash, f"generated names used twice: {clash}"
    run = compile_source(source, ctx_ns, "run", frozen, py_ns)
    return source, run
