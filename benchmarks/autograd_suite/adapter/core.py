"""autograd's core API (``make_vjp``, ``make_jvp``, ``vspace``) on tracegrad.

autograd's higher-level operators (its ``differential_operators`` and
``test_util``, run unchanged from the sdist) are written on these three, so
the suite checks tracegrad's derivatives through autograd's own checker.

Complex numbers: autograd's VJPs and tracegrad's (JAX's) follow the same
convention (``vjp(g) = g f'(z)`` for holomorphic ``f``), so none is converted.
"""
import numpy as onp

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import Tracer

__all__ = ["make_vjp", "make_jvp", "vspace", "VSpace", "primitive_vjps", "primitive_jvps",
           "Primitive", "primitive", "defvjp", "defjvp", "defvjp_argnum", "defjvp_argnum",
           "defvjp_argnums"]


def make_vjp(fun, x):
    """``(vjp, ans)``: ``vjp(g)`` the (conjugate-linear) cotangent of ``x``."""
    ans, pullback = tg.vjp(fun, x)

    def vjp(g):
        return pullback(g)[0]

    return vjp, ans


def make_jvp(fun, x):
    """``jvp(v) -> (ans, tangent)``."""
    def jvp(v):
        return tg.jvp(fun, (x,), (v,))

    return jvp


class VSpace:
    """The vector space of a value: arrays, scalars and (nested) tuples, lists and dicts."""

    def __init__(self, value):
        self.kind = type(value) if isinstance(value, (tuple, list, dict)) else None
        if self.kind is dict:
            self.keys = list(value)
            self.parts = [vspace(value[k]) for k in self.keys]
        elif self.kind is not None:
            self.parts = [vspace(v) for v in value]
        else:
            aval = onp.asarray(value.aval if isinstance(value, Tracer) and hasattr(value, "aval")
                               else value) if not isinstance(value, Tracer) else None
            self.shape = tuple(tnp.shape(value))
            self.dtype = onp.dtype(tnp.result_type(value) if aval is None else aval.dtype)
            if self.dtype.kind == "b":
                raise TypeError(f"Can't find vector space for type {type(value)} (booleans "
                                "are not differentiable)")
            if self.dtype.kind in "iu":
                self.dtype = onp.dtype(onp.float64)
            self.scalar = onp.ndim(value) == 0 and not isinstance(value, (onp.ndarray, Tracer))

    # structure
    def _build(self, parts):
        if self.kind is dict:
            return dict(zip(self.keys, parts))
        return self.kind(parts)

    def __eq__(self, other):
        if not isinstance(other, VSpace) or self.kind != other.kind:
            return False
        if self.kind is not None:
            return len(self.parts) == len(other.parts) and all(
                a == b for a, b in zip(self.parts, other.parts))
        return self.shape == other.shape and self.dtype == other.dtype

    def __repr__(self):
        if self.kind is not None:
            return f"VSpace({self.kind.__name__}, {self.parts})"
        return f"VSpace(shape={self.shape}, dtype={self.dtype})"

    @property
    def size(self):
        if self.kind is not None:
            return sum(p.size for p in self.parts)
        return int(onp.prod(self.shape)) * (2 if self.iscomplex else 1)  # real dimension

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def iscomplex(self):
        return self.dtype.kind == "c"

    def _map(self, fn, *values):
        if self.kind is dict:
            return dict(zip(self.keys, (p._map(fn, *[v[k] for v in values])
                                        for k, p in zip(self.keys, self.parts))))
        if self.kind is not None:
            return self.kind(p._map(fn, *[v[i] for v in values]) for i, p in enumerate(self.parts))
        return fn(self, *values)

    def _leaf(self, array):
        return self.dtype.type(array) if self.scalar else array

    def zeros(self):
        return self._map(lambda s: s._leaf(onp.zeros(s.shape, s.dtype)))

    def ones(self):
        return self._map(lambda s: s._leaf(onp.ones(s.shape, s.dtype)))

    def standard_basis(self):
        if self.kind is not None:
            for i, p in enumerate(self.parts):
                for e in p.standard_basis():
                    parts = [q.zeros() for q in self.parts]
                    parts[i] = e
                    yield self._build(parts)
            return
        for idx in onp.ndindex(*self.shape):
            v = onp.zeros(self.shape, self.dtype)
            v[idx] = 1.0
            yield self._leaf(v)
            if self.iscomplex:
                v = onp.zeros(self.shape, self.dtype)
                v[idx] = 1j
                yield self._leaf(v)

    def randn(self):
        def leaf(s):
            v = onp.random.randn(*s.shape)
            if s.iscomplex:
                v = v + 1j * onp.random.randn(*s.shape)
            return s._leaf(onp.asarray(v, s.dtype))

        return self._map(leaf)

    def add(self, x, y):
        return self._map(lambda s, a, b: a + b, x, y)

    def scalar_mul(self, x, a):
        return self._map(lambda s, v: v * a, x)

    def inner_prod(self, x, y):
        if self.kind is dict:
            return sum(p.inner_prod(x[k], y[k]) for k, p in zip(self.keys, self.parts))
        if self.kind is not None:
            return sum(p.inner_prod(a, b) for p, a, b in zip(self.parts, x, y))
        return tnp.real(tnp.sum(tnp.conj(x) * y))

    def covector(self, x):
        return self._map(lambda s, v: tnp.conj(v) if s.iscomplex else v, x)

    def mut_add(self, x, y):
        return self.add(x, y)


def vspace(value):
    """The :class:`VSpace` of ``value`` (an array, scalar, tracer or container of them)."""
    return value if isinstance(value, VSpace) else VSpace(value)


#: autograd's registries of per-primitive rules: tracegrad keeps its rules on
#: its primitives, so these stay empty (tests that read them fail).
primitive_vjps = {}
primitive_jvps = {}


class Primitive:
    """autograd's ``@primitive`` on tracegrad: a function whose derivatives
    are the rules given with :func:`defvjp` / :func:`defjvp`.  Called on
    tracers it becomes a ``tg.custom_vjp`` (when it has VJP rules) or a
    ``tg.custom_jvp``; with no rule for a traced argument, differentiating
    it raises ``NotImplementedError`` as autograd does."""

    def __init__(self, fun):
        self.fun = fun
        self.vjps, self.jvps = {}, {}
        self.vjp_argnum = None  # maker(argnum, ans, args, kwargs) -> (g -> cotangent)
        self.__name__ = getattr(fun, "__name__", "primitive")
        self.__doc__ = getattr(fun, "__doc__", None)

    def _missing(self, kind, i):
        raise NotImplementedError(f"{kind} of {self.__name__} wrt argnum {i} not defined")

    def __call__(self, *args, **kwargs):
        traced = [i for i, a in enumerate(args) if isinstance(a, Tracer)]
        if not traced:
            return self.fun(*args, **kwargs)

        def full(dyn):
            full_args = list(args)
            for i, a in zip(traced, dyn):
                full_args[i] = a
            return full_args

        def inner(*dyn):
            return self.fun(*full(dyn), **kwargs)

        if self.vjps or self.vjp_argnum:
            wrapped = tg.custom_vjp(inner)

            def fwd(*dyn):
                ans = self.fun(*full(dyn), **kwargs)
                return ans, (ans, dyn)

            def bwd(res, g):
                ans, dyn = res
                a = full(dyn)
                if self.vjp_argnum is not None:
                    return tuple(self.vjp_argnum(i, ans, tuple(a), kwargs)(g) for i in traced)
                return tuple(self.vjps[i](ans, *a, **kwargs)(g) if i in self.vjps
                             else self._missing("VJP", i) for i in traced)

            wrapped.defvjp(fwd, bwd)
        else:
            wrapped = tg.custom_jvp(inner)

            def jvp(primals, tangents):
                ans = self.fun(*full(primals), **kwargs)
                a = full(primals)
                out = None
                for i, t in zip(traced, tangents):
                    if i not in self.jvps:
                        self._missing("JVP", i)
                    c = self.jvps[i](t, ans, *a, **kwargs)
                    out = c if out is None else out + c
                return ans, out

            wrapped.defjvp(jvp)
        return wrapped(*(args[i] for i in traced))


def primitive(fun):
    """autograd's ``@primitive`` (see :class:`Primitive`)."""
    return Primitive(fun)


def defvjp_argnum(fun, vjpmaker):
    """``vjpmaker(argnum, ans, args, kwargs) -> (g -> cotangent)`` for every argument."""
    fun.vjp_argnum = vjpmaker


def defvjp(fun, *vjpmakers, argnums=None):
    """``vjpmaker_i(ans, *args) -> (g -> cotangent of args[i])``, per argument."""
    for i, maker in zip(range(len(vjpmakers)) if argnums is None else argnums, vjpmakers):
        if maker is not None:
            fun.vjps[i] = maker


def defjvp(fun, *jvpfuns, argnums=None):
    """``jvpfun_i(g, ans, *args) -> tangent of ans``, per argument."""
    for i, rule in zip(range(len(jvpfuns)) if argnums is None else argnums, jvpfuns):
        if rule is not None:
            fun.jvps[i] = rule


def _not_mapped(*args, **kwargs):
    raise NotImplementedError("defjvp_argnum and defvjp_argnums are not mapped onto tracegrad")


defjvp_argnum = defvjp_argnums = _not_mapped
