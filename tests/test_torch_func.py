"""tracegrad.torch.func against PyTorch's torch.func (differential tests)."""
import numpy as np
import pytest

import tracegrad.torch as tt
import tracegrad.torch.func as tfunc
import tracegrad.torch.nn.functional as TF

real = pytest.importorskip("torch")
rfunc = real.func
RF = real.nn.functional

RNG = np.random.default_rng(0)


def arr(*shape):
    return RNG.standard_normal(shape)


def both(*arrays):
    """The same float64 data as a tracegrad tensor and a PyTorch tensor."""
    return [tt.tensor(a) for a in arrays], [real.tensor(a) for a in arrays]


def close(ours, theirs, tol=1e-10):
    """Compare (pytrees of) tracegrad results with PyTorch's."""
    if isinstance(theirs, dict):
        assert set(ours) == set(theirs)
        for k in theirs:
            close(ours[k], theirs[k], tol)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple if isinstance(theirs, tuple) else list), type(ours)
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            close(o, t, tol)
    elif isinstance(theirs, real.Tensor):
        assert isinstance(ours, tt.Tensor), type(ours)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=tol, atol=tol)
    else:
        assert ours == theirs


# functions written once, run with either library (m: the torch module, f: functional)
def f_chain(m, x):
    return (m.sin(x) * x + m.exp(-x * x)).sum()


def f_two(m, x, y):
    return (m.tanh(x @ y) ** 2).mean() + (x * 3.0).sum()


def f_vec(m, x):
    return m.cat([m.sin(x), x[1:] * x[:-1], x.sum().reshape(1)])


def f_methods(m, x):
    return (x.exp().log1p() * x.cos()).sum(0).max() + x.mean(dim=1).pow(2).sum()


def f_index(m, x):
    return (x[0, 1:] * x[1:, 0].flip(0)).sum() + x[..., -1].sigmoid().sum() + x.T[2].norm()


# --------------------------------------------------------------------------
# grad, grad_and_value


@pytest.mark.parametrize("fn, shape", [(f_chain, (5,)), (f_methods, (3, 4)), (f_index, (4, 4))])
def test_grad_matches_torch(fn, shape):
    (x,), (rx,) = both(arr(*shape))
    close(tfunc.grad(lambda a: fn(tt, a))(x), rfunc.grad(lambda a: fn(real, a))(rx))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
def test_grad_argnums(argnums):
    (x, y), (rx, ry) = both(arr(2, 3), arr(3, 2))
    ours = tfunc.grad(lambda a, b: f_two(tt, a, b), argnums=argnums)(x, y)
    theirs = rfunc.grad(lambda a, b: f_two(real, a, b), argnums=argnums)(rx, ry)
    close(ours, theirs)


def test_grad_has_aux_and_grad_and_value():
    (x,), (rx,) = both(arr(4))

    def fn(m):
        def f(a):
            y = m.sin(a)
            return y.sum(), {"y": y, "c": m.cos(a)}
        return f

    g, aux = tfunc.grad(fn(tt), has_aux=True)(x)
    rg, raux = rfunc.grad(fn(real), has_aux=True)(rx)
    close(g, rg)
    close(aux, raux)
    ours = tfunc.grad_and_value(fn(tt), has_aux=True)(x)
    theirs = rfunc.grad_and_value(fn(real), has_aux=True)(rx)
    close(ours, theirs)
    ours = tfunc.grad_and_value(lambda a: f_chain(tt, a))(x)
    theirs = rfunc.grad_and_value(lambda a: f_chain(real, a))(rx)
    close(ours, theirs)


def test_grad_pytree_argument_and_kwargs():
    (w, b, x), (rw, rb, rx) = both(arr(3, 2), arr(2), arr(4, 3))

    def loss(m, params, x, scale=1.0):
        return ((x @ params["w"] + params["b"]) ** 2).mean() * scale

    ours = tfunc.grad(lambda p, a, **k: loss(tt, p, a, **k))({"w": w, "b": b}, x, scale=2.0)
    theirs = rfunc.grad(lambda p, a, **k: loss(real, p, a, **k))({"w": rw, "b": rb}, rx,
                                                                    scale=2.0)
    close(ours, theirs)


def test_grad_of_grad():
    (x,), (rx,) = both(np.array(0.7))
    ours = tfunc.grad(tfunc.grad(lambda a: tt.sin(a) * a ** 3))(x)
    theirs = rfunc.grad(rfunc.grad(lambda a: real.sin(a) * a ** 3))(rx)
    close(ours, theirs)
    ours = tfunc.grad(tfunc.grad(tfunc.grad(lambda a: tt.exp(a * a))))(x)
    theirs = rfunc.grad(rfunc.grad(rfunc.grad(lambda a: real.exp(a * a))))(rx)
    close(ours, theirs)


def test_python_control_flow_inside_grad():
    def f(m):
        def g(a):
            return m.sin(a).sum() if a.sum() > 0 else m.cos(a).sum()
        return g

    for sign in (1.0, -1.0):
        (x,), (rx,) = both(sign * np.abs(arr(3)))
        close(tfunc.grad(f(tt))(x), rfunc.grad(f(real))(rx))


# --------------------------------------------------------------------------
# vjp, jvp


def test_vjp():
    (x,), (rx,) = both(arr(5))
    out, fn = tfunc.vjp(lambda a: f_vec(tt, a), x)
    rout, rfn = rfunc.vjp(lambda a: f_vec(real, a), rx)
    close(out, rout)
    (ct,), (rct,) = both(arr(*rout.shape))
    close(fn(ct), rfn(rct))


def test_vjp_two_primals_has_aux():
    (x, y), (rx, ry) = both(arr(2, 3), arr(3, 2))

    def fn(m):
        return lambda a, b: (m.matmul(a, b).tanh(), a.sum())

    out, vjp_fn, aux = tfunc.vjp(fn(tt), x, y, has_aux=True)
    rout, rvjp_fn, raux = rfunc.vjp(fn(real), rx, ry, has_aux=True)
    close((out, aux), (rout, raux))
    (ct,), (rct,) = both(arr(2, 2))
    close(vjp_fn(ct), rvjp_fn(rct))


def test_jvp():
    (x, t), (rx, rt) = both(arr(5), arr(5))
    close(tfunc.jvp(lambda a: f_vec(tt, a), (x,), (t,)),
          rfunc.jvp(lambda a: f_vec(real, a), (rx,), (rt,)))
    (x, y, tx, ty), (rx, ry, rtx, rty) = both(arr(2, 3), arr(3, 2), arr(2, 3), arr(3, 2))
    close(tfunc.jvp(lambda a, b: f_two(tt, a, b), (x, y), (tx, ty)),
          rfunc.jvp(lambda a, b: f_two(real, a, b), (rx, ry), (rtx, rty)))
    ours = tfunc.jvp(lambda a: (tt.sin(a), a.sum()), (x,), (tx,), has_aux=True)
    theirs = rfunc.jvp(lambda a: (real.sin(a), a.sum()), (rx,), (rtx,), has_aux=True)
    close(ours, theirs)


def test_jvp_needs_tuples():
    x = tt.tensor(arr(3))
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        tfunc.jvp(tt.sin, x, (x,))


# --------------------------------------------------------------------------
# Jacobians, Hessians


@pytest.mark.parametrize("ours_t, theirs_t", [(tfunc.jacrev, rfunc.jacrev),
                                              (tfunc.jacfwd, rfunc.jacfwd)])
def test_jacobians(ours_t, theirs_t):
    (x,), (rx,) = both(arr(4))
    close(ours_t(lambda a: f_vec(tt, a))(x), theirs_t(lambda a: f_vec(real, a))(rx))
    (x, y), (rx, ry) = both(arr(2, 3), arr(3, 2))
    for argnums in (0, 1, (0, 1)):
        ours = ours_t(lambda a, b: tt.tanh(a @ b), argnums=argnums)(x, y)
        theirs = theirs_t(lambda a, b: real.tanh(a @ b), argnums=argnums)(rx, ry)
        close(ours, theirs)
    ours = ours_t(lambda a: (tt.sin(a), a.sum()), has_aux=True)(x)
    theirs = theirs_t(lambda a: (real.sin(a), a.sum()), has_aux=True)(rx)
    close(ours, theirs)


def test_jacrev_chunk_size_and_jacfwd_randomness_accepted():
    (x,), (rx,) = both(arr(3))
    close(tfunc.jacrev(tt.sin, chunk_size=1)(x), rfunc.jacrev(real.sin, chunk_size=1)(rx))
    close(tfunc.jacfwd(tt.sin, randomness="same")(x), rfunc.jacfwd(real.sin, randomness="same")(rx))


def test_hessian_and_nested_jacobians():
    (x,), (rx,) = both(arr(4))
    close(tfunc.hessian(lambda a: f_chain(tt, a))(x), rfunc.hessian(lambda a: f_chain(real, a))(rx))
    close(tfunc.jacrev(tfunc.jacfwd(lambda a: f_vec(tt, a)))(x),
          rfunc.jacrev(rfunc.jacfwd(lambda a: f_vec(real, a)))(rx))
    close(tfunc.jacfwd(tfunc.jacrev(lambda a: f_chain(tt, a)))(x),
          rfunc.jacfwd(rfunc.jacrev(lambda a: f_chain(real, a)))(rx))
    (x, y), (rx, ry) = both(arr(2, 3), arr(3, 2))
    close(tfunc.hessian(lambda a, b: f_two(tt, a, b), argnums=(0, 1))(x, y),
          rfunc.hessian(lambda a, b: f_two(real, a, b), argnums=(0, 1))(rx, ry))


# --------------------------------------------------------------------------
# vmap


@pytest.mark.parametrize("in_dims, out_dims, shapes", [
    (0, 0, [(4, 3), (4, 3)]),
    (1, 0, [(3, 4), (3, 4)]),
    ((0, None), 0, [(4, 3), (3,)]),
    ((None, -1), 1, [(3,), (3, 4)]),
    ((1, 0), -1, [(3, 4), (4, 3)]),
])
def test_vmap_in_out_dims(in_dims, out_dims, shapes):
    ours_in, theirs_in = both(*[arr(*s) for s in shapes])

    def fn(m):
        return lambda a, b: m.sin(a) * b + (a * b).sum()

    close(tfunc.vmap(fn(tt), in_dims, out_dims)(*ours_in),
          rfunc.vmap(fn(real), in_dims, out_dims)(*theirs_in))


def test_vmap_tuple_outputs_and_out_dims_tuple_and_kwargs():
    (x, s), (rx, rs) = both(arr(3, 5), arr(3))

    def fn(m):
        return lambda a, scale=None: (a * scale, (a @ a.unsqueeze(-1)).squeeze(-1))

    ours = tfunc.vmap(fn(tt), in_dims=1, out_dims=(1, 0))(x, scale=s)
    theirs = rfunc.vmap(fn(real), in_dims=1, out_dims=(1, 0))(rx, scale=rs)
    close(ours, theirs)


def test_vmap_nested_and_pytree_in_dims():
    (x, b), (rx, rb) = both(arr(2, 3, 4), arr(4))

    def fn(m):
        return lambda p: (p["a"] * p["b"]).sum()

    dims = ({"a": 0, "b": None},)
    ours = tfunc.vmap(tfunc.vmap(fn(tt), in_dims=dims), in_dims=dims)({"a": x, "b": b})
    theirs = rfunc.vmap(rfunc.vmap(fn(real), in_dims=dims), in_dims=dims)({"a": rx, "b": rb})
    close(ours, theirs)


def test_vmap_randomness_and_chunk_size_checked():
    x = tt.tensor(arr(3))
    with pytest.raises(RuntimeError, match="randomness"):
        tfunc.vmap(tt.sin, randomness="bad")
    with pytest.raises(ValueError, match="chunk_size"):
        tfunc.vmap(tt.sin, chunk_size=0)
    close(tfunc.vmap(tt.sin, randomness="different", chunk_size=2)(x), real.sin(real.tensor(x.numpy())))


def test_vmap_item_raises_clear_error():
    x = tt.tensor(arr(3))
    with pytest.raises(TypeError, match="varies over an axis mapped by vmap"):
        tfunc.vmap(lambda a: a * a.item())(x)
    with pytest.raises(RuntimeError, match="float\\(\\) of a tensor inside"):
        tfunc.grad(lambda a: a * float(a))(tt.tensor(1.0))
    with pytest.raises(RuntimeError, match="numpy\\(\\) of a tensor inside"):
        tfunc.grad(lambda a: (a * a.numpy()).sum())(tt.tensor(arr(2)))


def test_detach_inside_transforms():
    (x,), (rx,) = both(arr(4))
    close(tfunc.grad(lambda a: (a * a.detach()).sum())(x),
          rfunc.grad(lambda a: (a * a.detach()).sum())(rx))
    close(tfunc.vmap(lambda a: a.detach() * 2)(x), rfunc.vmap(lambda a: a.detach() * 2)(rx))


def _inplace_ops(m):
    def f(x):
        y = x.clone()
        y[0] = 0.0
        y[1:, 2] *= 3
        y.add_(1)
        return y.sum() + (y ** 2).sum()
    return f


OPS = {
    "max_min_dim": lambda m: lambda x: x.max(1).values.sum() + x.min(0)[0].sum(),
    "argmax": lambda m: lambda x: x.argmax(1).double().sum() * x.sum(),
    "where": lambda m: lambda x: m.where(x > 0, x, x * 2).sum(),
    "sort_topk": lambda m: lambda x: x.sort(1).values[:, 0].sum() + x.topk(2).values.sum(),
    "masked_fill": lambda m: lambda x: x.masked_fill(x > 0, 0.0).sum(),
    "inplace": _inplace_ops,
    "abs_sign": lambda m: lambda x: (x.abs() * x.sign()).sum(),
    "gather_index_select": lambda m: lambda x: (
        x.gather(1, x.argmax(1, keepdim=True)).sum()
        + x.index_select(0, x[:, 0].argsort()).sum()),
    "shapes": lambda m: lambda x: (x.view(-1)[3:] * 2).sum() + x.reshape(2, -1).T.sum(0).norm()
    + m.stack([x, x.permute(0, 1)]).var() + m.cat([x, x.unsqueeze(0).expand(2, -1, -1)[1]]).std(),
    "softmax_clamp": lambda m: lambda x: (x.softmax(-1) * x.clamp(-0.5, 0.5)).sum()
    + m.einsum("ij,kj->ik", x, x).cumsum(1).sum() + x.float().double().sum(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_operations_under_grad_and_vmap_grad(name):
    (x, xs), (rx, rxs) = both(arr(4, 5), arr(3, 4, 5))
    close(tfunc.grad(OPS[name](tt))(x), rfunc.grad(OPS[name](real))(rx))
    close(tfunc.vmap(tfunc.grad(OPS[name](tt)))(xs), rfunc.vmap(rfunc.grad(OPS[name](real)))(rxs))


def test_inplace_on_outer_tensor_raises():
    outer = tt.tensor(arr(3))
    with pytest.raises(RuntimeError, match="created outside it"):
        tfunc.grad(lambda a: outer.add_(a).sum())(tt.tensor(arr(3)))


def test_repr_inside_transforms():
    seen = []
    tfunc.vmap(lambda a: seen.append(repr(a)) or a)(tt.tensor(arr(3, 2)))
    tfunc.vmap(tfunc.grad(lambda a: seen.append(repr(a)) or a.sum()))(tt.tensor(arr(3, 2)))
    assert seen[0].startswith("tensor(BatchTracer(shape=(2,)") and "tensor(" in seen[1]


# --------------------------------------------------------------------------
# compositions: per-example gradients of a small MLP


def _mlp_params(m):
    return {"w1": m.tensor(W1), "b1": m.tensor(B1), "w2": m.tensor(W2), "b2": m.tensor(B2)}


W1, B1, W2, B2 = arr(5, 3), arr(5), arr(4, 5), arr(4)
XS, YS = arr(6, 3), RNG.integers(0, 4, 6)


def _mlp_loss(m, f, kind):
    def loss(params, x, y):
        h = f.relu(f.linear(x.unsqueeze(0), params["w1"], params["b1"]))
        logits = f.linear(m.tanh(h), params["w2"], params["b2"])
        if kind == "ce":  # class probabilities (one-hot) as targets
            return f.cross_entropy(logits, y.unsqueeze(0))
        return f.mse_loss(logits.softmax(-1), y.unsqueeze(0))

    return loss


@pytest.mark.parametrize("kind", ["ce", "mse"])
def test_per_example_gradients_vmap_grad(kind):
    onehot = np.eye(4)[YS]
    ours = tfunc.vmap(tfunc.grad(_mlp_loss(tt, TF, kind)), in_dims=(None, 0, 0))(
        _mlp_params(tt), tt.tensor(XS), tt.tensor(onehot))
    theirs = rfunc.vmap(rfunc.grad(_mlp_loss(real, RF, kind)), in_dims=(None, 0, 0))(
        _mlp_params(real), real.tensor(XS), real.tensor(onehot))
    close(ours, theirs)
    # and each row is the single example's gradient
    one = tfunc.grad(_mlp_loss(tt, TF, kind))(_mlp_params(tt), tt.tensor(XS[2]),
                                               tt.tensor(onehot[2]))
    for k in one:
        np.testing.assert_allclose(ours[k].numpy()[2], one[k].numpy(), rtol=1e-12, atol=1e-14)


def test_grad_with_class_index_cross_entropy():
    def loss(m, f):
        return lambda p, x, y: f.cross_entropy(f.linear(x, p["w1"], p["b1"]), y)

    ours = tfunc.grad(loss(tt, TF))(_mlp_params(tt), tt.tensor(XS), tt.tensor(YS))
    theirs = rfunc.grad(loss(real, RF))(_mlp_params(real), real.tensor(XS), real.tensor(YS))
    close({k: ours[k] for k in ("w1", "b1")}, {k: theirs[k] for k in ("w1", "b1")})


def test_functional_call_per_example():
    tt.manual_seed(0)
    model = tt.nn.Sequential(tt.nn.Linear(3, 5), tt.nn.Tanh(), tt.nn.Linear(5, 2)).double()
    rmodel = real.nn.Sequential(real.nn.Linear(3, 5), real.nn.Tanh(),
                                real.nn.Linear(5, 2)).double()
    with real.no_grad():
        for (n, p), (rn, rp) in zip(model.named_parameters(), rmodel.named_parameters()):
            assert n == rn
            rp.copy_(real.tensor(p.detach().numpy()))
    params = {k: v.detach() for k, v in model.named_parameters()}
    rparams = {k: v.detach() for k, v in rmodel.named_parameters()}

    def loss(fc, mod, f):
        return lambda p, x, y: f.mse_loss(fc(mod, p, (x.unsqueeze(0),)), y.unsqueeze(0))

    ys = arr(6, 2)
    ours = tfunc.vmap(tfunc.grad(loss(tfunc.functional_call, model, TF)),
                      in_dims=(None, 0, 0))(params, tt.tensor(XS), tt.tensor(ys))
    theirs = rfunc.vmap(rfunc.grad(loss(rfunc.functional_call, rmodel, RF)),
                        in_dims=(None, 0, 0))(rparams, real.tensor(XS), real.tensor(ys))
    close(ours, theirs)
    # the module's own parameters are back
    assert model[0].weight is dict(model.named_parameters())["0.weight"]
    with pytest.raises(RuntimeError, match="Unexpected key"):
        tfunc.functional_call(model, {"nope": params["0.weight"]}, (tt.tensor(XS),))


def test_eager_autograd_unaffected_after_transforms():
    x = tt.tensor(arr(3), requires_grad=True)
    tfunc.grad(lambda a: tt.sin(a).sum())(x)
    y = (tt.sin(x) * x).sum()
    y.backward()
    rx = real.tensor(x.detach().numpy(), requires_grad=True)
    (real.sin(rx) * rx).sum().backward()
    close(x.grad, rx.grad)
    assert y.grad_fn.name() == "SumBackward0"


# --------------------------------------------------------------------------
# torch.autograd.functional with vectorize=True


def test_autograd_functional_vectorize():
    (x,), (rx,) = both(arr(4))
    AF, RAF = tt.autograd.functional, real.autograd.functional
    close(AF.jacobian(lambda a: f_vec(tt, a), x, vectorize=True),
          RAF.jacobian(lambda a: f_vec(real, a), rx, vectorize=True))
    close(AF.jacobian(lambda a: f_vec(tt, a), x, vectorize=True, strategy="forward-mode"),
          RAF.jacobian(lambda a: f_vec(real, a), rx, vectorize=True, strategy="forward-mode"))
    close(AF.hessian(lambda a: f_chain(tt, a), x, vectorize=True),
          RAF.hessian(lambda a: f_chain(real, a), rx, vectorize=True))
    (x, y), (rx, ry) = both(arr(2, 3), arr(3, 2))
    close(AF.jacobian(lambda a, b: tt.tanh(a @ b), (x, y), vectorize=True),
          RAF.jacobian(lambda a, b: real.tanh(a @ b), (rx, ry), vectorize=True))
    close(AF.hessian(lambda a, b: f_two(tt, a, b), (x, y), vectorize=True),
          RAF.hessian(lambda a, b: f_two(real, a, b), (rx, ry), vectorize=True))


def test_per_example_gradients_with_class_index_targets():
    # the canonical torch.func use: vmap(grad(loss)) with integer labels, 1-D examples
    rng = np.random.default_rng(3)
    W, b = rng.standard_normal((3, 5)), rng.standard_normal(3)
    X, Y = rng.standard_normal((4, 5)), np.array([0, 2, 1, 2])
    for weight in (None, np.array([1.0, 2.0, 0.5])):
        results = []
        for T, func in ((tt, tt.func), (real, real.func)):
            F = T.nn.functional
            w = None if weight is None else T.tensor(weight)

            def loss(W, b, x, y):
                return F.cross_entropy(F.linear(x, W, b), y, weight=w)

            g = func.vmap(func.grad(loss), in_dims=(None, None, 0, 0))(
                T.tensor(W), T.tensor(b), T.tensor(X), T.tensor(Y))
            results.append(g.detach().numpy())
        np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["error", "different", "same"])
def test_vmap_randomness(mode):
    x = tt.zeros(3, 4)
    f = tfunc.vmap(lambda a: a + tt.randn(4), randomness=mode)
    if mode == "error":  # PyTorch's default and message
        with pytest.raises(RuntimeError, match="called random operation while in randomness "
                                               "error mode"):
            f(x)
    elif mode == "different":  # not supported: never silently the same draw
        with pytest.raises(NotImplementedError, match="randomness='different'"):
            f(x)
    else:
        out = f(x)
        assert out.shape == (3, 4) and (out[0] == out[1]).all().item()
    assert tt.randn(2).shape == (2,)  # outside vmap random operations work again
