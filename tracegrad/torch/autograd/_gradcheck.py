"""``torch.autograd.gradcheck`` and ``gradgradcheck``: analytical gradients
(the recorded graph's backward) against central finite differences."""
import warnings

import numpy as np

from .._autograd import grad as _grad
from .._tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when a Jacobian does not match."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs):
    out = []
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad:
            if t.dtype.is_floating_point and t._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{i} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not "
                    "of double precision floating point or complex. ", UserWarning, stacklevel=3)
            out.append(i)
    return out


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)
            and o._data.dtype.kind == "f"]


def _numerical(func, inputs, i, k_out, eps):
    """d outputs[k_out] / d inputs[i] by central differences, (out.size, in.size)."""
    x = inputs[i]
    flat = x._data.reshape(-1)
    out0 = _outputs(func, inputs)[k_out]
    jac = np.zeros((out0._data.size, flat.size))
    # grad mode stays on: gradgradcheck's function itself runs a backward pass
    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + eps
        plus = np.array(_outputs(func, inputs)[k_out]._data, dtype=np.float64).reshape(-1)
        flat[j] = orig - eps
        minus = np.array(_outputs(func, inputs)[k_out]._data, dtype=np.float64).reshape(-1)
        flat[j] = orig
        jac[:, j] = (plus - minus) / (2 * eps)
    return jac


def _analytical(func, inputs, i, k_out):
    out = _outputs(func, inputs)[k_out]
    n = out._data.size
    jac = np.zeros((n, inputs[i]._data.size))
    for r in range(n):
        e = np.zeros(n, out._data.dtype)
        e[r] = 1
        g, = _grad(out, inputs[i], Tensor._wrap(e.reshape(out._data.shape)),
                   retain_graph=True, allow_unused=True)
        if g is not None:
            jac[r] = np.asarray(g._data, dtype=np.float64).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Check ``func``'s gradients against central finite differences.

    Parameters
    ----------
    func : callable
        Takes ``inputs`` (tensors); returns a tensor or a tuple of tensors.
    inputs : Tensor or tuple of Tensors
        Those with ``requires_grad`` are checked (float64 recommended).
    eps : float
        Finite-difference step.
    atol, rtol : float
        Tolerances: every analytical Jacobian entry ``a`` and numerical
        ``n`` must satisfy ``|a - n| <= atol + rtol * |n|``.
    raise_exception : bool
        Raise :class:`GradcheckError` on a mismatch (else return False).

    Returns
    -------
    bool
        True if every Jacobian matches.

    Raises
    ------
    GradcheckError
        (a RuntimeError) naming the output and input whose Jacobians differ,
        with both Jacobians, when ``raise_exception``.

    Notes
    -----
    Each Jacobian row is one backward pass (``autograd.grad`` of the output
    with a one-hot ``grad_outputs``); the numerical Jacobian perturbs one
    input element at a time by ``+-eps`` (PyTorch's slow mode; the other
    keyword arguments of PyTorch are accepted and ignored).
    """
    inputs = _as_tuple(inputs)
    for k in range(len(_outputs(func, inputs))):
        for i in _diff_inputs(inputs):
            num = _numerical(func, inputs, i, k, eps)
            ana = _analytical(func, inputs, i, k)
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{Tensor._wrap(num)}\nanalytical:{Tensor._wrap(ana)}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    """Check second derivatives: :func:`gradcheck` of the map
    ``(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs,
    grad_outputs, create_graph=True)``.

    Parameters
    ----------
    func, inputs, eps, atol, rtol, raise_exception
        As in :func:`gradcheck`.
    grad_outputs : tuple of Tensors, optional
        Cotangents of ``func``'s outputs (random, requiring grad, if None).

    Returns
    -------
    bool

    Raises
    ------
    GradcheckError
        As :func:`gradcheck`.
    """
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype))
            .requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    diff = _diff_inputs(inputs)

    def first(*args):
        xs, gos = args[:n], args[n:]
        res = _grad(_outputs(func, xs), [xs[i] for i in diff], gos, create_graph=True,
                    allow_unused=True)
        return tuple(r for r in res if r is not None)

    return gradcheck(first, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
