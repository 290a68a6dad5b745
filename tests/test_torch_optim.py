"""tracegrad.torch.optim against PyTorch 2.13.

* Trajectories (fixture ``real``, skipped without PyTorch): the same
  deterministic problem (a least-squares quadratic and a small tanh MLP) is
  optimized for 10 steps by both libraries from identical parameters, and
  the parameters are compared after every step, in float32 and float64;
  the optimizer states and ``state_dict()`` too, and the learning rates of
  every scheduler.
* API tests (fixture ``torch``) run once with each library against
  expectations hard-coded from PyTorch 2.13 (messages, warnings, defaults,
  ``state_dict`` round trips, ``zero_grad``, skipped parameters).
"""
import copy
import importlib
import math
import re
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


def import_torch():
    """Real PyTorch (the test skips without it), on one thread: the tensors are tiny."""
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


@pytest.fixture(params=["tracegrad", "torch"])
def torch(request):
    return import_torch() if request.param == "torch" else tt


def raises(exc_type, message):
    """``pytest.raises`` pinning the whole message."""
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}
STEPS = 10

rng = np.random.default_rng(0)
A = rng.standard_normal((6, 4))
B = rng.standard_normal(6)
P0 = rng.standard_normal(4)
W1 = rng.standard_normal((5, 3)) * 0.7
B1 = rng.standard_normal(5) * 0.1
W2 = rng.standard_normal((1, 5)) * 0.7
X = rng.standard_normal((8, 3))
Y = rng.standard_normal((8, 1))


def quadratic(T, dtype):
    """``0.5 * |A p - b|**2`` (one parameter vector, plus a scalar offset parameter)."""
    a, b = T.tensor(A, dtype=dtype), T.tensor(B, dtype=dtype)
    params = [T.tensor(P0, dtype=dtype, requires_grad=True),
              T.tensor(0.5, dtype=dtype, requires_grad=True)]

    def loss():
        r = a @ params[0] + params[1] - b
        return 0.5 * (r * r).sum()

    return params, loss


def mlp(T, dtype):
    """Mean squared error of a 3-5-1 tanh network."""
    x, y = T.tensor(X, dtype=dtype), T.tensor(Y, dtype=dtype)
    params = [T.tensor(v, dtype=dtype, requires_grad=True) for v in (W1, B1, W2)]

    def loss():
        h = T.tanh(x @ params[0].t() + params[1])
        return ((h @ params[2].t() - y) ** 2).mean()

    return params, loss


PROBLEMS = {"quadratic": quadratic, "mlp": mlp}


def train(T, problem, optimizer, kwargs, dtype, steps=STEPS, groups=None):
    """Parameters after each of ``steps`` steps, and the optimizer."""
    params, loss_fn = PROBLEMS[problem](T, getattr(T, dtype))
    opt = getattr(T.optim, optimizer)(params if groups is None else groups(params), **kwargs)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
        history.append([p.detach().numpy().copy() for p in params])
    return history, opt, params


def assert_same_history(ours, theirs, dtype):
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for i, (p, q) in enumerate(zip(a, b)):
            assert p.dtype == q.dtype
            np.testing.assert_allclose(p, q, err_msg=f"step {step + 1}, parameter {i}",
                                       **TOL[dtype])


def state_arrays(opt, params):
    """Each parameter's optimizer state as ``{key: array}``."""
    return [{k: np.asarray(v.detach().numpy()) for k, v in opt.state[p].items()}
            for p in params if p in opt.state]


def assert_same_state(ours, theirs, dtype):
    assert len(ours) == len(theirs)
    for s, r in zip(ours, theirs):
        assert sorted(s) == sorted(r)
        for key in s:
            assert s[key].dtype == r[key].dtype, key
            np.testing.assert_allclose(s[key], r[key], err_msg=key, **TOL[dtype])


CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.02, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("SGD", {"lr": 0.02, "momentum": 0.8, "nesterov": True, "weight_decay": 0.01,
             "maximize": True}),
    ("SGD", {"lr": tt.tensor(0.05), "momentum": 0.9}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-3}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "maximize": True}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.2, "maximize": True,
              "betas": (0.8, 0.99)}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.5, "amsgrad": True}),
    ("AdamW", {"lr": 0.02, "maximize": True, "betas": (0.8, 0.99), "eps": 1e-6}),
]


def _kwargs_for(T, kwargs):
    """``kwargs`` with tensor values made tensors of library ``T``."""
    return {k: T.tensor(v.item()) if isinstance(v, tt.Tensor) else v for k, v in kwargs.items()}


def _config_id(cfg):
    name, kwargs = cfg
    return name + "-" + "-".join(f"{k}={v.item() if isinstance(v, tt.Tensor) else v}"
                                 for k, v in kwargs.items())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("problem", ["quadratic", "mlp"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=[_config_id(c) for c in CONFIGS])
def test_trajectory_matches_torch(real, cfg, problem, dtype):
    name, kwargs = cfg
    ours, opt, params = train(tt, problem, name, _kwargs_for(tt, kwargs), dtype)
    theirs, ropt, rparams = train(real, problem, name, _kwargs_for(real, kwargs), dtype)
    assert_same_history(ours, theirs, dtype)
    assert_same_state(state_arrays(opt, params), state_arrays(ropt, rparams), dtype)
    assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in params)


def _two_groups(params):
    return [{"params": params[:1]}, {"params": params[1:], "lr": 0.01, "momentum": 0.5}]


def _adam_groups(params):
    return [{"params": params[:2], "betas": (0.7, 0.95), "amsgrad": True},
            {"params": params[2:], "weight_decay": 0.3}]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("optimizer,kwargs,groups", [
    ("SGD", {"lr": 0.1, "momentum": 0.9}, _two_groups),
    ("Adam", {"lr": 0.05}, _adam_groups),
    ("AdamW", {"lr": 0.05}, _adam_groups),
], ids=["SGD", "Adam", "AdamW"])
def test_param_groups_match_torch(real, optimizer, kwargs, groups, dtype):
    ours, opt, _ = train(tt, "mlp", optimizer, kwargs, dtype, groups=groups)
    theirs, ropt, _ = train(real, "mlp", optimizer, kwargs, dtype, groups=groups)
    assert_same_history(ours, theirs, dtype)
    for g, r in zip(opt.param_groups, ropt.param_groups):
        assert {k: v for k, v in g.items() if k != "params"} == {
            k: v for k, v in r.items() if k != "params"}


def _train_adding_a_group(T, dtype):
    params, loss_fn = mlp(T, getattr(T, dtype))
    opt = T.optim.SGD(params[:2], lr=0.1, momentum=0.9)
    history = []
    for step in range(6):
        if step == 3:
            opt.add_param_group({"params": params[2], "lr": 0.05, "nesterov": True})
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
        lr_change = step == 4
        if lr_change:
            opt.param_groups[0]["lr"] = 0.01
        history.append([p.detach().numpy().copy() for p in params])
    return history, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_add_param_group_and_lr_change_match_torch(real, dtype):
    ours, opt = _train_adding_a_group(tt, dtype)
    theirs, ropt = _train_adding_a_group(real, dtype)
    assert_same_history(ours, theirs, dtype)
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["nesterov"]
    assert len(opt.param_groups) == len(ropt.param_groups) == 2


@pytest.mark.parametrize("optimizer,kwargs", [
    ("SGD", {"lr": 0.1, "momentum": 0.9}), ("SGD", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True}), ("AdamW", {"lr": 0.1}),
])
def test_state_dict_matches_torch(real, optimizer, kwargs):
    _, opt, _ = train(tt, "mlp", optimizer, kwargs, "float32", steps=3, groups=lambda p: [
        {"params": p[:1]}, {"params": p[1:], "lr": 0.01}])
    _, ropt, _ = train(real, "mlp", optimizer, kwargs, "float32", steps=3, groups=lambda p: [
        {"params": p[:1]}, {"params": p[1:], "lr": 0.01}])
    ours, theirs = opt.state_dict(), ropt.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["state"]) == list(theirs["state"])
    for i in ours["state"]:
        s, r = ours["state"][i], theirs["state"][i]
        assert list(s) == list(r)
        for key in s:
            assert type(s[key]) is tt.Tensor and str(s[key].dtype) == str(r[key].dtype)
            assert s[key].shape == r[key].shape
            np.testing.assert_allclose(s[key].numpy(), r[key].numpy(), rtol=1e-4, atol=1e-6)


def test_load_state_dict_from_pytorch(real):
    # an optimizer state saved by PyTorch (tensors converted) resumes identically
    _, ropt, rparams = train(real, "mlp", "Adam", {"lr": 0.05, "amsgrad": True}, "float64",
                             steps=3)
    theirs = ropt.state_dict()
    converted = {
        "state": {i: {k: tt.tensor(v.numpy()) for k, v in s.items()}
                  for i, s in theirs["state"].items()},
        "param_groups": copy.deepcopy(theirs["param_groups"]),
    }
    params, loss_fn = mlp(tt, tt.float64)
    with tt.no_grad():
        for p, q in zip(params, rparams):
            p.copy_(tt.tensor(q.detach().numpy()))
    opt = tt.optim.Adam(params, lr=1.0)
    opt.load_state_dict(converted)
    assert opt.param_groups[0]["lr"] == 0.05 and opt.param_groups[0]["amsgrad"]
    _, rloss = mlp(real, real.float64)
    for _ in range(3):
        for o, ps, fn in ((opt, params, loss_fn), (ropt, rparams, None)):
            o.zero_grad()
            if fn is None:
                r = real.tanh(real.tensor(X) @ ps[0].t() + ps[1])
                ((r @ ps[2].t() - real.tensor(Y)) ** 2).mean().backward()
            else:
                fn().backward()
            o.step()
    for p, q in zip(params, rparams):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10)


# ---------------------------------------------------------------------------
# API, on both libraries


def _params(torch, n=2):
    return [torch.tensor([1.0 + i, -2.0, 0.5], requires_grad=True) for i in range(n)]


def _loss(params):
    return sum(((p - 0.25) ** 2).sum() * (i + 1) for i, p in enumerate(params))


def _steps(opt, params, n):
    for _ in range(n):
        opt.zero_grad()
        _loss(params).backward()
        opt.step()


@pytest.mark.parametrize("optimizer,kwargs", [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.01}),
    ("AdamW", {"lr": 0.1}),
])
def test_state_dict_round_trip(torch, optimizer, kwargs):
    cls = getattr(torch.optim, optimizer)
    params = _params(torch)
    opt = cls(params, **kwargs)
    _steps(opt, params, 3)
    saved = copy.deepcopy(opt.state_dict())
    resumed = [p.detach().clone().requires_grad_() for p in params]
    opt2 = cls(resumed, lr=0.5)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == 0.1
    assert list(opt2.state_dict()["state"]) == [0, 1]
    _steps(opt, params, 2)
    _steps(opt2, resumed, 2)
    assert [p.tolist() for p in params] == [p.tolist() for p in resumed]
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1]
    if optimizer != "SGD":
        assert sd["state"][0]["step"].tolist() == 5.0
        assert sd["state"][0]["step"].dtype == torch.float32


def test_load_state_dict_errors(torch):
    opt = torch.optim.SGD(_params(torch), lr=0.1)
    sd = opt.state_dict()
    with raises(ValueError, "loaded state dict contains a parameter group that doesn't match "
                            "the size of optimizer's group"):
        torch.optim.SGD(_params(torch, 1), lr=0.1).load_state_dict(sd)
    with raises(ValueError, "loaded state dict has a different number of parameter groups"):
        torch.optim.SGD([{"params": _params(torch, 1)}, {"params": _params(torch, 1)}],
                        lr=0.1).load_state_dict(sd)


def test_zero_grad(torch):
    params = _params(torch)
    opt = torch.optim.SGD(params, lr=0.1)
    _loss(params).backward()
    g = params[0].grad
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is g and g.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert params[0].grad is None and params[1].grad is None
    opt.step()  # no gradients: nothing moves
    assert params[0].tolist() == [1.0, -2.0, 0.5]


def test_parameters_without_grad_are_skipped(torch):
    params = _params(torch, 3)
    params[2].requires_grad_(False)
    opt = torch.optim.Adam(params, lr=0.1)
    opt.zero_grad()
    (params[0] ** 2).sum().backward()  # params[1] gets no gradient
    opt.step()
    assert params[0].tolist() != [1.0, -2.0, 0.5]
    assert params[1].tolist() == [2.0, -2.0, 0.5] and params[2].tolist() == [3.0, -2.0, 0.5]
    assert list(opt.state) == [params[0]]
    assert list(opt.state_dict()["state"]) == [0]


def test_step_updates_in_place(torch):
    params = _params(torch)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    p, version = params[0], params[0]._version
    _loss(params).backward()
    assert opt.step() is None
    assert params[0] is p and p._version > version
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert [round(v, 6) for v in p.tolist()] == [0.85, -1.55, 0.45]
    buf = opt.state[p]["momentum_buffer"]
    assert type(buf) is torch.Tensor and not buf.requires_grad


def test_closure(torch):
    params = _params(torch)
    opt = torch.optim.SGD(params, lr=0.1)

    def closure():
        opt.zero_grad()
        loss = _loss(params)
        loss.backward()
        return loss

    with torch.no_grad():
        loss = opt.step(closure)
    assert loss.requires_grad and loss.item() == 22.0625


def test_defaults_and_repr(torch):
    p = _params(torch, 1)
    assert torch.optim.SGD(p).defaults == {
        "lr": 0.001, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
        "maximize": False, "foreach": None, "differentiable": False, "fused": None}
    assert torch.optim.Adam(p).defaults == {
        "lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
        "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "fused": None, "decoupled_weight_decay": False}
    assert torch.optim.AdamW(p).defaults["weight_decay"] == 0.01
    assert torch.optim.AdamW(p).defaults["decoupled_weight_decay"]
    ps = _params(torch, 2)
    opt = torch.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], lr=0.1)
    group = ("    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
             "    lr: {}\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
             "    weight_decay: 0\n")
    assert repr(opt) == ("SGD (\nParameter Group 0\n" + group.format(0.1) + "\n"
                         "Parameter Group 1\n" + group.format(0.5) + ")")
    named = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(named.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


HYPERPARAMETER_ERRORS = [
    ("SGD", {"lr": -1}, "Invalid learning rate: -1"),
    ("SGD", {"lr": 0.1, "momentum": -0.5}, "Invalid momentum value: -0.5"),
    ("SGD", {"lr": 0.1, "weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("SGD", {"lr": -1, "momentum": -1, "weight_decay": -1}, "Invalid learning rate: -1"),
    ("SGD", {"momentum": -1, "weight_decay": -1}, "Invalid momentum value: -1"),
    ("SGD", {"lr": 0.1, "nesterov": True},
     "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", {"lr": 0.1, "nesterov": True, "momentum": 0.9, "dampening": 0.1},
     "Nesterov momentum requires a momentum and zero dampening"),
    ("Adam", {"lr": -0.1}, "Invalid learning rate: -0.1"),
    ("Adam", {"eps": -1}, "Invalid epsilon value: -1"),
    ("Adam", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("Adam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    ("Adam", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("Adam", {"weight_decay": -1, "eps": -1}, "Invalid epsilon value: -1"),
    ("AdamW", {"lr": -1}, "Invalid learning rate: -1"),
    ("AdamW", {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    ("SGD", {"lr": "tensor"}, "Tensor lr must be 1-element"),
]


@pytest.mark.parametrize("optimizer,kwargs,message", HYPERPARAMETER_ERRORS)
def test_bad_hyperparameters(torch, optimizer, kwargs, message):
    if kwargs.get("lr") == "tensor":
        kwargs = dict(kwargs, lr=torch.tensor([0.1, 0.2]))
    with raises(ValueError, message):
        getattr(torch.optim, optimizer)(_params(torch), **kwargs)


def test_bad_parameter_lists(torch):
    p = _params(torch)
    with raises(TypeError, "params argument given to the optimizer should be an iterable of "
                           "Tensors or dicts, but got torch.FloatTensor"):
        torch.optim.SGD(p[0], lr=0.1)
    with raises(ValueError, "optimizer got an empty parameter list"):
        torch.optim.SGD([], lr=0.1)
    with raises(TypeError, "optimizer parameters need to be organized in ordered collections, "
                           "but the ordering of tensors in sets will change between runs. "
                           "Please use a list instead."):
        torch.optim.SGD([{"params": set(p)}], lr=0.1)
    with raises(TypeError, "optimizer can only optimize Tensors, but one of the params is "
                           "float"):
        torch.optim.SGD([1.0], lr=0.1)
    with raises(ValueError, "can't optimize a non-leaf Tensor"):
        torch.optim.SGD([p[0] * 2], lr=0.1)
    with raises(ValueError, "some parameters appear in more than one parameter group"):
        torch.optim.SGD([{"params": p}, {"params": p[:1]}], lr=0.1)
    with raises(ValueError, "parameter group didn't specify a value of required optimization "
                            "parameter lr"):
        required = importlib.import_module(torch.optim.__name__ + ".optimizer").required
        torch.optim.Optimizer(p, {"lr": required})
    opt = torch.optim.SGD(p[:1], lr=0.1)
    with raises(ValueError, "some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": p})
    with pytest.warns(UserWarning) as record:
        torch.optim.SGD([p[0], p[0]], lr=0.1)
    assert str(record[0].message) == (
        "optimizer contains a parameter group with duplicate parameters; in future, this will "
        "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information")


# ---------------------------------------------------------------------------
# learning-rate schedulers

SCHEDULERS = [
    ("StepLR", lambda S, o: S.StepLR(o, step_size=3, gamma=0.5)),
    ("StepLR-default-gamma", lambda S, o: S.StepLR(o, 2)),
    ("MultiStepLR", lambda S, o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", lambda S, o: S.ExponentialLR(o, gamma=0.9)),
    ("LambdaLR", lambda S, o: S.LambdaLR(o, lambda epoch: 1 / (epoch + 1))),
    ("LambdaLR-per-group", lambda S, o: S.LambdaLR(o, [lambda e: 0.5 ** e, lambda e: e + 1])),
    ("CosineAnnealingLR", lambda S, o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001)),
    ("CosineAnnealingLR-no-min", lambda S, o: S.CosineAnnealingLR(o, T_max=5)),
]


def lr_sequence(T, make, epochs=False, optimizer="SGD"):
    params = [T.zeros(1, requires_grad=True), T.zeros(1, requires_grad=True)]
    opt = getattr(T.optim, optimizer)([{"params": params[:1]},
                                       {"params": params[1:], "lr": 0.01}], lr=0.1)
    sched = make(T.optim.lr_scheduler, opt)
    out = [sched.get_last_lr()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # step(epoch) is deprecated
        for epoch in range(1, 13):
            opt.step()
            sched.step(epoch) if epochs else sched.step()
            out.append(sched.get_last_lr() + [g["lr"] for g in opt.param_groups])
    return out, sched


@pytest.mark.parametrize("epochs", [False, True], ids=["step", "step-epoch"])
@pytest.mark.parametrize("name,make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_matches_torch(real, name, make, epochs):
    ours, sched = lr_sequence(tt, make, epochs)
    theirs, rsched = lr_sequence(real, make, epochs)
    assert ours == theirs
    assert sched.base_lrs == rsched.base_lrs and sched.last_epoch == rsched.last_epoch


def test_scheduler_with_adam_matches_torch(real):
    make = SCHEDULERS[0][1]
    assert lr_sequence(tt, make, optimizer="Adam")[0] == lr_sequence(real, make,
                                                                     optimizer="Adam")[0]


def test_scheduler_warnings(torch):
    S = torch.optim.lr_scheduler

    def run(actions):
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        sched = S.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for a in actions:
                if a == "opt":
                    opt.step()
                elif a == "sched":
                    sched.step()
                elif a == "epoch":
                    sched.step(3)
                else:
                    sched.get_lr()
        return [str(w.message)[:60] for w in caught]

    assert run(["opt", "sched", "opt", "sched"]) == []
    assert run(["sched", "opt"]) == ["Detected call of `lr_scheduler.step()` before "
                                     "`optimizer.ste"]
    assert run(["opt", "epoch"]) == ["The epoch parameter in `scheduler.step()` was not "
                                     "necessary "]
    assert run(["get"]) == ["To get the last learning rate computed by the scheduler, ple"]


def test_scheduler_state_dict_and_resume(torch):
    S = torch.optim.lr_scheduler
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched = S.StepLR(opt, 2, 0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    sd = sched.state_dict()
    assert {"base_lrs", "last_epoch", "step_size", "gamma", "_last_lr",
            "_step_count"} <= set(sd) and "optimizer" not in sd
    opt2 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched2 = S.StepLR(opt2, 2, 0.5)
    sched2.load_state_dict(sd)
    assert sched2.last_epoch == 3 and sched2.get_last_lr() == [0.05]
    assert opt.param_groups[0]["initial_lr"] == 0.1
    resumed = S.StepLR(opt, 2, 0.5, last_epoch=3)
    assert resumed.last_epoch == 4 and resumed.base_lrs == [0.1]


def test_scheduler_errors(torch):
    S = torch.optim.lr_scheduler
    with raises(TypeError, "int is not an Optimizer"):
        S.StepLR(3, 2)
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    with raises(KeyError, "\"param 'initial_lr' is not specified in param_groups[0] when "
                          "resuming scheduler with last_epoch >= 0.\\nThis typically happens "
                          "when:\\n1. You're trying to resume training from a checkpoint but "
                          "haven't properly loaded the optimizer state\\n2. You're using "
                          "last_epoch >= 0 for a fresh training run (not recommended)\""):
        S.StepLR(opt, 2, last_epoch=3)
    with raises(ValueError, "Expected 1 lr_lambdas, but got 2"):
        S.LambdaLR(opt, [lambda e: 1, lambda e: 2])


def test_cosine_annealing_closed_form(torch):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    lrs = []
    for _ in range(4):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    expected = [(1 + math.cos(math.pi * t / 4)) / 2 for t in range(1, 5)]
    np.testing.assert_allclose(lrs, expected, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cfg", [
    ("Adam", {"lr": 0.05}), ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.3}), ("Adam", {"lr": 0.02, "maximize": True}),
], ids=["adam", "adam-l2", "adamw", "adam-maximize"])
def test_fused_adam_step_is_bitwise_the_numpy_formulas(monkeypatch, cfg, dtype):
    # contiguous float parameters take one Numba pass per step; it must round
    # every operation as the NumPy formulas (PyTorch's order) do
    from tracegrad.torch.optim import optimizer

    name, kwargs = cfg
    fused, _, fparams = train(tt, "mlp", name, dict(kwargs), dtype)
    monkeypatch.setattr(optimizer, "_fusable", lambda *arrays: False)
    plain, _, pparams = train(tt, "mlp", name, dict(kwargs), dtype)
    for step_f, step_p in zip(fused, plain):
        for a, b in zip(step_f, step_p):
            np.testing.assert_array_equal(a, b)
    for a, b in zip(fparams, pparams):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
