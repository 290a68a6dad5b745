"""``torch.linalg``: PyTorch's linear-algebra functions on tracegrad tensors.

Each function has PyTorch's signature and forwards to
:mod:`tracegrad.numpy.linalg` or :mod:`tracegrad.scipy.linalg` applied to
the tensors, so its derivative is those functions' (the primitives' rules:
Giles 2008 for ``inv``/``solve``/``det``, Murray 2016 for ``cholesky``, the
usual eigen/singular-vector formulas for ``eigh``/``svd``; see the
docstrings of :mod:`tracegrad.numpy.linalg` for where each derivative is
defined).  Results are recorded under PyTorch's ``grad_fn`` names
(``LinalgInvExBackward0``, ``LinalgEighBackward0``, ...) and several-valued
results are PyTorch's named tuples (``torch.return_types.linalg_eigh``,
...).  Errors for non-square or low-rank input, integer dtypes, singular
and non-positive-definite matrices carry PyTorch's types and messages
(:class:`LinAlgError` is a ``RuntimeError``, as PyTorch's).

Known differences: ``eig``/``eigvals`` of a tensor that requires grad
raise NotImplementedError (complex tensors cannot require grad in
tracegrad); ``lu_factor``/``lu`` take square matrices only; ``lstsq``
computes the minimum-norm solution through ``pinv`` whatever the
``driver`` (the same solution as PyTorch's for full-rank input; the other
fields follow the driver as PyTorch's CPU drivers fill them).
"""
import builtins
import collections
import math
import numbers
import warnings

import numpy as np

from .. import numpy as _tnp
from ..primitives import ops
from ..scipy import linalg as _tsl
from . import _ops
from ._autograd import group
from ._ops import _composite, _needs_grad, _tensor_arg
from ._tensor import Tensor

__all__ = [
    "LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "solve", "det",
    "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "svdvals", "qr", "lstsq", "pinv",
    "matrix_power", "matrix_rank", "cross", "multi_dot", "eig", "eigvals", "lu_factor", "lu",
    "solve_triangular", "cond", "vecdot", "matrix_exp", "diagonal",
]


class LinAlgError(RuntimeError):
    """A linear-algebra failure (singular or not positive-definite input), as PyTorch's
    ``torch.linalg.LinAlgError`` (a ``RuntimeError``)."""


_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte", "bool": "Bool", "float16": "Half"}

_RETURN_TYPES = {}


def _return_type(name, fields):
    """``torch.return_types.<name>``: a named tuple printed as PyTorch prints it."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        base = collections.namedtuple(name, fields)

        def __repr__(self):
            body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
            return f"torch.return_types.{name}(\n{body})"

        cls = _RETURN_TYPES[name] = type(name, (base,), {
            "__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})
    return cls


def _matrix(A, name, square=True, arg="A", floating=True):
    """``A`` as a tensor, with PyTorch's checks of a (batch of) matrices."""
    x = _tensor_arg(A)
    if x._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if floating and x._data.dtype.kind not in "fc":
        dt = str(x._data.dtype)
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_TYPE_NAMES.get(dt, dt)}")
    m, n = x._data.shape[-2:]
    if square and m != n:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")
    return x


def _concrete(x):
    """The NumPy data of a tensor, or None inside a ``torch.func`` transform."""
    d = x._data
    return d if type(d) is np.ndarray else None


def _call(name, fn, inputs, *args, **kwargs):
    """``fn(*args)`` recorded as ``name``; every tensor of a tuple result is named so."""
    out = _composite(name, fn, inputs, *args, **kwargs)
    if isinstance(out, tuple) and _needs_grad(*inputs):
        out = tuple(group(o, name, inputs) if isinstance(o, Tensor) else o for o in out)
    return out


def _singular_index(a):
    """1-based index of the first zero pivot of ``a``'s LU factorization (0: none), per matrix."""
    import scipy.linalg as sla  # lazy: only on the error path

    flat = a.reshape((-1,) + a.shape[-2:])
    for mat in flat:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)  # (the singular matrix)
            lu_, _ = sla.lu_factor(mat, check_finite=False)
        zeros = np.flatnonzero(np.diag(lu_) == 0)
        if zeros.size:
            return int(zeros[0]) + 1
    return 0


def _check_invertible(x, name):
    d = _concrete(x)
    if d is None or d.size == 0:
        return
    k = _singular_index(d)
    if k:
        if name == "torch.linalg.solve":
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                              "is singular.")
        raise LinAlgError(f"{name}: The diagonal element {k} is zero, the inversion could not "
                          "be completed because the input matrix is singular.")


# --------------------------------------------------------------------------
# norms


def _norm_dtype(x, dtype):
    return x if dtype is None else x.to(dtype)


def _dims_tuple(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    return tuple(int(d) % ndim if ndim else 0 for d in dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The vector ``ord``-norm of ``x`` over ``dim`` (all elements for None).

    Parameters
    ----------
    x : Tensor
        Floating point.
    ord : float, optional
        ``2`` (default), any real ``p`` (``sum(|x|**p)**(1/p)``), ``inf``
        (max abs), ``-inf`` (min abs), ``0`` (number of nonzeros).
    dim : int or tuple of ints, optional
        The dimensions flattened into the vector; None: all.
    keepdim : bool, optional
    dtype : dtype, optional
        Compute in this dtype.

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgVectorNormBackward0``; the gradient at the zero
        vector is 0 (as PyTorch).

    Raises
    ------
    RuntimeError
        For an integer ``x`` (PyTorch's message).
    """
    _ops._no_out(out, "linalg.vector_norm")
    t = _norm_dtype(_tensor_arg(x), dtype)
    if t._data.dtype.kind not in "fc":
        dt = str(t._data.dtype)
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_TYPE_NAMES.get(dt, dt)}")
    axes = _dims_tuple(dim, t._data.ndim)
    if t._data.ndim == 0:
        axes = None
    return _ops._contiguous(_call("LinalgVectorNormBackward0", _tnp.linalg.vector_norm, [t], t,
                                  axis=axes, keepdims=keepdim, ord=ord))


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The matrix ``ord``-norm of ``A`` over the two dimensions ``dim``.

    Parameters
    ----------
    A : Tensor
        At least 2-D, floating point.
    ord : {'fro', 'nuc', inf, -inf, 1, -1, 2, -2}, optional
        Frobenius (default), nuclear (sum of singular values), max/min row
        abs sum (``inf``/``-inf``), max/min column abs sum (``1``/``-1``),
        largest/smallest singular value (``2``/``-2``).
    dim : pair of ints, optional
    keepdim : bool, optional
    dtype : dtype, optional

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, an unknown ``ord`` or a ``dim`` that is
        not two distinct dimensions (PyTorch's messages).
    """
    _ops._no_out(out, "linalg.matrix_norm")
    t = _norm_dtype(_tensor_arg(A), dtype)
    if t._data.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions.")
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    axes = _dims_tuple(dim, t._data.ndim)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in (dim if isinstance(dim, (tuple, list))
                                                       else (dim,))))
    name = "LinalgVectorNormBackward0" if ord == "fro" else (
        "SumBackward1" if ord == "nuc" else "AmaxBackward0" if ord in (1, 2, math.inf)
        else "AminBackward0")
    return _ops._contiguous(_call(name, _tnp.linalg.norm, [t], t, ord=ord, axis=axes,
                                  keepdims=keepdim))


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):  # noqa: A002
    """A vector or matrix norm, as ``torch.linalg.norm`` chooses.

    Parameters
    ----------
    A : Tensor
    ord : optional
        A vector order (see :func:`vector_norm`) or a matrix order (see
        :func:`matrix_norm`).
    dim : int or pair of ints, optional
        An int: vector norms along it; a pair: matrix norms over it; None:
        the 2-norm of the flattened ``A`` when ``ord`` is None, else ``A``
        must be 1-D (vector norm) or 2-D (matrix norm).
    keepdim : bool, optional
    dtype : dtype, optional

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        With PyTorch's messages, for ``ord`` with ``dim=None`` and an input
        that is not 1-D or 2-D, or a ``dim`` of more than two dimensions.
    """
    _ops._no_out(out, "linalg.norm")
    t = _tensor_arg(A)
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(t, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(t, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. "
                           f"Got {list(dims)}")
    if ord is None:
        return vector_norm(t, 2, None, keepdim, dtype=dtype)
    nd = t._data.ndim
    if nd == 1:
        return vector_norm(t, ord, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(t, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                       f"1D or 2D. Got {nd}D.")


def cond(A, p=None, *, out=None):
    """The condition number of ``A`` in the ``p``-norm (2-norm for None).

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``; square for ``p`` other than None, 2, -2.
    p : {None, 'fro', 'nuc', inf, -inf, 1, -1, 2, -2}, optional

    Returns
    -------
    Tensor
        Real, shape ``(*,)``: ``sigma_max / sigma_min`` for 2 (None), ``sigma_min /
        sigma_max`` for -2, else ``norm(A, p) * norm(inv(A), p)``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, or a non-square ``A`` with another ``p``.
    """
    _ops._no_out(out, "linalg.cond")
    square = p not in (None, 2, -2)
    x = _matrix(A, "linalg.cond", square=square)
    if p in (None, 2, -2):
        s = svdvals(x)
        hi, lo = s[..., 0], s[..., -1]
        return _ops.div(hi, lo) if p != -2 else _ops.div(lo, hi)
    return _ops.mul(matrix_norm(x, p), matrix_norm(inv(x), p))


# --------------------------------------------------------------------------
# inverses, solves, determinants


def inv(A, *, out=None):
    """The inverse of a square matrix (or batch).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, floating point.

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgInvExBackward0``; the gradient is ``-A^-T G
        A^-T``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square or an integer ``A``.
    LinAlgError
        For a singular ``A`` (PyTorch's message, naming the zero pivot).
    """
    _ops._no_out(out, "linalg.inv")
    x = _matrix(A, "linalg.inv")
    _check_invertible(x, "linalg.inv")
    return _call("LinalgInvExBackward0", _tnp.linalg.inv, [x], x)


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: :func:`inv` that reports singularity in ``info``.

    Parameters
    ----------
    A : Tensor
    check_errors : bool, optional
        Raise as :func:`inv` for a singular ``A``.

    Returns
    -------
    torch.return_types.linalg_inv_ex
        ``inverse`` and the int32 ``info`` (shape ``(*,)``): 0, or the
        1-based index of the first zero pivot (the inverse is then not
        meaningful).
    """
    _ops._no_out(out, "linalg.inv_ex")
    x = _matrix(A, "linalg.inv")
    d = _concrete(x)
    batch = x._data.shape[:-2]
    info = np.zeros(batch, np.int32)
    if d is not None and d.size:
        flat = d.reshape((-1,) + d.shape[-2:])
        info = np.array([_singular_index(m) for m in flat], np.int32).reshape(batch)
    if info.any():
        if check_errors:
            _check_invertible(x, "linalg.inv_ex")
        inverse = Tensor._wrap(np.full(x._data.shape, np.nan, x._data.dtype))
    else:
        inverse = _call("LinalgInvExBackward0", _tnp.linalg.inv, [x], x)
    return _return_type("linalg_inv_ex", ["inverse", "info"])(inverse, Tensor._wrap(info))


def _is_vector_rhs(a_shape, b_shape):
    """PyTorch's rule: ``B`` is a (batch of) vector(s) if 1-D or shaped ``A.shape[:-1]``."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1
                                 and tuple(b_shape) == tuple(a_shape[:-1]))


def _broadcast_batch(a, b):
    sa, sb = a._data.shape, b._data.shape
    try:
        return np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({sa[-3]}) must match the size of tensor b ({sb[-3]}) at "
            "non-singleton dimension 0") from None


def _solve(a, b, vector, left):
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return ops.matrix_transpose(_tnp.linalg.solve(ops.matrix_transpose(a),
                                                      ops.matrix_transpose(b)))
    if vector:
        x = _tnp.linalg.solve(a, ops.reshape(b, tuple(b.shape) + (1,)))
        return ops.reshape(x, tuple(x.shape[:-1]))
    return _tnp.linalg.solve(a, b)


def solve(A, B, *, left=True, out=None):
    """The solution ``X`` of ``A X = B`` (``X A = B`` with ``left=False``).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``, invertible.
    B : Tensor
        ``(*, n, k)``, or a (batch of) vector(s): 1-D, or shaped
        ``A.shape[:-1]`` (PyTorch's rule); batch dimensions broadcast.
    left : bool, optional

    Returns
    -------
    Tensor
        Shaped like the broadcast ``B``; ``grad_fn``
        ``LinalgSolveExBackward0``.

    Raises
    ------
    RuntimeError
        For a non-square ``A`` or incompatible shapes (PyTorch's message).
    LinAlgError
        For a singular ``A``.
    """
    _ops._no_out(out, "linalg.solve")
    a = _matrix(A, "linalg.solve")
    b = _tensor_arg(B)
    n = a._data.shape[-1]
    vector = left and _is_vector_rhs(a._data.shape, b._data.shape)
    bs = b._data.shape
    rows = (bs[-1] if vector else bs[-2] if len(bs) > 1 else 1) if left else bs[-1]
    if (not vector and len(bs) < 2) or rows != n:
        shape_b = f"{bs[-1]}x1" if vector or len(bs) < 2 else f"{bs[-2]}x{bs[-1]}"
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {shape_b})")
    _check_invertible(a, "torch.linalg.solve")
    if b._data.dtype != a._data.dtype:
        dt = np.result_type(a._data.dtype, b._data.dtype)
        a, b = a.to(str(dt)), b.to(str(dt))
    if not vector:
        batch = _broadcast_batch(a, b)
        if a._data.shape[:-2] != batch:
            a = _ops.expand(a, *batch, n, n)
        if b._data.shape[:-2] != batch:
            b = _ops.expand(b, *batch, *b._data.shape[-2:])
    elif b._data.ndim > 1 or a._data.ndim > 2:
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-1])
        if a._data.shape[:-2] != batch:
            a = _ops.expand(a, *batch, n, n)
        if b._data.shape[:-1] != batch:
            b = _ops.expand(b, *batch, n)
    return _call("LinalgSolveExBackward0", _solve, [a, b], a, b, vector, left)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution ``X`` of ``T X = B`` (``X T = B`` with ``left=False``), ``T`` in ``A``.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``; only the upper (``upper=True``) or lower triangle is
        read (and not its diagonal with ``unitriangular``).
    B : Tensor
        ``(*, n, k)`` (``(*, k, n)`` with ``left=False``), at least 2-D.
    upper : bool
        Keyword-only and required, as in PyTorch.
    left : bool, optional
    unitriangular : bool, optional
        Take the diagonal as ones.

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgSolveTriangularBackward0``; the gradient of ``A``
        is zero outside the triangle read.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions of ``A`` or ``B``, or a non-square ``A``.
    """
    _ops._no_out(out, "linalg.solve_triangular")
    a = _matrix(A, "linalg.solve_triangular")
    b = _matrix(B, "linalg.solve_triangular", square=False, arg="B")
    n = a._data.shape[-1]
    k = b._data.shape[-2] if left else b._data.shape[-1]
    if k != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{b._data.shape[-2]}x{b._data.shape[-1]})")

    def fn(a, b):
        if left:
            return _tsl.solve_triangular(a, b, lower=not upper, unit_diagonal=unitriangular)
        # X T = B  <=>  T^T X^T = B^T
        xt = _tsl.solve_triangular(a, ops.matrix_transpose(b), trans=1, lower=not upper,
                                   unit_diagonal=unitriangular)
        return ops.matrix_transpose(xt)

    return _call("LinalgSolveTriangularBackward0", fn, [a, b], a, b)


def det(A, *, out=None):
    """The determinant of a square matrix (or batch).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``.

    Returns
    -------
    Tensor
        Shape ``(*,)``; ``grad_fn`` ``LinalgDetBackward0`` (gradient
        ``det(A) A^-T``, Jacobi's formula; at an exactly singular ``A``
        tracegrad's formula raises, where PyTorch returns the adjugate).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square or an integer ``A``.
    """
    _ops._no_out(out, "linalg.det")
    x = _matrix(A, "linalg.det")
    return _call("LinalgDetBackward0", _tnp.linalg.det, [x], x)


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``.

    Returns
    -------
    torch.return_types.linalg_slogdet
        ``sign`` (no gradient) and ``logabsdet`` (``grad_fn``
        ``LinalgSlogdetBackward0``, gradient ``A^-T``); a singular ``A``
        gives ``(0, -inf)``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square or an integer ``A``.
    """
    _ops._no_out(out, "linalg.slogdet")
    x = _matrix(A, "linalg.slogdet")
    sign, logabs = _call("LinalgSlogdetBackward0", lambda a: tuple(_tnp.linalg.slogdet(a)),
                         [x], x)
    sign = Tensor._wrap(sign._data) if isinstance(sign._data, np.ndarray) else sign
    return _return_type("linalg_slogdet", ["sign", "logabsdet"])(sign, logabs)


# --------------------------------------------------------------------------
# decompositions


def _not_pd_order(d):
    """1-based order of the first leading minor that is not positive-definite (0: none)."""
    flat = d.reshape((-1,) + d.shape[-2:])
    for mat in flat:
        for k in range(1, mat.shape[-1] + 1):
            try:
                np.linalg.cholesky(mat[:k, :k])
            except np.linalg.LinAlgError:
                return k
    return 0


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor of a symmetric positive-definite matrix (or batch).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``; only its lower triangle is read, as PyTorch.
    upper : bool, optional
        Return ``U = L^T`` (``A = U^T U``) instead of ``L`` (``A = L L^T``).

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgCholeskyExBackward0``; the gradient is symmetric
        (the derivative along symmetric perturbations, as PyTorch).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square or an integer ``A``.
    LinAlgError
        If ``A`` is not positive-definite (PyTorch's message, with the order
        of the failing leading minor).
    """
    _ops._no_out(out, "linalg.cholesky")
    x = _matrix(A, "linalg.cholesky")
    d = _concrete(x)
    if d is not None and d.size:
        low = np.tril(d)
        k = _not_pd_order(low + np.swapaxes(np.tril(d, -1), -1, -2).conj())
        if k:
            raise LinAlgError(
                "linalg.cholesky: The factorization could not be completed because the input "
                f"is not positive-definite (the leading minor of order {k} is not "
                "positive-definite).")

    def fn(a):
        low = _tnp.linalg.cholesky(a)
        return ops.matrix_transpose(low) if upper else low

    return _call("LinalgCholeskyExBackward0", fn, [x], x)


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix (or batch).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``; only the ``UPLO`` triangle is read.
    UPLO : {'L', 'U'}, optional

    Returns
    -------
    torch.return_types.linalg_eigh
        ``(eigenvalues, eigenvectors)``, ``grad_fn`` ``LinalgEighBackward0``.
        Eigenvectors are determined up to sign (LAPACK's choice, the same
        as PyTorch's on CPU but not guaranteed); their gradients need
        distinct eigenvalues.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square ``A`` or a bad ``UPLO``.
    """
    _ops._no_out(out, "linalg.eigh")
    x = _matrix(A, "linalg.eigh")
    _uplo(UPLO)
    w, v = _call("LinalgEighBackward0", lambda a: tuple(_tnp.linalg.eigh(a, UPLO=UPLO)), [x], x)
    return _return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])(w, v)


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of a symmetric matrix (or batch); see :func:`eigh`.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``; only the ``UPLO`` triangle is read.
    UPLO : {'L', 'U'}, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgEighBackward0``; the gradient ``V diag(G) V^T``
        stays finite at repeated eigenvalues.
    """
    _ops._no_out(out, "linalg.eigvalsh")
    x = _matrix(A, "linalg.eigh")
    _uplo(UPLO)
    return _call("LinalgEighBackward0", _tnp.linalg.eigvalsh, [x], x, UPLO=UPLO)


def _complex_grad(x, name):
    if _needs_grad(x):
        raise NotImplementedError(
            f"{name}: the result is complex, and complex tensors cannot require grad in "
            "tracegrad.torch (see the README's known differences); detach the input")


def eig(A, *, out=None):
    """Eigenvalues and eigenvectors of a general square matrix (or batch), complex.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``.

    Returns
    -------
    torch.return_types.linalg_eig
        ``(eigenvalues, eigenvectors)``, complex (complex64 for float32
        input, complex128 for float64); eigenvectors have unit norm, their
        phases are LAPACK's.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or a non-square ``A``.
    NotImplementedError
        If ``A`` requires grad (a known difference: PyTorch differentiates
        complex results).
    """
    _ops._no_out(out, "linalg.eig")
    x = _matrix(A, "linalg.eig")
    _complex_grad(x, "linalg.eig")
    w, v = _tnp.linalg.eig(x._data)
    return _return_type("linalg_eig", ["eigenvalues", "eigenvectors"])(
        Tensor._wrap(np.asarray(w)), Tensor._wrap(np.asarray(v)))


def eigvals(A, *, out=None):
    """The (complex) eigenvalues of a square matrix (or batch); see :func:`eig`.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``.

    Returns
    -------
    Tensor
        Complex, shape ``(*, n)``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or a non-square ``A``.
    NotImplementedError
        If ``A`` requires grad (complex tensors cannot require grad here).
    """
    _ops._no_out(out, "linalg.eigvals")
    x = _matrix(A, "linalg.eigvals")
    _complex_grad(x, "linalg.eigvals")
    return Tensor._wrap(np.asarray(_tnp.linalg.eigvals(x._data)))


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``A = U diag(S) Vh``: the singular value decomposition (of a batch too).

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    full_matrices : bool, optional
        Square ``U`` ``(m, m)`` and ``Vh`` ``(n, n)`` (default), or the
        reduced ``(m, k)``, ``(k, n)`` with ``k = min(m, n)``.
    driver : None
        CUDA only in PyTorch; must be None here.

    Returns
    -------
    torch.return_types.linalg_svd
        ``(U, S, Vh)``, ``S`` descending; ``grad_fn`` ``LinalgSvdBackward0``.
        Singular vectors are determined up to sign; their gradients need
        distinct nonzero singular values and, for non-square ``A``,
        ``full_matrices=False`` (PyTorch raises for ``full_matrices=True``
        too).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or an integer ``A``.
    """
    _ops._no_out(out, "linalg.svd")
    x = _matrix(A, "linalg.svd", square=False)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    u, s, vh = _call("LinalgSvdBackward0",
                     lambda a: tuple(_tnp.linalg.svd(a, full_matrices=full_matrices)), [x], x)
    return _return_type("linalg_svd", ["U", "S", "Vh"])(u, s, vh)


def svdvals(A, *, driver=None, out=None):
    """The singular values of ``A`` (descending); see :func:`svd`.

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    driver : None
        CUDA only in PyTorch; ignored.

    Returns
    -------
    Tensor
        ``(*, min(m, n))``, ``grad_fn`` ``LinalgSvdBackward0``.
    """
    _ops._no_out(out, "linalg.svdvals")
    x = _matrix(A, "linalg.svd", square=False)
    return _call("LinalgSvdBackward0", _tnp.linalg.svdvals, [x], x)


def qr(A, mode="reduced", *, out=None):
    """``A = Q R``, ``Q`` with orthonormal columns and ``R`` upper triangular.

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    mode : {'reduced', 'complete', 'r'}, optional
        ``'reduced'``: ``Q`` ``(m, k)``, ``R`` ``(k, n)`` with ``k = min(m,
        n)``; ``'complete'``: ``Q`` ``(m, m)``, ``R`` ``(m, n)``; ``'r'``:
        only ``R`` (``Q`` is an empty tensor, and there is no derivative in
        PyTorch; here ``R``'s is kept).

    Returns
    -------
    torch.return_types.linalg_qr
        ``(Q, R)``; ``grad_fn`` ``LinalgQrBackward0``.  The signs are
        LAPACK's (Householder; the same as PyTorch's on CPU).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or an unknown ``mode`` (PyTorch's
        message).
    """
    _ops._no_out(out, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    x = _matrix(A, "linalg.qr", square=False)
    rt = _return_type("linalg_qr", ["Q", "R"])
    if mode == "r":
        r = _call("LinalgQrBackward0", lambda a: _tnp.linalg.qr(a, mode="r"), [x], x)
        return rt(Tensor._wrap(np.zeros((0,), x._data.dtype)), r)
    q, r = _call("LinalgQrBackward0", lambda a: tuple(_tnp.linalg.qr(a, mode=mode)), [x], x)
    return rt(q, r)


def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)``: the LU factorization with partial pivoting, packed as LAPACK's.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)`` (square only: a difference from PyTorch, which also
        factors rectangular matrices).
    pivot : bool, optional
        Must be True on CPU (PyTorch's error otherwise).

    Returns
    -------
    torch.return_types.linalg_lu_factor
        ``LU`` (``U`` in the upper triangle, ``L``'s strict lower triangle
        below it; ``grad_fn`` ``LinalgLuFactorExBackward0``) and the int32,
        1-based ``pivots`` (row ``i`` was swapped with row ``pivots[i]``).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, ``pivot=False``, or a non-square ``A``.
    """
    _ops._no_out(out, "linalg.lu_factor")
    x = _matrix(A, "linalg.lu_factor", square=False)
    _lu_checks(x, pivot, "linalg.lu_factor")
    lu_, piv = _call("LinalgLuFactorExBackward0", lambda a: tuple(_tsl.lu_factor(a)), [x], x)
    piv = _tensor_arg(piv)  # LAPACK's 0-based interchanges, as PyTorch's 1-based ones
    piv = Tensor._wrap((piv._data + 1).astype(np.int32)) if _concrete(piv) is not None \
        else Tensor._wrap(ops.add(piv._data, np.int32(1)))
    return _return_type("linalg_lu_factor", ["LU", "pivots"])(lu_, piv)


def _lu_checks(x, pivot, name):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    m, n = x._data.shape[-2:]
    if m != n:
        raise NotImplementedError(f"{name}: tracegrad factors square matrices only, got "
                                  f"{m} by {n} matrices")


def lu(A, *, pivot=True, out=None):
    """``A = P L U``: the LU decomposition with partial pivoting.

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)`` (square only, a difference from PyTorch).
    pivot : bool, optional
        Must be True on CPU.

    Returns
    -------
    torch.return_types.linalg_lu
        ``P`` (a permutation matrix of ``A``'s dtype), ``L`` (unit lower
        triangular) and ``U`` (upper triangular); ``grad_fn``
        ``LinalgLuBackward0``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or ``pivot=False``.
    """
    _ops._no_out(out, "linalg.lu")
    x = _matrix(A, "linalg.lu", square=False)
    _lu_checks(x, pivot, "linalg.lu")
    m = x._data.shape[-1]

    def fn(a):
        packed, _, perm = ops.lu(a)  # P^T A = L U with (P^T A)[i] = A[perm[i]]
        p_t = ops.convert_element_type(
            _tnp.equal(_tnp.expand_dims(perm, -1), np.arange(m, dtype=np.int32)), a.dtype)
        low = ops.add(_tnp.tril(packed, -1), np.eye(m, dtype=a.dtype))
        return ops.matrix_transpose(p_t), low, _tnp.triu(packed)

    p, lo, up = _call("LinalgLuBackward0", fn, [x], x)
    if isinstance(p, Tensor) and _concrete(p) is not None:
        p = Tensor._wrap(p._data)  # piecewise constant: no gradient
    return _return_type("linalg_lu", ["P", "L", "U"])(p, lo, up)


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` and, per ``driver``, its by-products.

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    B : Tensor
        ``(*, m, k)``, or ``(*, m)`` (one dimension fewer than ``A``: a
        batch of vectors); batch dimensions broadcast.
    rcond : float, optional
        Singular values at most ``rcond * max(s)`` count as zero; default
        the machine epsilon of ``A``'s dtype times ``max(m, n)``.
    driver : {None, 'gelsy', 'gelsd', 'gelss', 'gels'}, optional
        PyTorch's CPU drivers; the default is ``'gelsy'``.

    Returns
    -------
    torch.return_types.linalg_lstsq
        ``solution`` (``(*, n, k)``; ``grad_fn`` ``LinalgLstsqBackward0``,
        the minimum-norm solution ``pinv(A) B`` whatever the driver),
        ``residuals`` (the squared residual norms ``(*, k)``, for ``'gelsd'``,
        ``'gelss'`` and ``'gels'`` when ``m > n`` and every matrix has full
        rank, else empty), ``rank`` (int64 ``(*,)``; empty for ``'gels'``)
        and ``singular_values`` (``(*, min(m, n))`` for ``'gelsd'`` and
        ``'gelss'``, else empty), as PyTorch fills them on CPU.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, an unknown driver, or mismatched rows
        (PyTorch's messages).
    """
    a = _matrix(A, "linalg.lstsq", square=False)
    b = _tensor_arg(B)
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           f"gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if not (a._data.ndim >= b._data.ndim and a._data.ndim - b._data.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = b._data.ndim == a._data.ndim - 1
    m, n = a._data.shape[-2:]
    rows = b._data.shape[-1] if vector else b._data.shape[-2]
    if rows != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size("
                           f"{-1 if vector else -2})")
    dt = a._data.dtype
    r = (float(np.finfo(dt).eps) * max(m, n)) if rcond is None else float(rcond)

    def fn(a, b):
        bb = ops.reshape(b, tuple(b.shape) + (1,)) if vector else b
        x = _tnp.matmul(_tnp.linalg.pinv(a, rtol=r), bb)
        return ops.reshape(x, tuple(x.shape[:-1])) if vector else x

    solution = _call("LinalgLstsqBackward0", fn, [a, b], a, b)
    empty = Tensor._wrap(np.zeros((0,), dt))
    batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:(-1 if vector else -2)])
    s = svdvals(a)
    sd = _concrete(s)
    rank = None
    if sd is not None:
        tol = r * (sd.max(axis=-1, keepdims=True) if sd.size else 0)
        rank = np.broadcast_to(np.count_nonzero(sd > tol, axis=-1), batch).astype(np.int64)
    residuals = empty
    if driver != "gelsy" and m > n and rank is not None and (rank == n).all():
        bb = b if not vector else _ops.unsqueeze(b, -1)
        xx = solution if not vector else _ops.unsqueeze(solution, -1)
        res = _ops.sub(_ops.matmul(a, xx), bb)
        residuals = _ops.sum(_ops.mul(res, res), -2)
        if vector:
            residuals = _ops.squeeze(residuals, -1)
    rank_t = Tensor._wrap(np.zeros((0,), np.int64)) if driver == "gels" or rank is None \
        else Tensor._wrap(rank)
    sv = s if driver in ("gelsd", "gelss") else empty
    return _return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])(
        solution, residuals, rank_t, sv)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse ``V diag(1/s) U^H`` (small singular values dropped).

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    atol, rtol : float, optional
        Singular values at most ``max(atol, rtol * max(s))`` count as zero.
        With neither given, ``rtol`` is ``eps * max(m, n)``; with only
        ``atol``, ``rtol`` is 0 (PyTorch's rules).
    hermitian : bool, optional
        Accepted; the general algorithm is used (the same result for a
        symmetric ``A``).

    Returns
    -------
    Tensor
        ``(*, n, m)``; ``grad_fn`` ``LinalgPinvBackward0``.  The derivative
        holds where the rank is locally constant.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions.
    """
    _ops._no_out(out, "linalg.pinv")
    x = _matrix(A, "linalg.pinv", square=False)
    m, n = x._data.shape[-2:]
    if atol is None:
        r = float(np.finfo(x._data.dtype).eps) * max(m, n) if rtol is None else float(rtol)
        return _call("LinalgPinvBackward0", _tnp.linalg.pinv, [x], x, rtol=r)
    r = 0.0 if rtol is None else float(rtol)

    def fn(a):
        u, s, vh = _tnp.linalg.svd(a, full_matrices=False)
        cut = _tnp.maximum(ops.mul(_tnp.max(s, axis=-1, keepdims=True), r), float(atol))
        keep = ops.gt(s, cut)
        sinv = _tnp.where(keep, ops.div(1.0, _tnp.where(keep, s, 1.0)), 0.0)
        return _tnp.matmul(ops.matrix_transpose(vh) * sinv[..., None, :],
                           ops.matrix_transpose(u))

    return _call("LinalgPinvBackward0", fn, [x], x)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The numerical rank: the number of singular values above ``max(atol, rtol * max(s))``.

    Parameters
    ----------
    A : Tensor
        ``(*, m, n)``.
    atol, rtol : float, optional
        As :func:`pinv`.
    hermitian : bool, optional
        Use the eigenvalues' absolute values (the same values for a
        symmetric ``A``).

    Returns
    -------
    Tensor
        int64, shape ``(*,)`` (no gradient).
    """
    _ops._no_out(out, "linalg.matrix_rank")
    x = _matrix(A, "linalg.matrix_rank", square=False)
    d = np.asarray(x.detach()._data)
    m, n = d.shape[-2:]
    if atol is None and rtol is None:
        rtol = float(np.finfo(d.dtype).eps) * max(m, n)
    s = np.abs(np.linalg.eigvalsh(d)) if hermitian else np.linalg.svd(d, compute_uv=False)
    if s.shape[-1] == 0:
        return Tensor._wrap(np.zeros(d.shape[:-2], np.int64))
    tol = np.maximum(0.0 if atol is None else atol,
                     (0.0 if rtol is None else rtol) * s.max(axis=-1))
    return Tensor._wrap(np.count_nonzero(s > tol[..., None], axis=-1).astype(np.int64))


def matrix_power(A, n, *, out=None):
    """``A`` multiplied by itself ``n`` times (``inv(A)`` powers for negative ``n``, ``I`` for 0).

    Parameters
    ----------
    A : Tensor
        ``(*, m, m)``.
    n : int

    Returns
    -------
    Tensor
        ``grad_fn`` ``MmBackward0`` for ``n >= 2`` (the products),
        ``LinalgInvExBackward0`` for ``n = -1``.

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions or a non-square ``A``.
    """
    _ops._no_out(out, "linalg.matrix_power")
    x = _matrix(A, "linalg.matrix_power", floating=False)
    n = int(n)
    if n < 0:
        x = inv(x)
        n = -n
    name = "LinalgInvExBackward0" if n == 1 else (
        "MmBackward0" if x._data.ndim == 2 else "BmmBackward0")
    if n == 0:
        eye = np.broadcast_to(np.eye(x._data.shape[-1], dtype=x._data.dtype), x._data.shape)
        return Tensor._wrap(np.array(eye))
    if n == 1:
        return _ops.clone(x) if x is A else x
    return _call(name, _tnp.linalg.matrix_power, [x], x, n)


def multi_dot(tensors, *, out=None):
    """The product of a list of matrices, in the cheapest order (1-D first/last: vectors).

    Parameters
    ----------
    tensors : sequence of Tensor
        At least two; the first may be 1-D (a row vector) and the last 1-D
        (a column vector), the others 2-D.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        For fewer than two tensors or wrong ranks (PyTorch's messages).
    """
    _ops._no_out(out, "linalg.multi_dot")
    ts = [_tensor_arg(t) for t in tensors]
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        nd = t._data.ndim
        if (i in (0, len(ts) - 1) and nd not in (1, 2)) or (0 < i < len(ts) - 1 and nd != 2):
            where = ("first" if i == 0 else "last") if i in (0, len(ts) - 1) else None
            if where:
                raise RuntimeError(f"multi_dot(): the {where} tensor must be 1D or 2D but got "
                                   f"{nd}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {nd}D")
    return _call("MmBackward0", lambda *a: _tnp.linalg.multi_dot(list(a)), ts, *ts)


def cross(input, other, *, dim=-1, out=None):  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (operands broadcast).

    Parameters
    ----------
    input, other : Tensor
        Size 3 along ``dim``.
    dim : int, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgCrossBackward0``.

    Raises
    ------
    RuntimeError
        If either has not length 3 along ``dim`` (PyTorch's message).
    """
    _ops._no_out(out, "linalg.cross")
    a, b = _tensor_arg(input), _tensor_arg(other)
    na, nb = a._data.ndim, b._data.ndim
    la = a._data.shape[dim] if na else 0
    lb = b._data.shape[dim] if nb else 0
    if la != 3 or lb != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {la} "
                           f"and {lb}")
    nd = builtins.max(na, nb)
    d = dim % nd

    def fn(a, b):
        shape = np.broadcast_shapes(a.shape, b.shape)
        return _tnp.linalg.cross(_tnp.broadcast_to(a, shape), _tnp.broadcast_to(b, shape),
                                 axis=d)

    return _call("LinalgCrossBackward0", fn, [a, b], a, b)


def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y, dim)``: the dot product along ``dim`` (operands broadcast).

    Parameters
    ----------
    x, y : Tensor
    dim : int, optional

    Returns
    -------
    Tensor
        ``grad_fn`` ``SumBackward1``.
    """
    _ops._no_out(out, "linalg.vecdot")
    a, b = _tensor_arg(x), _tensor_arg(y)
    return _ops.sum(_ops.mul(a, b), dim)


def matrix_exp(A):
    """The matrix exponential ``sum_k A**k / k!`` of a square matrix (or batch).

    Parameters
    ----------
    A : Tensor
        ``(*, n, n)``.

    Returns
    -------
    Tensor
        ``grad_fn`` ``LinalgMatrixExpBackward0`` (the gradient is the
        Fréchet derivative at ``A^T``, Al-Mohy and Higham 2009).

    Raises
    ------
    RuntimeError
        For fewer than 2 dimensions, a non-square or an integer ``A``.
    """
    x = _matrix(A, "linalg.matrix_exp")
    return _call("LinalgMatrixExpBackward0", _tsl.expm, [x], x)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset`` diagonal over ``dim1``, ``dim2`` (default: of the last two), as the last dim.

    Parameters
    ----------
    A : Tensor
    offset : int, optional
        0: the main diagonal; positive: above it; negative: below.
    dim1, dim2 : int, optional

    Returns
    -------
    Tensor
        A view, ``grad_fn`` ``DiagonalBackward0``.
    """
    return _ops.diagonal(A, offset, dim1, dim2)
