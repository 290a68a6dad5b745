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
    return np.array(t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy())


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
    # relative to the size of the values: sums of many terms cancel
    atol = atol * max(1.0, float(np.nanmax(np.abs(b)))) if b.size and b.dtype.kind == "f" else atol
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
