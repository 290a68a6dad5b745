"""``tracegrad.torch.func``: PyTorch's composable function transforms.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``,
``hessian`` and ``vmap`` take functions of tensors written with
``tracegrad.torch`` operations (``torch.sin(x)``, ``x @ w``, ``x.sum()``,
``F.cross_entropy(...)``) and have ``torch.func``'s signatures and output
layouts.  They are the functional transforms of :mod:`tracegrad`
(:func:`tracegrad.grad`, :func:`tracegrad.vmap`, ...), so they compose with
each other in any order (``vmap(grad(f))`` for per-example gradients,
``jacrev(jacfwd(f))``, ``grad(grad(f))``).

How: each input tensor is lowered to its data, the transform runs on the
data, and inside it the user's function sees tensors whose data is the
transform's tracer.  A tensor operation on such a tensor binds its
primitive to the current (functional) trace instead of running NumPy, and
wraps the result in a tensor again; nothing is recorded on the PyTorch
autograd graph (as in ``torch.func``, ``.grad`` is not used).  Results come
back as tensors.

Differences from PyTorch: ``chunk_size`` is accepted and ignored (the
batch is computed at once); ``randomness`` is checked and accepted, but
random operations inside ``vmap`` draw one value for the whole batch;
tensors that require grad and are closed over by the function are
constants of the transform (not recorded on the PyTorch graph).
"""
import numpy as np

from .. import tree_util as _tu
from ..core import ArrayTracer
from ..transforms import api as _api
from ..transforms.batching import vmap as _vmap
from . import _creation
from ._tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]


# --------------------------------------------------------------------------
# tensors <-> the transforms' values


def _lower(tree):
    """Every tensor of ``tree`` replaced by its data (an array or a tracer)."""
    return _tu.tree_map(lambda x: x._data if isinstance(x, Tensor) else x, tree)


def _raise(tree):
    """Every array or tracer of ``tree`` wrapped as a tensor."""
    return _tu.tree_map(_as_tensor, tree)


def _as_tensor(x):
    if isinstance(x, (np.ndarray, np.generic, ArrayTracer)):
        return Tensor._wrap(x)
    return x


def _on_data(func, kwargs=None):
    """``func`` (of tensors) as a function of the tensors' data.

    ``kwargs`` (optional) are passed to ``func`` as given: constants of the
    transform.
    """

    def lowered(*args, **kw):
        if kwargs is not None:
            kw = kwargs
        else:
            kw = _raise(kw)
        return _lower(func(*_raise(args), **kw))

    return lowered


def _transformed(transform, func, *targs, **tkw):
    """``func`` under ``transform(func_on_data, *targs, **tkw)``, taking and
    returning tensors."""

    def wrapper(*args, **kwargs):
        out = transform(_on_data(func), *targs, **tkw)(*_lower(args), **_lower(kwargs))
        return _raise(out)

    wrapper.__wrapped__ = func
    return wrapper


# --------------------------------------------------------------------------
# the transforms


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func``, a function of tensors with a one-element output.

    Parameters
    ----------
    func : callable
        ``func(*args, **kwargs)`` returning a one-element tensor (or, with
        ``has_aux``, a pair ``(output, aux)``).
    argnums : int or tuple of int, optional
        Which positional arguments to differentiate (floating-point tensors
        or pytrees of them).
    has_aux : bool, optional

    Returns
    -------
    callable
        Same arguments as ``func``; returns the gradient (shaped like the
        argument; a tuple for a tuple ``argnums``), and with ``has_aux``
        the pair ``(gradient, aux)``.

    Raises
    ------
    TypeError
        For a non-scalar output or non-float argument (tracegrad's messages).
    """
    return _transformed(_api.grad, func, argnums=argnums, has_aux=has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    """The gradient and the value of ``func`` (see :func:`grad`).

    Returns
    -------
    callable
        Returns ``(gradient, value)``; with ``has_aux``,
        ``(gradient, (value, aux))`` (PyTorch's layout).
    """
    vg = _transformed(_api.value_and_grad, func, argnums=argnums, has_aux=has_aux)

    def wrapper(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return g, value

    wrapper.__wrapped__ = func
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``func(*primals)`` and a function computing vector-Jacobian products.

    Parameters
    ----------
    func : callable
        Returns a tensor or a pytree of tensors (with ``has_aux``, a pair
        ``(output, aux)``).
    *primals : Tensor or pytree of Tensors

    Returns
    -------
    tuple
        ``(output, vjp_fn)`` or ``(output, vjp_fn, aux)``;
        ``vjp_fn(cotangents)`` (shaped like ``output``) returns a tuple with
        one cotangent per primal.
    """
    res = _api.vjp(_on_data(func), *_lower(primals), has_aux=has_aux)
    out, pullback = res[0], res[1]

    def vjp_fn(*cotangents):
        ct = cotangents[0] if len(cotangents) == 1 else cotangents
        return _raise(tuple(pullback(_lower(ct))))

    if has_aux:
        return _raise(out), vjp_fn, _raise(res[2])
    return _raise(out), vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``func(*primals)`` and its Jacobian-vector product with ``tangents``.

    Parameters
    ----------
    func : callable
    primals, tangents : tuple
        Tensors (or pytrees), one tangent per primal, of the same shapes.
    strict : bool, optional
        Accepted (tracegrad checks the tangents' shapes and dtypes always).
    has_aux : bool, optional

    Returns
    -------
    tuple
        ``(output, jvp_out)`` or ``(output, jvp_out, aux)``.

    Raises
    ------
    RuntimeError
        If ``primals`` or ``tangents`` is not a tuple (PyTorch's message).
    """
    for what, v in (("primals", primals), ("tangents", tangents)):
        if not isinstance(v, tuple):
            raise RuntimeError(f"jvp({what}): Expected {what} to be a tuple. E.g. it should "
                               f"be valid to do jvp(func, (x,), (t,)), got {type(v).__name__}.")
    res = _api.jvp(_on_data(func), _lower(primals), _lower(tangents), has_aux=has_aux)
    return _raise(tuple(res))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode (one VJP per output element, vmapped).

    Parameters
    ----------
    func : callable
    argnums : int or tuple of int, optional
    has_aux : bool, optional
    chunk_size : int, optional
        Accepted; the whole batch of VJPs is computed at once.

    Returns
    -------
    callable
        Returns the Jacobian, of shape ``output.shape + input.shape`` (pytrees:
        nested per output leaf, then per argument), and with ``has_aux`` the
        pair ``(jacobian, aux)``.
    """
    _check_chunk_size(chunk_size)
    return _transformed(_api.jacrev, func, argnums=argnums, has_aux=has_aux)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode (one JVP per input element, vmapped).

    Parameters and results as :func:`jacrev`; ``randomness`` as :func:`vmap`.
    """
    _check_randomness(randomness)
    return _transformed(_api.jacfwd, func, argnums=argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of a function with a one-element output (forward over reverse).

    Returns
    -------
    callable
        Returns the Hessian, of shape ``input.shape + input.shape`` for one
        argument (nested per argument pair for a tuple ``argnums``).
    """
    return _transformed(_api.hessian, func, argnums=argnums)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorizing map: ``func`` applied to each slice of its arguments, computed
    as one batched computation.

    Parameters
    ----------
    func : callable
        Of tensors (or pytrees of them).
    in_dims : int, None or tuple, optional
        The mapped dimension of each positional argument (a pytree prefix of
        the arguments; None: the same for every call).  Keyword arguments are
        not mapped (as PyTorch).
    out_dims : int or tuple, optional
        Where the mapped dimension goes in each output.
    randomness : {'error', 'different', 'same'}, optional
        'error' (default): a random operation inside raises RuntimeError, as
        in PyTorch; 'same': one draw for the whole batch; 'different' (a
        draw per element) is not supported: a random operation raises
        NotImplementedError.
    chunk_size : int, optional
        Accepted; the batch is computed at once.

    Returns
    -------
    callable
        With ``func``'s signature; each output gains the mapped dimension.

    Raises
    ------
    ValueError
        For inconsistent sizes of the mapped dimensions, an out-of-range
        dimension, or no mapped argument (tracegrad's messages), or an
        unknown ``randomness``.
    """
    _check_randomness(randomness)
    _check_chunk_size(chunk_size)
    if isinstance(in_dims, list):
        in_dims = tuple(in_dims)

    def wrapper(*args, **kwargs):
        f = _on_data(func, kwargs)
        prev = _creation.randomness.mode
        _creation.randomness.mode = randomness
        try:
            return _raise(_vmap(f, in_axes=in_dims, out_axes=out_dims)(*_lower(args)))
        finally:
            _creation.randomness.mode = prev

    wrapper.__wrapped__ = func
    return wrapper


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def _check_chunk_size(chunk_size):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(
            "vmap: chunk_size should be None or greater than 0. (got {})".format(chunk_size)
        )


# --------------------------------------------------------------------------
# modules as functions


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors.

    Parameters
    ----------
    module : tracegrad.torch.nn.Module
    parameter_and_buffer_dicts : dict or tuple of dicts
        Dotted names (``"0.weight"``, as ``named_parameters``) to tensors
        (possibly inside a ``torch.func`` transform).
    args : tuple or Tensor, optional
        Positional arguments of ``module``'s ``forward`` (one tensor alone is
        taken as a one-element tuple).
    kwargs : dict, optional
    tie_weights : bool, optional
        Accepted (names are replaced one by one).
    strict : bool, optional
        If True, the dictionaries must name every parameter and buffer.

    Returns
    -------
    The module's output.  The module's own parameters are restored afterwards
    (also on error).

    Raises
    ------
    RuntimeError
        For a name that is neither a parameter nor a buffer of the module,
        a name given twice, or (``strict``) missing names.
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = (dicts,)
    merged = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged[k] = v
    known = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    known |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    unexpected = sorted(set(merged) - known)
    missing = sorted(known - set(merged))
    if unexpected or (strict and missing):
        raise RuntimeError(
            "Error(s) in reparametrizing for {}:\n\t{}".format(
                type(module).__name__,
                "\n\t".join(([f"Unexpected key(s): {', '.join(map(repr, unexpected))}."]
                             if unexpected else [])
                            + ([f"Missing key(s): {', '.join(map(repr, missing))}."]
                               if strict and missing else [])))
        )
    saved = []
    try:
        for name, value in merged.items():
            owner, _, attr = name.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            reg = sub.__dict__["_parameters"] if attr in sub.__dict__["_parameters"] \
                else sub.__dict__["_buffers"]
            saved.append((reg, attr, reg[attr]))
            reg[attr] = value
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for reg, attr, old in reversed(saved):
            reg[attr] = old
