"""``torch.special``: special functions of tensors, with PyTorch's names.

Each function forwards to :mod:`tracegrad.scipy.special` (or
:mod:`tracegrad.numpy`) on the tensor layer, so derivatives are those of
tracegrad's primitives; results are recorded under PyTorch's ``grad_fn``
names.  Integer and bool inputs are computed in the default float dtype, as
PyTorch.
"""
import numbers

import numpy as np

from .. import numpy as tnp
from ..primitives import elementwise as _pel
from ..scipy import special as _sp
from . import _dtype, _ops
from ._ops import _composite, _contiguous, _float_input
from ._tensor import Tensor

__all__ = [
    "erf", "erfc", "erfinv", "erfcx", "expit", "logit", "xlogy", "xlog1py", "gammaln",
    "digamma", "psi", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri",
    "log_ndtr", "sinc", "entr", "logsumexp", "softmax", "log_softmax", "round", "exp2",
    "expm1", "log1p", "zeta", "gammainc", "gammaincc", "bessel_j0", "bessel_j1",
]


def _no_out(out, name):
    if out is not None:
        raise TypeError(f"special.{name}(..., out=...) is not supported by tracegrad.torch; "
                        "use the return value")


def _unary(fn, grad_name, pt_name):
    def f(input, *, out=None):
        _no_out(out, pt_name)
        x = _float_input(input)
        return _contiguous(_composite(grad_name, fn, [x], x))

    f.__name__ = pt_name
    f.__doc__ = (f"``torch.special.{pt_name}``: elementwise, from "
                 f"``tracegrad.scipy.special`` (grad_fn ``{grad_name}``).\n\n"
                 "    Parameters\n    ----------\n    input : Tensor\n        Any shape; "
                 "integers are computed in the default float dtype.\n\n"
                 "    Returns\n    -------\n    Tensor\n        ``input``'s shape and "
                 "float dtype.\n    ")
    return f


erf = _unary(_sp.erf, "ErfBackward0", "erf")
erfc = _unary(_sp.erfc, "ErfcBackward0", "erfc")
erfinv = _unary(_sp.erfinv, "ErfinvBackward0", "erfinv")
erfcx = _unary(_sp.erfcx, "SpecialErfcxBackward0", "erfcx")
expit = _unary(_sp.expit, "SigmoidBackward0", "expit")
gammaln = _unary(_sp.gammaln, "LgammaBackward0", "gammaln")
digamma = _unary(_sp.digamma, "DigammaBackward0", "digamma")
psi = _unary(_sp.digamma, "DigammaBackward0", "psi")
i0 = _unary(_sp.i0, "I0Backward0", "i0")
i0e = _unary(_sp.i0e, "SpecialI0EBackward0", "i0e")
i1 = _unary(_sp.i1, "SpecialI1Backward0", "i1")
i1e = _unary(_sp.i1e, "SpecialI1EBackward0", "i1e")
ndtr = _unary(_sp.ndtr, "MulBackward1", "ndtr")
ndtri = _unary(_sp.ndtri, "SpecialNdtriBackward0", "ndtri")
log_ndtr = _unary(_sp.log_ndtr, "SpecialLogNdtrBackward0", "log_ndtr")
sinc = _unary(_sp.sinc, "SincBackward0", "sinc")
entr = _unary(_sp.entr, "SpecialEntrBackward0", "entr")
exp2 = _unary(tnp.exp2, "Exp2Backward0", "exp2")
expm1 = _unary(tnp.expm1, "Expm1Backward0", "expm1")
log1p = _unary(tnp.log1p, "Log1PBackward0", "log1p")


def _no_grad_unary(fn, pt_name):
    def f(input, *, out=None):
        _no_out(out, pt_name)
        x = _float_input(input)
        return Tensor._wrap(np.asarray(fn(x._data), x._data.dtype))

    f.__name__ = pt_name
    f.__doc__ = (f"``torch.special.{pt_name}``: elementwise, from ``tracegrad.scipy.special`` "
                 "(not differentiable, as PyTorch's: the result never requires grad).\n\n"
                 "    Parameters\n    ----------\n    input : Tensor\n\n"
                 "    Returns\n    -------\n    Tensor\n        ``input``'s shape and "
                 "float dtype.\n    ")
    return f


bessel_j0 = _no_grad_unary(_sp.j0, "bessel_j0")
bessel_j1 = _no_grad_unary(_sp.j1, "bessel_j1")


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is
    given (the gradient is then 0 outside the interval, as PyTorch).

    Parameters
    ----------
    input : Tensor
    eps : float, optional

    Returns
    -------
    Tensor
        grad_fn ``LogitBackward0``.
    """
    _no_out(out, "logit")
    x = _float_input(input)
    if eps is None:
        return _contiguous(_composite("LogitBackward0", _sp.logit, [x], x))
    lo, hi = float(eps), 1.0 - float(eps)
    return _contiguous(_composite("LogitBackward0", lambda: _sp.logit(tnp.clip(x, lo, hi)), [x]))


def _binary(fn, names, pt_name):
    """A binary special function; ``names``: grad_fn names for (tensor, tensor),
    (number, tensor) and (tensor, number)."""

    def f(input, other, *, out=None):
        _no_out(out, pt_name)
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"special.{pt_name}(): expected a tensor argument")
        dt = _ops._result_np_dtype(input, other)
        if dt.kind in "biu":
            dt = _dtype.get_default_dtype().dtype
        a = _ops._cast(input, dt) if isinstance(input, Tensor) else np.asarray(input, dt)
        b = _ops._cast(other, dt) if isinstance(other, Tensor) else np.asarray(other, dt)
        name = names[0] if isinstance(input, Tensor) and isinstance(other, Tensor) else (
            names[1] if isinstance(other, Tensor) else names[2])
        inputs = [t for t in (input, other) if isinstance(t, Tensor)]
        out_ = _composite(name, fn, inputs, a, b)
        return _contiguous(out_)

    f.__name__ = pt_name
    f.__doc__ = (f"``torch.special.{pt_name}(input, other)``: elementwise with broadcasting "
                 "and PyTorch's type promotion (either argument may be a number), from "
                 f"``tracegrad.scipy.special.{fn.__name__}`` (grad_fn ``{names[0]}``).\n\n"
                 "    Parameters\n    ----------\n    input, other : Tensor or number\n"
                 "        At least one a tensor.\n\n    Returns\n    -------\n    Tensor\n"
                 "        The broadcast shape, float dtype.\n\n    Raises\n    ------\n"
                 "    TypeError\n        If neither argument is a tensor.\n    ")
    return f


xlogy = _binary(_sp.xlogy, ("XlogyBackward0", "XlogyBackward1", "XlogyBackward2"), "xlogy")
xlog1py = _binary(_sp.xlog1py, ("SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1",
                                "SpecialXlog1PyBackward2"), "xlog1py")
zeta = _binary(_sp.zeta, ("SpecialZetaBackward0", "SpecialZetaBackward1",
                          "SpecialZetaBackward2"), "zeta")
gammainc = _binary(_sp.gammainc, ("IgammaBackward0",) * 3, "gammainc")
gammaincc = _binary(_sp.gammaincc, ("IgammacBackward0",) * 3, "gammaincc")


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function (grad_fn ``PolygammaBackward0``).

    Parameters
    ----------
    n : int
    input : Tensor

    Returns
    -------
    Tensor
        ``input``'s shape and float dtype.

    Raises
    ------
    RuntimeError
        For a negative ``n``.
    """
    _no_out(out, "polygamma")
    if not isinstance(n, numbers.Integral) or n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float_input(input)
    if n == 0:
        return _contiguous(_composite("PolygammaBackward0", _sp.digamma, [x], x))
    return _contiguous(_composite("PolygammaBackward0", lambda: _sp.polygamma(int(n), x), [x]))


def multigammaln(input, p, *, out=None):
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p-1)/4 log(pi) + sum_{j<p} gammaln(input - j/2)`` (grad_fn
    ``MvlgammaBackward0``; elements at or below ``(p - 1) / 2`` give what the
    formula gives, as PyTorch 2.13, which no longer raises).

    Parameters
    ----------
    input : Tensor
    p : int
        The dimension, at least 1.

    Returns
    -------
    Tensor
        ``input``'s shape and float dtype.

    Raises
    ------
    RuntimeError
        For ``p < 1``.
    """
    _no_out(out, "multigammaln")
    x = _float_input(input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    c = np.asarray(p * (p - 1) / 4 * np.log(np.pi), x._data.dtype)

    def fn():
        total = c
        for j in range(int(p)):
            total = tnp.add(total, _sp.gammaln(tnp.subtract(x, np.asarray(j / 2, x._data.dtype))))
        return total

    return _contiguous(_composite("MvlgammaBackward0", fn, [x]))


def logsumexp(input, dim, keepdim=False):
    """``torch.logsumexp`` (grad_fn ``LogsumexpBackward0``).

    Parameters
    ----------
    input : Tensor
    dim : int or tuple of int
    keepdim : bool, optional

    Returns
    -------
    Tensor
    """
    return _ops.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """``torch.softmax`` along ``dim`` (grad_fn ``SoftmaxBackward0``).

    Parameters
    ----------
    input : Tensor
    dim : int
    dtype : dtype, optional

    Returns
    -------
    Tensor
    """
    return _ops.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """``torch.log_softmax`` along ``dim`` (grad_fn ``LogSoftmaxBackward0``).

    Parameters
    ----------
    input : Tensor
    dim : int
    dtype : dtype, optional

    Returns
    -------
    Tensor
    """
    return _ops.log_softmax(input, dim, dtype)


def round(input, *, decimals=0, out=None):  # noqa: A001
    """``torch.special.round``: half to even at ``decimals`` places (a zero
    gradient, grad_fn ``RoundBackward1`` whatever ``decimals``, as PyTorch).

    Parameters
    ----------
    input : Tensor
    decimals : int, optional

    Returns
    -------
    Tensor
    """
    _no_out(out, "round")
    x = _ops._tensor_arg(input)
    res = _ops._apply(_pel.round_p, None, (x,), {"decimals": int(decimals)})
    return _ops._layout_of(_ops._step_function("RoundBackward1", x, res), x)
