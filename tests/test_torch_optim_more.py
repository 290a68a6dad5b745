"""tracegrad.torch.optim (RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, ASGD, LBFGS, the
remaining schedulers, step hooks) and tracegrad.torch.nn.utils against PyTorch 2.13.

* Trajectories (fixture ``real``, skipped without PyTorch): the same small
  problems are optimized by both libraries from identical parameters and the
  parameters compared after every step (float64 to 1e-10, float32 loosely),
  with the optimizer state (keys, dtypes, values) and ``state_dict()``
  structure; L-BFGS's iterates on the Rosenbrock function; the learning
  rates (and momenta) of every scheduler, step by step.
* API tests (fixture ``torch``) run once with each library against
  expectations hard-coded from PyTorch 2.13 (messages, defaults, hooks,
  clipping values).
"""
import copy
import math
import re
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


def import_torch():
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
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}

rng = np.random.default_rng(1)
A = rng.standard_normal((6, 4))
B = rng.standard_normal(6)
P0 = rng.standard_normal(4)
W1 = rng.standard_normal((5, 3)) * 0.7
B1 = rng.standard_normal(5) * 0.1
W2 = rng.standard_normal((1, 5)) * 0.7
X = rng.standard_normal((8, 3))
Y = rng.standard_normal((8, 1))


def quadratic(T, dtype):
    """``0.5 |A p + c - b|**2 + 0.01 sum(p**4)`` (a vector and a scalar parameter)."""
    a, b = T.tensor(A, dtype=dtype), T.tensor(B, dtype=dtype)
    params = [T.tensor(P0, dtype=dtype, requires_grad=True),
              T.tensor(0.5, dtype=dtype, requires_grad=True)]

    def loss():
        r = a @ params[0] + params[1] - b
        return 0.5 * (r * r).sum() + 0.01 * (params[0] ** 4).sum()

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


def train(T, problem, optimizer, kwargs, dtype, steps=12, groups=None):
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
    assert len(ours) == len(theirs)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for i, (p, q) in enumerate(zip(a, b)):
            assert p.dtype == q.dtype
            np.testing.assert_allclose(p, q, err_msg=f"step {step + 1}, parameter {i}",
                                       **TOL[dtype])


def assert_same_state(opt, params, ropt, rparams, dtype):
    assert [p in opt.state for p in params] == [p in ropt.state for p in rparams]
    for p, q in zip(params, rparams):
        if p not in opt.state:
            continue
        s, r = opt.state[p], ropt.state[q]
        assert list(s) == list(r)
        for key in s:
            assert type(s[key]) is tt.Tensor, key
            assert str(s[key].dtype) == str(r[key].dtype), key
            assert tuple(s[key].shape) == tuple(r[key].shape), key
            np.testing.assert_allclose(s[key].numpy(), r[key].numpy(), err_msg=key, **TOL[dtype])


CONFIGS = [
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.005, "alpha": 0.9, "eps": 1e-4}),
    ("RMSprop", {"lr": 0.005, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.005, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.002, "momentum": 0.5, "centered": True, "weight_decay": 0.05,
                 "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1,
                 "initial_accumulator_value": 0.2}),
    ("Adagrad", {"lr": 0.05, "eps": 1e-3, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"maximize": True, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "betas": (0.5, 0.8), "weight_decay": 0.1, "eps": 1e-3}),
    ("Adamax", {"lr": 0.01, "maximize": True}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "betas": (0.8, 0.99)}),
    ("NAdam", {"lr": 0.01, "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "betas": (0.9, 0.6), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "betas": (0.8, 0.7), "weight_decay": 0.1,
               "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5), "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 4, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.01, "t0": 2, "maximize": True}),
    ("RMSprop", {"lr": "tensor", "momentum": 0.9}),
]


def _kwargs_for(T, kwargs):
    return {k: T.tensor(0.005) if v == "tensor" else v for k, v in kwargs.items()}


def _config_id(cfg):
    return cfg[0] + "-" + "-".join(f"{k}={v}" for k, v in cfg[1].items())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("problem", ["quadratic", "mlp"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=[_config_id(c) for c in CONFIGS])
def test_trajectory_matches_torch(real, cfg, problem, dtype):
    name, kwargs = cfg
    ours, opt, params = train(tt, problem, name, _kwargs_for(tt, kwargs), dtype)
    theirs, ropt, rparams = train(real, problem, name, _kwargs_for(real, kwargs), dtype)
    assert_same_history(ours, theirs, dtype)
    assert_same_state(opt, params, ropt, rparams, dtype)
    assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in params)


def _groups(params):
    return [{"params": params[:1]},
            {"params": params[1:], "lr": 0.02, "weight_decay": 0.2, "maximize": False}]


@pytest.mark.parametrize("name,kwargs", [
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}), ("Adagrad", {"lr": 0.1}),
    ("Adadelta", {}), ("Adamax", {"lr": 0.05}), ("NAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05}), ("ASGD", {"lr": 0.05, "t0": 3}),
])
def test_param_groups_and_state_dict_match_torch(real, name, kwargs):
    ours, opt, _ = train(tt, "mlp", name, kwargs, "float64", steps=6, groups=_groups)
    theirs, ropt, _ = train(real, "mlp", name, kwargs, "float64", steps=6, groups=_groups)
    assert_same_history(ours, theirs, "float64")
    sd, rsd = opt.state_dict(), ropt.state_dict()
    assert sd["param_groups"] == rsd["param_groups"]
    assert list(sd["state"]) == list(rsd["state"])
    for i in sd["state"]:
        assert list(sd["state"][i]) == list(rsd["state"][i])
        for key, v in sd["state"][i].items():
            r = rsd["state"][i][key]
            assert str(v.dtype) == str(r.dtype) and tuple(v.shape) == tuple(r.shape)
            np.testing.assert_allclose(v.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,kwargs", [
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1}), ("Adadelta", {"weight_decay": 0.1}),
    ("Adamax", {"lr": 0.05}), ("NAdam", {"lr": 0.05}), ("RAdam", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 2}),
])
def test_state_dict_round_trip(torch, name, kwargs):
    cls = getattr(torch.optim, name)
    params = [torch.tensor([1.0, -2.0, 0.5], requires_grad=True),
              torch.tensor([0.3, 0.7], requires_grad=True)]

    def steps(opt, ps, n):
        for _ in range(n):
            opt.zero_grad()
            (((ps[0] - 0.25) ** 2).sum() + (ps[1] ** 4).sum()).backward()
            opt.step()

    opt = cls(params, **kwargs)
    steps(opt, params, 3)
    resumed = [p.detach().clone().requires_grad_() for p in params]
    opt2 = cls(resumed, lr=0.5)
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    assert opt2.param_groups[0]["lr"] == kwargs.get("lr", opt.defaults["lr"])
    steps(opt, params, 3)
    steps(opt2, resumed, 3)
    assert [p.tolist() for p in params] == [p.tolist() for p in resumed]
    state = opt.state_dict()["state"][0]
    assert state["step"].dtype == torch.float32 and state["step"].tolist() == 6.0


def test_adagrad_state_exists_before_step(torch):
    p = [torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)]
    opt = torch.optim.Adagrad(p, initial_accumulator_value=0.5)
    sd = opt.state_dict()["state"]
    assert list(sd) == [0, 1] and list(sd[0]) == ["step", "sum"]
    assert sd[1]["sum"].tolist() == [0.5, 0.5, 0.5] and sd[0]["step"].tolist() == 0.0


DEFAULTS = {
    "RMSprop": {"lr": 0.01, "momentum": 0, "alpha": 0.99, "eps": 1e-08, "centered": False,
                "weight_decay": 0, "capturable": False, "foreach": None, "maximize": False,
                "differentiable": False},
    "Adagrad": {"lr": 0.01, "lr_decay": 0, "eps": 1e-10, "weight_decay": 0,
                "initial_accumulator_value": 0, "foreach": None, "maximize": False,
                "differentiable": False, "fused": None},
    "Adadelta": {"lr": 1.0, "rho": 0.9, "eps": 1e-06, "weight_decay": 0, "maximize": False,
                 "capturable": False, "foreach": None, "differentiable": False},
    "Adamax": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
               "foreach": None, "maximize": False, "differentiable": False,
               "capturable": False},
    "NAdam": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
              "momentum_decay": 0.004, "decoupled_weight_decay": False, "maximize": False,
              "foreach": None, "capturable": False, "differentiable": False},
    "RAdam": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
              "maximize": False, "foreach": None, "capturable": False,
              "decoupled_weight_decay": False, "differentiable": False},
    "ASGD": {"lr": 0.01, "lambd": 0.0001, "alpha": 0.75, "t0": 1000000.0, "weight_decay": 0,
             "foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "LBFGS": {"lr": 1, "max_iter": 20, "max_eval": 25, "tolerance_grad": 1e-07,
              "tolerance_change": 1e-09, "history_size": 100, "line_search_fn": None},
}


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_defaults(torch, name):
    opt = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    assert opt.defaults == DEFAULTS[name]
    assert list(opt.defaults) == list(DEFAULTS[name])


HYPERPARAMETER_ERRORS = [
    ("RMSprop", {"lr": -1}, "Invalid learning rate: -1"),
    ("RMSprop", {"eps": -1}, "Invalid epsilon value: -1"),
    ("RMSprop", {"momentum": -1}, "Invalid momentum value: -1"),
    ("RMSprop", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("RMSprop", {"alpha": -1}, "Invalid alpha value: -1"),
    ("Adagrad", {"lr_decay": -1}, "Invalid lr_decay value: -1"),
    ("Adagrad", {"initial_accumulator_value": -1},
     "Invalid initial_accumulator_value value: -1"),
    ("Adagrad", {"eps": -1}, "Invalid epsilon value: -1"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"momentum_decay": -1}, "Invalid momentum_decay value: -1"),
    ("NAdam", {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
    ("RAdam", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("ASGD", {"lr": -0.5}, "Invalid learning rate: -0.5"),
    ("LBFGS", {"lr": -1}, "Invalid learning rate: -1"),
]


@pytest.mark.parametrize("name,kwargs,message", HYPERPARAMETER_ERRORS)
def test_bad_hyperparameters(torch, name, kwargs, message):
    with raises(ValueError, message):
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs)


# ---------------------------------------------------------------------------
# L-BFGS


def rosenbrock_run(T, kwargs, dtype, steps=4):
    """Iterates (after each ``step``) and closure evaluations of L-BFGS on 2-D Rosenbrock."""
    x = T.tensor([-1.5, 2.0], dtype=getattr(T, dtype), requires_grad=True)
    opt = T.optim.LBFGS([x], **kwargs)
    evaluations = []

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        evaluations.append(x.detach().numpy().copy())
        return loss

    iterates, losses = [], []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
        iterates.append(x.detach().numpy().copy())
    return np.array(iterates), np.array(evaluations), losses, opt


@pytest.mark.parametrize("kwargs", [
    {}, {"lr": 0.5, "history_size": 3}, {"lr": 0.1, "max_iter": 4, "tolerance_change": 1e-5},
    {"line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe", "max_iter": 7, "history_size": 2},
], ids=["plain", "history3", "short", "wolfe", "wolfe-history2"])
def test_lbfgs_rosenbrock_matches_torch(real, kwargs):
    ours, evals, losses, opt = rosenbrock_run(tt, kwargs, "float64")
    theirs, revals, rlosses, ropt = rosenbrock_run(real, kwargs, "float64")
    assert len(evals) == len(revals)
    np.testing.assert_allclose(evals, revals, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(losses, rlosses, rtol=1e-10)
    s, r = opt.state_dict()["state"][0], ropt.state_dict()["state"][0]
    assert list(s) == list(r)
    assert {k: type(v).__name__ for k, v in s.items()} == {
        k: type(v).__name__ for k, v in r.items()}
    assert s["func_evals"] == r["func_evals"] and s["n_iter"] == r["n_iter"]
    assert len(s["old_dirs"]) == len(r["old_dirs"])
    np.testing.assert_allclose(s["d"].numpy(), r["d"].numpy(), rtol=1e-8, atol=1e-12)
    assert opt.state_dict()["param_groups"] == ropt.state_dict()["param_groups"]


def test_lbfgs_converges_float32(real):
    ours, *_ = rosenbrock_run(tt, {"line_search_fn": "strong_wolfe"}, "float32", steps=5)
    theirs, *_ = rosenbrock_run(real, {"line_search_fn": "strong_wolfe"}, "float32", steps=5)
    np.testing.assert_allclose(ours[-1], [1.0, 1.0], atol=1e-3)
    np.testing.assert_allclose(ours[-1], theirs[-1], atol=1e-3)


def test_lbfgs_api(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with raises(ValueError, "LBFGS doesn't support per-parameter options (parameter groups)"):
        torch.optim.LBFGS([{"params": [x]}, {"params": [torch.zeros(1, requires_grad=True)]}])
    opt = torch.optim.LBFGS([x], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((x - 3) ** 2).sum()
        loss.backward()
        return loss

    with raises(RuntimeError, "only 'strong_wolfe' is supported"):
        opt.step(closure)
    opt = torch.optim.LBFGS([x], max_iter=50)
    loss = opt.step(closure)
    assert loss.item() == 5.0 and loss.requires_grad
    assert x.tolist() == pytest.approx([3.0, 3.0], abs=1e-5)
    assert x.is_leaf and x.grad_fn is None
    # state_dict round trip: a resumed optimizer continues identically
    def run(z, o, n):
        def closure():
            o.zero_grad()
            loss = (1 - z[0]) ** 2 + 100 * (z[1] - z[0] ** 2) ** 2
            loss.backward()
            return loss

        for _ in range(n):
            o.step(closure)

    z = torch.tensor([-1.0, 1.5], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([z], max_iter=3, line_search_fn="strong_wolfe")
    run(z, opt, 2)
    z2 = z.detach().clone().requires_grad_()
    opt2 = torch.optim.LBFGS([z2], max_iter=3, line_search_fn="strong_wolfe")
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    run(z, opt, 2)
    run(z2, opt2, 2)
    assert z.tolist() == z2.tolist()
    assert opt.state[z]["n_iter"] == opt2.state[z2]["n_iter"] == 7
    # an optimum already reached: one evaluation, nothing stored but the counters
    y = torch.tensor([3.0, 3.0], requires_grad=True)
    opt = torch.optim.LBFGS([y])
    opt.step(lambda: ((y - 3) ** 2).sum().backward() or ((y - 3) ** 2).sum())
    assert opt.state[y] == {"func_evals": 1, "n_iter": 0}


# ---------------------------------------------------------------------------
# step hooks


def test_step_hooks(torch):
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.RMSprop([p], lr=0.1)
    calls = []

    def pre(o, args, kwargs):  # args start with the optimizer, as in PyTorch
        calls.append(("pre", o is opt and args[0] is opt, args[1:], kwargs))

    def post(o, args, kwargs):
        calls.append(("post", o is opt and args[0] is opt, args[1:], kwargs))

    h1 = opt.register_step_pre_hook(pre)
    h2 = opt.register_step_post_hook(post)
    p.grad = torch.ones(2)
    opt.step()
    assert calls == [("pre", True, (), {}), ("post", True, (), {})]
    closure = lambda: 7.0  # noqa: E731
    assert opt.step(closure) == 7.0
    assert calls[2:] == [("pre", True, (closure,), {}), ("post", True, (closure,), {})]
    h1.remove()
    h2.remove()
    opt.step()
    assert len(calls) == 4

    def swap(o, args, kwargs):
        return (o,), {"closure": lambda: 3.0}

    opt.register_step_pre_hook(swap)
    assert opt.step() == 3.0
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5\.$"):
        opt.step()


def test_step_hooks_run_once_for_sgd_and_lbfgs(torch):
    for make in (lambda p: torch.optim.SGD([p], lr=0.1),
                 lambda p: torch.optim.LBFGS([p], max_iter=2)):
        p = torch.tensor([1.0, 2.0], requires_grad=True)
        opt = make(p)
        count = []
        opt.register_step_pre_hook(lambda o, a, k: count.append("pre"))
        opt.register_step_post_hook(lambda o, a, k: count.append("post"))

        def closure():
            opt.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        assert count == ["pre", "post"]


# ---------------------------------------------------------------------------
# schedulers


SCHEDULERS = [
    ("ConstantLR", lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4), "SGD"),
    ("ConstantLR-default", lambda S, o: S.ConstantLR(o), "SGD"),
    ("LinearLR", lambda S, o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=6),
     "SGD"),
    ("LinearLR-default", lambda S, o: S.LinearLR(o), "SGD"),
    ("PolynomialLR", lambda S, o: S.PolynomialLR(o, total_iters=8, power=2.0), "SGD"),
    ("MultiplicativeLR", lambda S, o: S.MultiplicativeLR(o, lambda e: 0.9), "SGD"),
    ("CosineAnnealingWarmRestarts",
     lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), "SGD"),
    ("CosineAnnealingWarmRestarts-T_mult1",
     lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=4), "SGD"),
    ("CyclicLR", lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=3,
                                         step_size_down=2), "SGD-momentum"),
    ("CyclicLR-triangular2", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                     mode="triangular2",
                                                     cycle_momentum=False), "SGD"),
    ("CyclicLR-exp_range-adam", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2,
                                                        mode="exp_range", gamma=0.9), "Adam"),
    ("CyclicLR-scale_fn", lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                  scale_fn=lambda x: 1 / (1 + x),
                                                  scale_mode="iterations",
                                                  cycle_momentum=False), "SGD"),
    ("OneCycleLR", lambda S, o: S.OneCycleLR(o, max_lr=0.5, total_steps=20), "SGD-momentum"),
    ("OneCycleLR-three-phase-linear-adam",
     lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 0.3], epochs=4, steps_per_epoch=5,
                               three_phase=True, anneal_strategy="linear"), "Adam"),
    ("OneCycleLR-no-momentum",
     lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=25, pct_start=0.5,
                               cycle_momentum=False, div_factor=10.0,
                               final_div_factor=100.0), "SGD"),
    ("SequentialLR", lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.8)], milestones=[4]), "SGD"),
    ("SequentialLR-three", lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, 0.5, 2), S.CosineAnnealingLR(o, 5), S.StepLR(o, 2, 0.5)],
        milestones=[3, 9]), "SGD"),
    ("ChainedScheduler", lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, 0.5, 3), S.ExponentialLR(o, 0.9)]), "SGD"),
]


def lr_sequence(T, make, optimizer, epochs=19):
    params = [T.zeros(1, requires_grad=True), T.zeros(1, requires_grad=True)]
    kwargs = {"momentum": 0.9} if optimizer == "SGD-momentum" else {}
    cls = T.optim.Adam if optimizer == "Adam" else T.optim.SGD
    opt = cls([{"params": params[:1]}, {"params": params[1:], "lr": 0.01}], lr=0.1, **kwargs)
    sched = make(T.optim.lr_scheduler, opt)
    out = [(sched.get_last_lr(), [g["lr"] for g in opt.param_groups])]
    for _ in range(epochs):
        opt.step()
        sched.step()
        out.append((sched.get_last_lr(), [(g["lr"], g.get("momentum"), g.get("betas"))
                                          for g in opt.param_groups]))
    return out, sched, opt


@pytest.mark.parametrize("name,make,optimizer", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_matches_torch(real, name, make, optimizer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no call-order or get_lr warnings expected
        ours, sched, opt = lr_sequence(tt, make, optimizer)
        theirs, rsched, ropt = lr_sequence(real, make, optimizer)
    assert ours == theirs
    assert list(sched.state_dict()) == list(rsched.state_dict())
    assert getattr(sched, "last_epoch", None) == getattr(rsched, "last_epoch", None)
    assert [sorted(g) for g in opt.param_groups] == [sorted(g) for g in ropt.param_groups]


@pytest.mark.parametrize("name,make", [
    ("ConstantLR", lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=3)),
    ("LinearLR", lambda S, o: S.LinearLR(o, start_factor=0.5, total_iters=4)),
    ("PolynomialLR", lambda S, o: S.PolynomialLR(o, total_iters=6, power=0.5)),
    ("CosineAnnealingWarmRestarts",
     lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3)),
])
def test_scheduler_step_epoch_matches_torch(real, name, make):
    def run(T):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        sched = make(T.optim.lr_scheduler, opt)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [1, 2, 5, 3, 7, 0.5, 2.5, 10]:
                if name != "CosineAnnealingWarmRestarts" and epoch != int(epoch):
                    continue
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr())
        return out

    assert run(tt) == run(real)


PLATEAU = [
    {}, {"mode": "max", "factor": 0.5, "patience": 1},
    {"patience": 0, "threshold": 0.1, "threshold_mode": "abs", "cooldown": 2},
    {"mode": "max", "threshold_mode": "abs", "patience": 2, "min_lr": [0.05, 0.001]},
    {"patience": 1, "factor": 0.5, "min_lr": 0.02, "eps": 0.001},
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=[str(k) for k in PLATEAU])
def test_reduce_lr_on_plateau_matches_torch(real, kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.97, 0.85, 0.849, 0.86, 0.9, 0.9, 0.91, 1.2, 1.3, 0.7,
               0.71, 0.72, 0.73, 0.74, 0.75, 0.76, 0.77, 0.78, 0.79, 0.8, 0.81]

    def run(T):
        params = [T.zeros(1, requires_grad=True), T.zeros(1, requires_grad=True)]
        opt = T.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.01}], lr=0.1)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        out = [sched.get_last_lr()]
        for m in metrics:
            opt.step()
            sched.step(T.tensor(m) if m > 1.0 else m)
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter,
                        sched.best, sched.in_cooldown))
        return out, sched

    ours, sched = run(tt)
    theirs, rsched = run(real)
    assert ours == theirs
    assert list(sched.state_dict()) == list(rsched.state_dict())


def test_scheduler_state_dict_round_trip(torch):
    S = torch.optim.lr_scheduler

    def build():
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        return opt, [
            S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=3), S.ExponentialLR(opt, 0.8)],
                           milestones=[4]),
        ]

    def steps(opt, scheds, n):
        out = []
        for _ in range(n):
            opt.step()
            for s in scheds:
                s.step()
            out.append(opt.param_groups[0]["lr"])
        return out

    opt, scheds = build()
    steps(opt, scheds, 3)
    saved = [copy.deepcopy(s.state_dict()) for s in scheds]
    assert len(saved[0]["_schedulers"]) == 2
    expected = steps(opt, scheds, 5)
    opt2, scheds2 = build()
    for s, sd in zip(scheds2, saved):
        s.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = saved[0]["_last_lr"][0]
    assert steps(opt2, scheds2, 5) == expected

    for make in (lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2),
                 lambda o: S.OneCycleLR(o, 0.5, total_steps=10),
                 lambda o: S.ReduceLROnPlateau(o, patience=0),
                 lambda o: S.CosineAnnealingWarmRestarts(o, 3, 2)):
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        sched = make(opt)
        for i in range(4):
            opt.step()
            sched.step(1.0 / (i + 1)) if isinstance(sched, S.ReduceLROnPlateau) else sched.step()
        sd = copy.deepcopy(sched.state_dict())
        assert "optimizer" not in sd
        opt2 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        sched2 = make(opt2)
        sched2.load_state_dict(sd)
        assert sched2.last_epoch == sched.last_epoch and sched2.get_last_lr() == sched.get_last_lr()


def test_scheduler_errors(torch):
    S = torch.optim.lr_scheduler
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    adam = torch.optim.Adagrad([torch.zeros(1, requires_grad=True)], lr=0.1)
    cases = [
        (ValueError, "Constant multiplicative factor expected to be between 0 and 1.",
         lambda: S.ConstantLR(opt, factor=2)),
        (ValueError, "Starting multiplicative factor expected to be greater than 0 and less "
                     "or equal to 1.", lambda: S.LinearLR(opt, start_factor=0)),
        (ValueError, "Ending multiplicative factor expected to be between 0 and 1.",
         lambda: S.LinearLR(opt, end_factor=1.5)),
        (ValueError, "Expected positive integer T_0, but got 0",
         lambda: S.CosineAnnealingWarmRestarts(opt, 0)),
        (ValueError, "Expected integer T_mult >= 1, but got 1.5",
         lambda: S.CosineAnnealingWarmRestarts(opt, 2, 1.5)),
        (ValueError, "mode is invalid and scale_fn is None",
         lambda: S.CyclicLR(opt, 0.1, 1.0, mode="square")),
        (ValueError, "optimizer must support momentum or beta1 with `cycle_momentum` option "
                     "enabled", lambda: S.CyclicLR(adam, 0.1, 1.0)),
        (ValueError, "max_lr must have the same length as optimizer.param_groups. max_lr has "
                     "2 values, param_groups has 1.",
         lambda: S.CyclicLR(opt, 0.1, [1.0, 2.0], cycle_momentum=False)),
        (ValueError, "You must define either total_steps OR (epochs AND steps_per_epoch)",
         lambda: S.OneCycleLR(opt, 0.1)),
        (ValueError, "Expected positive integer total_steps, but got 0",
         lambda: S.OneCycleLR(opt, 0.1, total_steps=0)),
        (ValueError, "Expected float between 0 and 1 pct_start, but got 1",
         lambda: S.OneCycleLR(opt, 0.1, total_steps=5, pct_start=1, cycle_momentum=False)),
        (ValueError, "anneal_strategy must be one of 'cos' or 'linear', instead got exp",
         lambda: S.OneCycleLR(opt, 0.1, total_steps=5, anneal_strategy="exp",
                              cycle_momentum=False)),
        (ValueError, "Factor should be < 1.0.", lambda: S.ReduceLROnPlateau(opt, factor=1.0)),
        (ValueError, "mode up is unknown!", lambda: S.ReduceLROnPlateau(opt, mode="up")),
        (ValueError, "threshold mode x is unknown!",
         lambda: S.ReduceLROnPlateau(opt, threshold_mode="x")),
        (ValueError, "expected 1 min_lrs, got 2", lambda: S.ReduceLROnPlateau(opt, min_lr=[0, 0])),
        (TypeError, "int is not an Optimizer", lambda: S.ReduceLROnPlateau(3)),
        (ValueError, "SequentialLR expects at least one scheduler, but got no scheduler.",
         lambda: S.SequentialLR(opt, [], [])),
        (ValueError, "ChainedScheduler expects at least one scheduler to be chained, but got no "
                     "scheduler.", lambda: S.ChainedScheduler([])),
        (TypeError, "SequentialLR at index 0 should have `optimizer` as its attribute.",
         lambda: S.SequentialLR(opt, [3], [])),
        (ValueError, "Sequential Schedulers expects number of schedulers provided to be one "
                     "more than the number of milestone points, but got number of schedulers 1 "
                     "and the number of milestones to be equal to 1",
         lambda: S.SequentialLR(opt, [S.ConstantLR(opt)], [2])),
        (ValueError, "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it "
                     "requires additional kwargs to be specified when calling `step`, but got "
                     "one at index 0 in the given schedulers sequence.",
         lambda: S.ChainedScheduler([S.ReduceLROnPlateau(opt)])),
    ]
    for exc, message, fn in cases:
        with raises(exc, message):
            fn()
    sched = S.OneCycleLR(opt, 0.1, total_steps=2, cycle_momentum=False)
    opt.step()
    sched.step()
    sched.step()
    with raises(ValueError, "Tried to step 3 times. The specified number of total steps is 2"):
        sched.step()


# ---------------------------------------------------------------------------
# nn.utils


def _with_grads(T, grads, dtypes=None):
    params = []
    for i, g in enumerate(grads):
        dtype = getattr(T, dtypes[i]) if dtypes else T.float32
        p = T.zeros(len(g), dtype=dtype, requires_grad=True)
        p.grad = T.tensor(g, dtype=dtype)
        params.append(p)
    return params


GRADS = [[3.0, -4.0, 0.0], [1.0, 2.0], [-0.5]]


@pytest.mark.parametrize("norm_type,max_norm", [
    (2.0, 1.0), (1, 2.0), (math.inf, 1.0), ("inf", 0.5), (3.0, 0.1), (2.0, 100.0),
    (0, 1.0), (-math.inf, 0.1),
])
def test_clip_grad_norm_matches_torch(real, norm_type, max_norm):
    for dtypes in (None, ["float64", "float32", "float64"]):
        ours = _with_grads(tt, GRADS, dtypes)
        theirs = _with_grads(real, GRADS, dtypes)
        total = tt.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
        rtotal = real.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
        assert type(total) is tt.Tensor and total.shape == () and not total.requires_grad
        assert str(total.dtype) == str(rtotal.dtype)
        np.testing.assert_allclose(total.item(), rtotal.item(), rtol=1e-6)
        for p, q in zip(ours, theirs):
            assert str(p.grad.dtype) == str(q.grad.dtype)
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_api(torch):
    U = torch.nn.utils
    params = _with_grads(torch, GRADS)
    params.append(torch.zeros(2, requires_grad=True))  # no grad: skipped
    total = U.clip_grad_norm_(params, 1.0)
    assert total.dtype == torch.float32 and total.item() == pytest.approx(math.sqrt(30.25))
    assert math.sqrt(sum(float((p.grad ** 2).sum()) for p in params[:3])) == pytest.approx(
        1.0, abs=1e-6)
    assert params[3].grad is None
    single = _with_grads(torch, [[3.0, 4.0]])[0]
    assert U.clip_grad_norm_(single, 10.0).item() == 5.0
    assert single.grad.tolist() == pytest.approx([3.0, 4.0])  # scaled by min(1, ...) = 1
    empty = U.clip_grad_norm_([torch.zeros(1, requires_grad=True)], 1.0)
    assert empty.item() == 0.0 and empty.dtype == torch.float32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        U.clip_grad_norm_((p for p in []), 1.0)
    assert [str(w.message) for w in caught] == [
        "`parameters` is an empty generator, no gradient clipping will occur."]
    bad = _with_grads(torch, [[3.0, float("nan")]])
    for norm_type, shown in [(2, "2.0"), (1, "1.0"), ("inf", "inf")]:
        with raises(RuntimeError, f"The total norm of order {shown} for gradients from "
                                  "`parameters` is non-finite, so it cannot be clipped. To "
                                  "disable this error and scale the gradients by the "
                                  "non-finite norm anyway, set `error_if_nonfinite=False`"):
            U.clip_grad_norm_(bad, 1.0, norm_type, error_if_nonfinite=True)
    assert bad[0].grad.tolist()[0] == 3.0  # untouched by the failed call
    assert math.isnan(U.clip_grad_norm_(bad, 1.0).item())
    assert all(math.isnan(v) for v in bad[0].grad.tolist())
    inf = _with_grads(torch, [[float("inf"), 1.0]])
    with pytest.raises(RuntimeError, match="non-finite"):
        U.clip_grad_norm_(inf, 1.0, error_if_nonfinite=True)
    assert U.clip_grad_norm_(_with_grads(torch, [[1.0]]), 1.0, foreach=True).item() == 1.0


def test_total_norm_and_clip_with_norm(torch):
    U = torch.nn.utils
    params = _with_grads(torch, GRADS)
    total = U.get_total_norm([p.grad for p in params], norm_type=1.0)
    assert total.item() == 10.5
    U.clip_grads_with_norm_(params, 2.1, total)
    assert params[0].grad.tolist() == pytest.approx([0.6, -0.8, 0.0], rel=1e-5)
    assert U.get_total_norm([]).item() == 0.0


def test_clip_grad_value(torch):
    params = _with_grads(torch, GRADS)
    assert torch.nn.utils.clip_grad_value_(params, 1.5) is None
    assert [p.grad.tolist() for p in params] == [[1.5, -1.5, 0.0], [1.0, 1.5], [-0.5]]
    single = _with_grads(torch, [[-3.0, 0.2]])[0]
    torch.nn.utils.clip_grad_value_(single, 0.1)
    assert single.grad.tolist() == pytest.approx([-0.1, 0.1])


def test_parameters_to_vector_and_back(torch):
    U = torch.nn.utils
    model = torch.nn.Linear(3, 2)
    vec = U.parameters_to_vector(model.parameters())
    assert vec.shape == (8,) and vec.grad_fn.name() == "CatBackward0"
    assert vec.tolist() == model.weight.reshape(-1).tolist() + model.bias.tolist()
    vec.sum().backward()
    assert model.weight.grad.tolist() == [[1.0] * 3] * 2
    new = torch.arange(8, dtype=torch.float32)
    U.vector_to_parameters(new, model.parameters())
    assert model.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert model.bias.tolist() == [6.0, 7.0] and model.weight.requires_grad
    with raises(TypeError, "expected torch.Tensor, but got: list"):
        U.vector_to_parameters([1.0], model.parameters())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(real, batch_first, padding_side):
    values = [rng.standard_normal((n, 2)) for n in (3, 1, 4)]
    cot = rng.standard_normal((3, 4, 2) if batch_first else (4, 3, 2))

    def run(T):
        seqs = [T.tensor(v, requires_grad=True) for v in values]
        out = T.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5,
                                          padding_side=padding_side)
        (out * T.tensor(cot)).sum().backward()
        return out, [s.grad.numpy() for s in seqs]

    out, grads = run(tt)
    rout, rgrads = run(real)
    assert out.grad_fn.name() == rout.grad_fn.name() == "torch::autograd::CopySlices"
    assert str(out.dtype) == str(rout.dtype)
    np.testing.assert_array_equal(out.detach().numpy(), rout.detach().numpy())
    for g, r in zip(grads, rgrads):
        np.testing.assert_array_equal(g, r)


def test_pad_sequence_api(torch):
    pad = torch.nn.utils.rnn.pad_sequence
    out = pad([torch.tensor([1, 2]), torch.tensor([3])])
    assert out.tolist() == [[1, 3], [2, 0]] and out.dtype == torch.int64
    assert pad(torch.ones(2, 3)).shape == (3, 2)
    with raises(RuntimeError, "received an empty list of sequences"):
        pad([])
    with raises(RuntimeError, "Expected padding_side to be one of left or right, but got "
                              "middle."):
        pad([torch.ones(2)], padding_side="middle")
    with raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at "
                              "non-singleton dimension 1"):
        pad([torch.ones(2, 3), torch.ones(4, 2)])
    with raises(RuntimeError, "pad_sequence: Expected iterable for input sequences, but got "
                              "arg of type: <class 'int'>"):
        pad(3)
