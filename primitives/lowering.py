"""The declared code-generation rules of primitives (``Primitive.lowering``).

A primitive's block sets ``prim.lowering`` to one of the three kinds below;
:mod:`tracegrad.transforms.codegen` reads it when ``jit`` compiles a staged
program into Numba code (its module docstring describes the whole
interface).  Nothing here imports Numba: expressions are source text, and the
scalar functions they name (``fexp``, ``fsin``, ...) are resolved by the code
generator in :mod:`tracegrad.transforms.codegen_math`.

- :class:`Elementwise`: one scalar expression per element, fused into the
  loop nest of its cluster (broadcasting handled by the generator).
- :class:`Reduction`: an accumulation inside the loop over the operand.
- :class:`ArrayOp`: statements on whole arrays (``x.reshape(...)``,
  ``a @ b``, or a sub-IR's code), emitted between loop nests.
"""

__all__ = ["Elementwise", "Reduction", "ArrayOp", "float_only", "same_float"]


def _dtypes_ok(accepts, in_dtypes, out_dtype, params):
    return accepts is None or bool(accepts(in_dtypes, out_dtype, params))


def float_only(in_dtypes, out_dtype, params):
    """``accepts`` predicate: every operand and the result real floating."""
    return out_dtype.kind == "f" and all(d.kind in "fiub" for d in in_dtypes)


def same_float(in_dtypes, out_dtype, params):
    """``accepts`` predicate: float32/float64 operands of the result's dtype."""
    return out_dtype.kind == "f" and all(d == out_dtype for d in in_dtypes)


class Elementwise:
    """An elementwise primitive's scalar expression.

    Parameters
    ----------
    fast : str or callable
        The expression computing one element: a format string over the
        operands' scalar expressions (``"{0} + {1}"``), or a callable
        ``fast(*operands, T=dtype_source, **params) -> str``.  Operands arrive already cast
        to the computation dtype (weak Python scalars take the other
        operands' dtype); the result is cast to the output dtype.  Scalar
        functions are named as :mod:`~tracegrad.transforms.codegen_math`
        defines them (``math.*``, ``fexp``, ``fsin`` ...): this string is
        the one place choosing a primitive's scalar function.
    exact, check : str or callable, optional
        For a ``fast`` expression that is not valid everywhere (a
        range-reduced ``sin``): ``check`` is true for an operand needing
        ``exact`` instead.  The loop accumulates ``check`` over the cluster
        and, where it was ever true, runs the cluster again with ``exact``
        expressions (a rare second pass, so the first stays branch-free).
    accepts : callable, optional
        ``accepts(in_dtypes, out_dtype, params) -> bool``; False leaves the
        equation to the primitive's impl (integer division, complex ...).
    """

    __slots__ = ("fast", "exact", "check", "accepts")

    def __init__(self, fast, exact=None, check=None, accepts=None):
        self.fast, self.exact, self.check, self.accepts = fast, exact, check, accepts

    def applies(self, in_dtypes, out_dtype, params):
        return _dtypes_ok(self.accepts, in_dtypes, out_dtype, params)

    @staticmethod
    def _format(template, operands, params, dtype):
        if callable(template):
            return template(*operands, T=dtype, **params)
        return template.format(*operands, T=dtype)

    def expression(self, operands, params, dtype, exact=False):
        """Source of one element (``exact``: the fix-up pass's version).
        ``dtype`` is the source naming the computation dtype (``{T}`` in a
        format string: ``"{0} * ({T}(1.0) - {1} * {1})"`` keeps float32)."""
        template = self.exact if exact and self.exact is not None else self.fast
        return self._format(template, operands, params, dtype)

    def needs_exact(self, operands, params, dtype):
        """Source of the predicate (None: ``fast`` is valid everywhere)."""
        return None if self.check is None else self._format(self.check, operands, params, dtype)

    def __repr__(self):
        return f"Elementwise({self.fast!r})"


class Reduction:
    """A reduction accumulated inside the loop over its operand.

    Parameters
    ----------
    out_index : callable
        ``out_index(in_shape, out_shape, params)`` -> for each operand axis,
        the output axis it indexes, ``None`` (summed away) or ``"0"`` (a kept
        axis of length 1).
    init, combine : str
        The accumulator's initial value (``"0"``) and update
        (``"{acc} + {x}"``).
    accepts : callable, optional
        As for :class:`Elementwise`.
    """

    __slots__ = ("out_index", "init", "combine", "accepts")

    def __init__(self, out_index, init="0", combine="{acc} + {x}", accepts=None):
        self.out_index, self.init, self.combine, self.accepts = out_index, init, combine, accepts

    def applies(self, in_dtypes, out_dtype, params):
        return _dtypes_ok(self.accepts, in_dtypes, out_dtype, params)

    def __repr__(self):
        return f"Reduction({self.combine!r})"


class ArrayOp:
    """Statements on whole arrays.

    Parameters
    ----------
    emit : callable
        ``emit(ctx, eqn, operands, outputs) -> list of str or None``:
        source lines assigning the names ``outputs`` from the array names
        ``operands`` (C-contiguous arrays, or a literal's source), or None
        when this equation cannot be lowered (it then runs its impl from
        the Python driver).  ``ctx`` (a ``codegen.EmitContext``) offers
        ``ctx.constant(value)`` (a global of the generated module),
        ``ctx.dtype(dtype)`` (the source naming a NumPy dtype),
        ``ctx.fresh(hint)`` (a new local name), ``ctx.blas`` (whether
        Numba's ``np.dot`` works here) and ``ctx.lower_jaxpr(jaxpr, consts,
        operands)`` (the lines and output names of a sub-IR's code, for a
        loop around the body of a scan).
    """

    __slots__ = ("emit",)

    def __init__(self, emit):
        self.emit = emit

    def __repr__(self):
        return f"ArrayOp({getattr(self.emit, '__name__', self.emit)!r})"
