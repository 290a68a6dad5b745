"""tracegrad.torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Differential tests run the same function (written once against a module
``T``, which is either ``tracegrad.torch`` or real PyTorch) through both
libraries and compare values, shapes, dtypes, output containers and errors.
The analytic tests at the end need no PyTorch.
"""
import numpy as np
import pytest

import tracegrad.torch as tt
import tracegrad.torch.autograd.functional as F


@pytest.fixture(scope="module")
def real():
    return pytest.importorskip("torch")


def _to(x, T, dtype):
    if isinstance(x, tuple):
        return tuple(_to(a, T, dtype) for a in x)
    return T.tensor(np.asarray(x, dtype=dtype))


def _assert_same(ours, theirs, path="result", rtol=1e-5, atol=1e-6, requires_grad=True):
    """Same nesting (tuple vs list), shapes, dtypes, requires_grad and values."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs), f"{path}: {type(ours).__name__} vs {type(theirs).__name__}"
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{path}[{i}]", rtol, atol, requires_grad)
        return
    assert isinstance(ours, tt.Tensor), f"{path}: {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{path}: {ours.shape} vs {theirs.shape}"
    assert str(ours.dtype) == str(theirs.dtype), f"{path}: {ours.dtype} vs {theirs.dtype}"
    if requires_grad:
        assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad"
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol, err_msg=path)


rng = np.random.default_rng(0)
M22 = rng.standard_normal((2, 2))
N22 = rng.standard_normal((2, 2))
V3 = rng.standard_normal(3)
W3 = rng.standard_normal(3)
S0 = np.array(0.7)
W23 = rng.standard_normal((2, 3))

# (function name, f(T) -> function of tensors, inputs, keyword arguments)
CASES = [
    ("jacobian", lambda T: lambda x: x.exp().sum(dim=1), M22, {}),
    ("jacobian", lambda T: lambda x, y: 2 * x.exp() + 3 * y, (M22, N22), {}),
    ("jacobian", lambda T: lambda x: (x ** 2, x.sum()), V3, {}),
    ("jacobian", lambda T: lambda x: (x ** 2, x.sum()), (V3,), {}),
    ("jacobian", lambda T: lambda x, y: (x * y, T.tanh(x).sum(0)), (V3, W3), {}),
    ("jacobian", lambda T: lambda x: x.sin() * x, S0, {}),
    ("jacobian", lambda T: lambda x: x, V3, {}),
    ("jacobian", lambda T: lambda x: T.softmax(x, dim=-1), M22, {}),
    ("jacobian", lambda T: lambda x: x @ T.tensor(W23, dtype=x.dtype) + 1.0, M22, {}),
    ("jacobian", lambda T: lambda x: x.reshape(-1)[1:3].cumsum(0), M22, {}),
    ("jacobian", lambda T: lambda x, y: x.sin().sum(), (V3, W3), {}),  # independent input
    ("jacobian", lambda T: lambda x: T.ones(2), V3, {}),  # constant output
    ("jacobian", lambda T: lambda x: x.argmax(), V3, {}),  # integer output
    ("jacobian", lambda T: lambda x: x.exp().sum(dim=1), M22, {"vectorize": True}),
    ("jacobian", lambda T: lambda x: x.exp().sum(dim=1), M22,
     {"strategy": "forward-mode", "vectorize": True}),
    ("jacobian", lambda T: lambda x, y: (x * y, x), (V3, W3),
     {"strategy": "forward-mode", "vectorize": True}),
    ("jacobian", lambda T: lambda x, y: x * y.cos(), (V3, W3),
     {"strategy": "forward-mode", "vectorize": True}),
    ("jacobian", lambda T: lambda x: (x * 2, x.exp()), V3,
     {"strategy": "forward-mode", "vectorize": True}),
    ("jacobian", lambda T: lambda x: x.exp().sum(dim=1), M22, {"create_graph": True}),
    ("jacobian", lambda T: lambda x, y: (x * y, T.tanh(x * y).sum(0)), (V3, W3), {"strict": True}),
    ("hessian", lambda T: lambda x: x.pow(3).sum(), M22, {}),
    ("hessian", lambda T: lambda x, y: (2 * x.pow(2) + 3 * y.pow(2)).sum(), (V3, W3), {}),
    ("hessian", lambda T: lambda x, y: (x * y.sin()).sum(), (V3, W3), {}),
    ("hessian", lambda T: lambda x: (T.tanh(x) ** 2).sum().reshape(1, 1), V3, {}),
    ("hessian", lambda T: lambda x: (x ** 3).sum(), S0, {}),
    ("hessian", lambda T: lambda x, y: (x * y.sin()).sum(), (V3, W3),
     {"outer_jacobian_strategy": "forward-mode", "vectorize": True}),
    ("hessian", lambda T: lambda x: x.exp().prod(), V3,
     {"outer_jacobian_strategy": "forward-mode", "vectorize": True}),
    ("hessian", lambda T: lambda x: (T.tanh(x) ** 2).sum(), V3, {"create_graph": True}),
    ("hessian", lambda T: lambda x, y: (x.exp() * y ** 3).sum(), (V3, W3), {"strict": True}),
    ("vjp", lambda T: lambda x: x.pow(3).sum(dim=1), M22, {"v": np.ones(2)}),
    ("vjp", lambda T: lambda x, y: (x * y).sum(), (V3, W3), {}),
    ("vjp", lambda T: lambda x, y: (x * y, x.exp()), (V3, W3), {"v": (np.ones(3), V3)}),
    ("vjp", lambda T: lambda x, y: x.exp(), (V3, W3), {"v": V3}),
    ("vjp", lambda T: lambda x: x.pow(3).sum(dim=1), M22, {"v": np.ones(2), "create_graph": True}),
    ("vjp", lambda T: lambda x, y: (x * y, x.exp()), (V3, W3), {"v": (np.ones(3), V3), "strict": True}),
    ("jvp", lambda T: lambda x: x.pow(3).sum(dim=1), M22, {"v": np.ones((2, 2))}),
    ("jvp", lambda T: lambda x, y: (x * y, x.exp()), (V3, W3), {"v": (np.ones(3), V3)}),
    ("jvp", lambda T: lambda x: x.sin() * 2, S0, {}),
    ("jvp", lambda T: lambda x, y: (x * 2, T.ones(2)), (V3, W3), {"v": (V3, W3)}),
    ("jvp", lambda T: lambda x: x.pow(3).sum(dim=1), M22, {"v": np.ones((2, 2)), "create_graph": True}),
    ("jvp", lambda T: lambda x, y: (x * y, x.exp()), (V3, W3), {"v": (np.ones(3), V3), "strict": True}),
]
# hvp and vhp on the same functions
CASES += [(name,) + row for name in ("hvp", "vhp") for row in [
    (lambda T: lambda x: x.pow(3).sum(), M22, {"v": np.ones((2, 2))}),
    (lambda T: lambda x, y: (x * y.sin()).sum(), (V3, W3), {"v": (V3, np.ones(3))}),
    (lambda T: lambda x: (x ** 4).sum(), S0, {}),
    (lambda T: lambda x, y: (x * y.sin()).sum(), (V3, W3),
     {"v": (V3, np.ones(3)), "create_graph": True}),
    (lambda T: lambda x: x.exp().prod(), V3, {"v": W3, "strict": True}),
]]


def _run(T, module, name, make, inputs, kwargs, dtype):
    kw = {k: (_to(v, T, dtype) if k == "v" else v) for k, v in kwargs.items()}
    return getattr(module, name)(make(T), _to(inputs, T, dtype), **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_torch(real, case, dtype):
    import torch.autograd.functional as TF

    name, make, inputs, kwargs = CASES[case]
    ours = _run(tt, F, name, make, inputs, kwargs, dtype)
    theirs = _run(real, TF, name, make, inputs, kwargs, dtype)
    tol = (1e-5, 1e-6) if dtype == np.float32 else (1e-10, 1e-12)
    # PyTorch's forward-over-reverse hessian hands out results that still
    # carry a grad_fn without create_graph (its inputs were made to require
    # grad); tracegrad's are detached, as every other create_graph=False result
    leaky = kwargs.get("outer_jacobian_strategy") == "forward-mode"
    _assert_same(ours, theirs, rtol=tol[0], atol=tol[1], requires_grad=not leaky)
    if leaky:
        assert not any(t.requires_grad for row in ours for t in row) if isinstance(ours, list) \
            else not ours.requires_grad


# --------------------------------------------------------------------------
# errors: same type and message as PyTorch

ERRORS = {
    "inputs_list": lambda T, M: M.jacobian(lambda x: x, [T.ones(2)]),
    "inputs_tuple_item": lambda T, M: M.jacobian(lambda x, y: x, (T.ones(2), 3.0)),
    "output_list": lambda T, M: M.jacobian(lambda x: [x], T.ones(2)),
    "output_float": lambda T, M: M.vjp(lambda x: 3.0, T.ones(2)),
    "jac_strict_independent": lambda T, M: M.jacobian(lambda x, y: x * 2, (T.ones(2), T.ones(2)),
                                                      strict=True),
    "jac_strict_constant": lambda T, M: M.jacobian(lambda x: T.ones(2), T.ones(2), strict=True),
    "jac_strict_vectorize": lambda T, M: M.jacobian(lambda x: x * 2, T.ones(2), strict=True,
                                                    vectorize=True),
    "jac_forward_create_graph": lambda T, M: M.jacobian(lambda x: x * 2, T.ones(2),
                                                        strategy="forward-mode", create_graph=True),
    "jac_forward_strict": lambda T, M: M.jacobian(lambda x: x * 2, T.ones(2),
                                                  strategy="forward-mode", strict=True),
    "jac_bad_strategy": lambda T, M: M.jacobian(lambda x: x * 2, T.ones(2), strategy="sideways"),
    "jac_strict_linear_create_graph": lambda T, M: M.jacobian(lambda x: x * 2, T.ones(2),
                                                              strict=True, create_graph=True),
    "hess_tuple_output": lambda T, M: M.hessian(lambda x: (x.sum(),), T.ones(2)),
    "hess_not_scalar": lambda T, M: M.hessian(lambda x: x ** 2, T.ones(2)),
    "hess_strict_linear": lambda T, M: M.hessian(lambda x: x.sum() * 3, T.ones(2), strict=True),
    "hess_strict_independent": lambda T, M: M.hessian(lambda x, y: (x ** 3).sum(),
                                                      (T.ones(2), T.ones(2)), strict=True),
    "hess_bad_strategy": lambda T, M: M.hessian(lambda x: (x ** 2).sum(), T.ones(2),
                                                outer_jacobian_strategy="x"),
    "hess_forward_create_graph": lambda T, M: M.hessian(
        lambda x: (x ** 3).sum(), T.ones(2), outer_jacobian_strategy="forward-mode",
        create_graph=True),
    "vjp_v_missing": lambda T, M: M.vjp(lambda x: x ** 2, T.ones(2)),
    "vjp_v_length": lambda T, M: M.vjp(lambda x: (x, x), T.ones(2), v=(T.ones(2),)),
    "vjp_v_single": lambda T, M: M.vjp(lambda x: x, T.ones(2), v=(T.ones(2), T.ones(2))),
    "vjp_v_size": lambda T, M: M.vjp(lambda x: x * 2, T.ones(2), v=T.ones(3)),
    "vjp_v_size_entry": lambda T, M: M.vjp(lambda x: (x * 2, x), T.ones(2),
                                           v=(T.ones(2), T.ones(3))),
    "vjp_v_type": lambda T, M: M.vjp(lambda x: x * 2, T.ones(2), v=[1.0, 2.0]),
    "vjp_strict_independent": lambda T, M: M.vjp(lambda x, y: x * 2, (T.ones(2), T.ones(2)),
                                                 v=T.ones(2), strict=True),
    "vjp_strict_constant": lambda T, M: M.vjp(lambda x: T.ones(2), T.ones(2), v=T.ones(2),
                                              strict=True),
    "vjp_strict_linear_create_graph": lambda T, M: M.vjp(lambda x: x * 2, T.ones(2), v=T.ones(2),
                                                         strict=True, create_graph=True),
    "jvp_v_missing": lambda T, M: M.jvp(lambda x: x ** 2, T.ones(2)),
    "jvp_strict_independent": lambda T, M: M.jvp(lambda x, y: x * 2, (T.ones(2), T.ones(2)),
                                                 v=(T.ones(2), T.ones(2)), strict=True),
    "jvp_strict_constant_output": lambda T, M: M.jvp(lambda x: (x * 2, T.ones(2)), T.ones(2),
                                                     v=T.ones(2), strict=True),
    "jvp_strict_linear_create_graph": lambda T, M: M.jvp(lambda x: x * 2, T.ones(2), v=T.ones(2),
                                                         strict=True, create_graph=True),
    "hvp_v_missing": lambda T, M: M.hvp(lambda x: (x ** 3).sum(), T.ones(2)),
    "hvp_not_scalar": lambda T, M: M.hvp(lambda x: x ** 3, T.ones(2), v=T.ones(2)),
    "vhp_tuple_output": lambda T, M: M.vhp(lambda x: ((x ** 3).sum(),), T.ones(2), v=T.ones(2)),
    "vhp_strict_linear": lambda T, M: M.vhp(lambda x: x.sum(), T.ones(2), v=T.ones(2), strict=True),
    "hvp_strict_linear": lambda T, M: M.hvp(lambda x: x.sum(), T.ones(2), v=T.ones(2), strict=True),
    "hvp_strict_partly_linear": lambda T, M: M.hvp(
        lambda x, y: (x ** 2).sum() + y.sum(), (T.ones(2), T.ones(2)),
        v=(T.ones(2), T.ones(2)), strict=True),
    "vhp_strict_partly_linear": lambda T, M: M.vhp(
        lambda x, y: (x ** 2).sum() + y.sum(), (T.ones(2), T.ones(2)),
        v=(T.ones(2), T.ones(2)), strict=True),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(real, case):
    import torch.autograd.functional as TF

    with pytest.raises(Exception) as theirs:
        ERRORS[case](real, TF)
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[case](tt, F)
    assert str(ours.value) == str(theirs.value)


def test_integer_input_cannot_require_grad():
    with pytest.raises(RuntimeError, match="can require gradients"):
        F.jacobian(lambda x: x * 2, tt.ones(2, dtype=tt.int64))


def test_strict_create_graph_is_structural():
    """A documented difference: strict mode with create_graph decides
    independence by the graph, and tracegrad's rule for ``x ** 2`` leaves a
    second derivative with no path to ``x`` (PyTorch's keeps ``x ** 0``)."""
    with pytest.raises(RuntimeError, match="independent of input 0"):
        F.hessian(lambda x: (x ** 2).sum(), tt.ones(2), strict=True, create_graph=True)
    h = F.hessian(lambda x: (x ** 2).sum(), tt.ones(2), create_graph=True)
    assert h.tolist() == [[2.0, 0.0], [0.0, 2.0]]


# --------------------------------------------------------------------------
# create_graph: the results are differentiable, as in PyTorch


HIGHER = {
    "jacobian": lambda T, M, x: M.jacobian(lambda x: x.sin() * x, x, create_graph=True),
    "hessian": lambda T, M, x: M.hessian(lambda x: (x ** 4).sum() * x[0], x, create_graph=True),
    "vjp": lambda T, M, x: M.vjp(lambda x: x.sin() * x, x, T.ones(2), create_graph=True)[1],
    "jvp": lambda T, M, x: M.jvp(lambda x: x.sin() * x, x, T.ones(2), create_graph=True)[1],
    "hvp": lambda T, M, x: M.hvp(lambda x: (x.exp() * x).sum(), x, T.ones(2), create_graph=True)[1],
    "vhp": lambda T, M, x: M.vhp(lambda x: (x.exp() * x).sum(), x, T.ones(2), create_graph=True)[1],
}


@pytest.mark.parametrize("name", sorted(HIGHER))
def test_create_graph_higher_derivatives(real, name):
    import torch.autograd.functional as TF

    results = []
    for T, M in ((tt, F), (real, TF)):
        x = T.tensor([0.5, 2.0], dtype=T.float64, requires_grad=True)
        r = HIGHER[name](T, M, x)
        (g,) = T.autograd.grad(r.sum(), x)
        results.append((r, g))
    _assert_same(results[0][0].detach(), results[1][0].detach(), rtol=1e-12)
    _assert_same(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][0].grad_fn.name() == results[1][0].grad_fn.name()


def test_create_graph_backward_into_leaf(real):
    import torch.autograd.functional as TF

    grads = []
    for T, M in ((tt, F), (real, TF)):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        h = M.hessian(lambda x: (x ** 4).sum(), x, create_graph=True)
        h.sum().backward()
        grads.append(x.grad)
    assert grads[0].tolist() == grads[1].tolist() == [24.0, 48.0]


def test_closure_parameters_and_in_place(real):
    """A parameter the function closes over is a constant (its .grad stays
    None); in-place operations inside the function are followed."""
    import torch.autograd.functional as TF

    out = []
    for T, M in ((tt, F), (real, TF)):
        W = T.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]], dtype=T.float64, requires_grad=True)

        def f(x):
            y = x.clone()
            y.mul_(2)
            y[0] = x[1] ** 2
            return W @ y.exp()

        out.append(M.jacobian(f, T.tensor([0.1, 0.2, 0.3], dtype=T.float64)))
        assert W.grad is None
    _assert_same(out[0], out[1], rtol=1e-12)


def test_constant_modified_after_use_raises_like_torch(real):
    import torch.autograd.functional as TF

    def make(T):
        def g(x):
            c = T.ones(3)
            a = x * c
            c.add_(1.0)
            return a + x * c
        return g

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        TF.jacobian(make(real), real.ones(3))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        F.jacobian(make(tt), tt.ones(3))


def _cube(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    return Cube


def test_custom_function_uses_the_torch_graph(real):
    """A custom Function cannot be replayed (its backward is the user's): the
    torch-graph engine computes the result, which matches PyTorch's."""
    import torch.autograd.functional as TF

    x = tt.tensor([1.0, 2.0])
    leaf = x.detach().requires_grad_(True)
    assert F._replay((leaf,), (_cube(tt).apply(leaf),)) is None
    for name, kw in (("jacobian", {}), ("jvp", {"v": (1.0, 1.0)}), ("vjp", {"v": (1.0, 0.5)})):
        res = []
        for T, M in ((tt, F), (real, TF)):
            C = _cube(T)
            kw2 = {k: T.tensor(v) for k, v in kw.items()}
            res.append(getattr(M, name)(lambda x: C.apply(x).sin(), T.tensor([1.0, 2.0]), **kw2))
        _assert_same(res[0], res[1])
    jac = F.jacobian(lambda x: _cube(tt).apply(x), x, strategy="forward-mode")
    assert jac.tolist() == [[3.0, 0.0], [0.0, 12.0]]


# --------------------------------------------------------------------------
# without PyTorch: analytic values and the transform engine


def test_replay_is_used_for_ordinary_functions():
    x = tt.tensor([0.0, 0.0]).requires_grad_(True)
    y = (x.exp() * 2).sum()
    replay = F._replay((x,), (y,))
    assert replay is not None
    (out,) = replay(np.array([0.0, 0.0], np.float32))
    assert float(out) == 4.0
    # the replay stands for the function only at the recorded point: a first
    # call anywhere else is refused (then the torch graph is used)
    with pytest.raises(F._NotReplayable):
        F._replay((x,), (y,))(np.array([1.0, 0.0], np.float32))


def test_analytic_values():
    x = tt.tensor([1.0, 2.0, 3.0], dtype=tt.float64)
    assert F.jacobian(lambda x: x ** 2, x).tolist() == np.diag([2.0, 4.0, 6.0]).tolist()
    assert F.hessian(lambda x: (x ** 3).sum(), x).tolist() == np.diag([6.0, 12.0, 18.0]).tolist()
    out, jv = F.jvp(lambda x: x ** 2, x, tt.ones(3, dtype=tt.float64))
    assert out.tolist() == [1.0, 4.0, 9.0] and jv.tolist() == [2.0, 4.0, 6.0]
    out, vj = F.vjp(lambda x: (x ** 2).sum(), x)
    assert out.item() == 14.0 and vj.tolist() == [2.0, 4.0, 6.0]
    v = tt.tensor([1.0, 0.0, -1.0], dtype=tt.float64)
    assert F.hvp(lambda x: (x ** 3).sum(), x, v)[1].tolist() == [6.0, 0.0, -18.0]
    assert F.vhp(lambda x: (x ** 3).sum(), x, v)[1].tolist() == [6.0, 0.0, -18.0]


def test_results_are_detached_and_fresh():
    x = tt.tensor([1.0, 2.0], requires_grad=True)
    out, vj = F.vjp(lambda x: x * 3, x, tt.ones(2))
    jac = F.jacobian(lambda x: x * 3, x)
    for t in (out, vj, jac):
        assert not t.requires_grad and t.grad_fn is None
    jac.zero_()  # writable, owned by the caller
    assert x.grad is None


def test_jvp_vjp_duality():
    rng = np.random.default_rng(1)
    x, u, v = (tt.tensor(rng.standard_normal(4)) for _ in range(3))

    def f(x):
        return tt.tanh(x.cumsum(0)) * x[[3, 2, 1, 0]]

    _, jv = F.jvp(f, x, v)
    _, vj = F.vjp(f, x, u)
    assert abs((u * jv).sum().item() - (vj * v).sum().item()) < 1e-5
    jac = F.jacobian(f, x)
    np.testing.assert_allclose(jac.numpy() @ v.numpy(), jv.numpy(), rtol=1e-5)
    np.testing.assert_allclose(jac.numpy(), F.jacobian(f, x, strategy="forward-mode").numpy(),
                               rtol=1e-6)


def test_hessian_strategies_agree():
    x = tt.tensor([0.3, -0.2, 0.9], dtype=tt.float64)

    def f(x):
        return (x.exp() * x.sin()).sum() * x.prod()

    h_rev = F.hessian(f, x)
    h_fwd = F.hessian(f, x, outer_jacobian_strategy="forward-mode")
    h_graph = F.hessian(f, x, create_graph=True)
    np.testing.assert_allclose(h_rev.numpy(), h_fwd.numpy(), rtol=1e-12)
    np.testing.assert_allclose(h_rev.numpy(), h_graph.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h_rev.numpy(), h_rev.numpy().T, rtol=1e-12)
