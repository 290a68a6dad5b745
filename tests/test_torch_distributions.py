"""tracegrad.torch.distributions against PyTorch 2.13.

* differential (fixture ``real``, skipped without PyTorch): the same
  parameters (float64) and values go to both libraries; ``log_prob``,
  ``entropy``, ``mean``, ``mode``, ``variance``, ``stddev``, ``cdf``,
  ``icdf`` and ``kl_divergence`` values and their gradients with respect to
  the parameters are compared, and so are batch/event shapes, ``expand``,
  constraint checks and the validation errors (type and whole message);
* random draws (tracegrad only: the random streams differ by design):
  ``rsample`` gradients checked by the reparameterization itself (d/dloc of
  a Normal draw is 1, ...) and sample moments over many draws.
"""
import math
import re

import numpy as np
import pytest

import tracegrad.torch as tt
import tracegrad.torch.distributions as tdist


def import_torch():
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


TOL = dict(rtol=1e-9, atol=1e-11)
TOL32 = dict(rtol=1e-5, atol=1e-6)

rng = np.random.default_rng(0)
POS3 = np.array([0.7, 1.3, 2.5])
SPD = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.2]])
SPD2 = np.array([[1.0, -0.5, 0.1], [-0.5, 2.0, 0.3], [0.1, 0.3, 0.8]])


def tril_of(m):
    return np.linalg.cholesky(m)


# (id, build(D, p) -> distribution, params {name: array}, value array or None,
#  icdf argument or None, names of parameters that get no gradient)
CASES = [
    ("Normal", lambda D, p: D.Normal(p["loc"], p["scale"]),
     {"loc": np.array([0.1, -1.0, 2.0]), "scale": POS3}, np.array([[0.3, -0.5, 1.0], [2.0, 0.0, -1.0]]),
     np.array([0.1, 0.5, 0.9]), ()),
    ("Normal-scalar-value", lambda D, p: D.Normal(p["loc"], 2.0),
     {"loc": np.array(0.5)}, np.array([0.1, 0.9]), np.array(0.3), ()),
    ("LogNormal", lambda D, p: D.LogNormal(p["loc"], p["scale"]),
     {"loc": np.array([0.1, -1.0, 0.5]), "scale": np.array([0.5, 1.1, 0.3])},
     np.array([0.3, 1.5, 2.0]), np.array([0.2, 0.5, 0.7]), ()),
    ("Laplace", lambda D, p: D.Laplace(p["loc"], p["scale"]),
     {"loc": np.array([0.1, -1.0, 2.0]), "scale": POS3}, np.array([0.3, -2.5, 2.0 + 1e-3]),
     np.array([0.1, 0.5 + 1e-3, 0.9]), ()),
    ("Exponential", lambda D, p: D.Exponential(p["rate"]),
     {"rate": POS3}, np.array([[0.2, 1.0, 3.0]]), np.array([0.1, 0.5, 0.95]), ()),
    ("Uniform", lambda D, p: D.Uniform(p["low"], p["high"]),
     {"low": np.array([-1.0, 0.0, 2.0]), "high": np.array([1.0, 0.5, 5.0])},
     np.array([0.0, 0.25, 4.0]), np.array([0.1, 0.5, 0.9]), ()),
    ("Gamma", lambda D, p: D.Gamma(p["concentration"], p["rate"]),
     {"concentration": np.array([0.5, 2.0, 7.5]), "rate": np.array([1.0, 0.3, 2.0])},
     np.array([[0.4, 3.0, 2.5], [1.0, 0.2, 5.0]]), None, ()),
    ("Beta", lambda D, p: D.Beta(p["c1"], p["c0"]),
     {"c1": np.array([0.5, 2.0, 3.5]), "c0": np.array([1.5, 0.8, 4.0])},
     np.array([0.2, 0.6, 0.45]), None, ()),
    ("Beta-scalars", lambda D, p: D.Beta(2.0, 3.0), {}, np.array([0.3, 0.7]), None, ()),
    ("Dirichlet", lambda D, p: D.Dirichlet(p["concentration"]),
     {"concentration": np.array([[0.5, 2.0, 3.5], [1.2, 1.0, 4.0]])},
     np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), None, ()),
    ("Poisson", lambda D, p: D.Poisson(p["rate"]),
     {"rate": np.array([0.5, 2.0, 7.5])}, np.array([[0.0, 3.0, 6.0], [1.0, 2.0, 9.0]]), None, ()),
    ("Bernoulli-probs", lambda D, p: D.Bernoulli(probs=p["probs"]),
     {"probs": np.array([0.1, 0.6, 0.9])}, np.array([1.0, 0.0, 1.0]), None, ()),
    ("Bernoulli-logits", lambda D, p: D.Bernoulli(logits=p["logits"]),
     {"logits": np.array([-2.0, 0.3, 4.0])}, np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), None, ()),
    ("Binomial-probs", lambda D, p: D.Binomial(p["n"], probs=p["probs"]),
     {"n": np.array([5.0, 5.0, 5.0]), "probs": np.array([0.1, 0.6, 0.9])},
     np.array([0.0, 3.0, 5.0]), None, ("n",)),
    ("Binomial-logits", lambda D, p: D.Binomial(4, logits=p["logits"]),
     {"logits": np.array([-2.0, 0.3, 4.0])}, np.array([1.0, 2.0, 4.0]), None, ()),
    ("Categorical-probs", lambda D, p: D.Categorical(probs=p["probs"]),
     {"probs": np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])}, np.array([[2, 0], [1, 1]]), None, ()),
    ("Categorical-logits", lambda D, p: D.Categorical(logits=p["logits"]),
     {"logits": np.array([0.5, -1.0, 2.0, 0.0])}, np.array([3, 0, 2]), None, ()),
    ("OneHotCategorical", lambda D, p: D.OneHotCategorical(probs=p["probs"]),
     {"probs": np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])},
     np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), None, ()),
    ("MultivariateNormal-scale_tril", lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["L"]),
     {"loc": np.array([[0.1, -1.0, 2.0], [0.0, 0.5, 1.0]]), "L": tril_of(SPD)},
     np.array([[0.3, -0.5, 1.0], [2.0, 0.0, -1.0]]), None, ()),
    ("MultivariateNormal-covariance", lambda D, p: D.MultivariateNormal(p["loc"],
                                                                        covariance_matrix=p["S"]),
     {"loc": np.array([0.1, -1.0, 2.0]), "S": np.stack([SPD, SPD2])},
     np.array([[0.3, -0.5, 1.0], [2.0, 0.0, -1.0]]), None, ()),
    ("MultivariateNormal-precision", lambda D, p: D.MultivariateNormal(p["loc"],
                                                                       precision_matrix=p["P"]),
     {"loc": np.array([0.1, -1.0, 2.0]), "P": SPD2}, np.array([0.3, -0.5, 1.0]), None, ()),
    ("Independent-Normal", lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
     {"loc": np.array([[0.1, -1.0, 2.0], [0.0, 1.0, 0.5]]), "scale": POS3},
     np.array([[0.3, -0.5, 1.0], [2.0, 0.0, -1.0]]), None, ()),
]

METHODS = ["log_prob", "entropy", "mean", "mode", "variance", "stddev", "cdf", "icdf"]


def _tensors(T, params, nograd=()):
    out = {}
    for k, v in params.items():
        t = T.tensor(np.asarray(v, dtype=np.float64))
        out[k] = t.requires_grad_() if k not in nograd else t
    return out


def _run(T, case, method):
    """``(result, gradients of the parameters)`` of ``method`` in library ``T``,
    or the exception type raised."""
    _, build, params, value, q, nograd = case
    p = _tensors(T, params, nograd)
    d = build(T.distributions, p)
    try:
        if method in ("log_prob", "cdf"):
            v = np.asarray(value)
            out = getattr(d, method)(T.tensor(v.astype(np.float64) if v.dtype.kind == "f" else v))
        elif method == "icdf":
            if q is None:
                return NotImplementedError
            out = d.icdf(T.tensor(np.asarray(q, dtype=np.float64)))
        elif method == "entropy":
            out = d.entropy()
        else:
            out = getattr(d, method)
    except NotImplementedError:
        return NotImplementedError
    leaves = [t for k, t in p.items() if k not in nograd]
    grads = None
    if out.requires_grad and leaves:
        w = np.random.default_rng(3).standard_normal(tuple(out.shape))
        loss = (out * T.tensor(w)).sum()
        grads = T.autograd.grad(loss, leaves, allow_unused=True)
    return out, grads


# Gamma.cdf is not differentiable in the concentration: see test_gamma_cdf
PAIRS = [(c, m) for c in CASES for m in METHODS if (c[0], m) != ("Gamma", "cdf")]


@pytest.mark.parametrize("case,method", PAIRS, ids=[f"{c[0]}-{m}" for c, m in PAIRS])
def test_against_pytorch(real, case, method):
    theirs = _run(real, case, method)
    ours = _run(tt, case, method)
    if theirs is NotImplementedError:
        assert ours is NotImplementedError
        return
    assert ours is not NotImplementedError, f"{method} is not implemented"
    (a, ga), (b, gb) = ours, theirs
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    if (case[0], method) != ("Dirichlet", "mode"):  # (PyTorch: an in-place IndexPutBackward0)
        assert (a.grad_fn and a.grad_fn.name()) == (b.grad_fn and b.grad_fn.name())
    tol = TOL if str(b.dtype) == "torch.float64" else TOL32
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), equal_nan=True, **tol)
    assert (ga is None) == (gb is None)
    if gb is not None:
        if method == "entropy" and case[0] in ("Beta", "Dirichlet"):
            # the gradient holds trigamma, which PyTorch computes to about 1e-9
            # (tracegrad's is within 2 ulp of SciPy's)
            tol = dict(rtol=1e-7, atol=1e-9)
        for x, y in zip(ga, gb):
            assert (x is None) == (y is None)
            if y is not None:
                np.testing.assert_allclose(x.numpy(), y.numpy(), **tol)


def test_gamma_cdf(real):
    # differentiable in the value and the rate only (both libraries)
    c = np.array([0.5, 2.0, 7.5])
    x = np.array([0.4, 3.0, 2.5])
    res = []
    for T in (tt, real):
        rate = T.tensor([1.0, 0.3, 2.0], dtype=T.float64, requires_grad=True)
        v = T.tensor(x, requires_grad=True)
        out = T.distributions.Gamma(T.tensor(c), rate).cdf(v)
        res.append((out.detach().numpy(), *[g.numpy() for g in T.autograd.grad(out.sum(), [rate, v])]))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9)


def test_float32_and_grad_fn(real):
    res = []
    for T in (tt, real):
        loc = T.tensor([0.5, -1.0], requires_grad=True)
        d = T.distributions.Normal(loc, T.tensor([1.0, 2.0]))
        lp = d.log_prob(T.tensor([0.0, 1.0]))
        res.append((str(lp.dtype), lp.detach().numpy()))
    assert res[0][0] == res[1][0] == "torch.float32"
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


# ---------------------------------------------------------------------------
# KL divergences

KL_CASES = [
    ("Normal", lambda D, p: (D.Normal(p["a"], p["b"]), D.Normal(p["c"], p["d"])),
     {"a": [0.1, -1.0], "b": [0.5, 2.0], "c": [1.0, 0.0], "d": [1.5, 0.7]}),
    ("LogNormal", lambda D, p: (D.LogNormal(p["a"], p["b"]), D.LogNormal(p["c"], p["d"])),
     {"a": [0.1, -1.0], "b": [0.5, 2.0], "c": [1.0, 0.0], "d": [1.5, 0.7]}),
    ("MultivariateNormal", lambda D, p: (D.MultivariateNormal(p["a"], covariance_matrix=p["S"]),
                                         D.MultivariateNormal(p["c"], scale_tril=p["L"])),
     {"a": [[0.1, -1.0, 2.0], [0.0, 0.0, 1.0]], "S": SPD, "c": [1.0, 0.0, 0.5],
      "L": np.stack([tril_of(SPD2), tril_of(SPD)])}),
    ("Categorical", lambda D, p: (D.Categorical(probs=p["a"]), D.Categorical(logits=p["b"])),
     {"a": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "b": [0.5, -1.0, 2.0]}),
    ("OneHotCategorical", lambda D, p: (D.OneHotCategorical(probs=p["a"]),
                                        D.OneHotCategorical(logits=p["b"])),
     {"a": [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "b": [0.5, -1.0, 2.0]}),
    ("Bernoulli", lambda D, p: (D.Bernoulli(probs=p["a"]), D.Bernoulli(logits=p["b"])),
     {"a": [0.2, 0.7, 0.5], "b": [0.5, -1.0, 2.0]}),
    ("Binomial", lambda D, p: (D.Binomial(6, probs=p["a"]), D.Binomial(6, probs=p["b"])),
     {"a": [0.2, 0.7, 0.5], "b": [0.5, 0.3, 0.9]}),
    ("Beta", lambda D, p: (D.Beta(p["a"], p["b"]), D.Beta(p["c"], p["d"])),
     {"a": [0.5, 2.0], "b": [1.5, 0.8], "c": [3.0, 1.0], "d": [0.7, 2.2]}),
    ("Gamma", lambda D, p: (D.Gamma(p["a"], p["b"]), D.Gamma(p["c"], p["d"])),
     {"a": [0.5, 2.0], "b": [1.5, 0.8], "c": [3.0, 1.0], "d": [0.7, 2.2]}),
    ("Dirichlet", lambda D, p: (D.Dirichlet(p["a"]), D.Dirichlet(p["b"])),
     {"a": [[0.5, 2.0, 1.0], [1.0, 1.0, 3.0]], "b": [3.0, 1.0, 0.4]}),
    ("Exponential", lambda D, p: (D.Exponential(p["a"]), D.Exponential(p["b"])),
     {"a": [0.5, 2.0], "b": [1.5, 0.8]}),
    ("Uniform", lambda D, p: (D.Uniform(p["a"], p["b"]), D.Uniform(p["c"], p["d"])),
     {"a": [0.0, -1.0, 0.0], "b": [1.0, 1.0, 2.0], "c": [-0.5, -1.0, 0.5], "d": [2.0, 3.0, 3.0]}),
    ("Laplace", lambda D, p: (D.Laplace(p["a"], p["b"]), D.Laplace(p["c"], p["d"])),
     {"a": [0.1, -1.0], "b": [0.5, 2.0], "c": [1.0, 0.0], "d": [1.5, 0.7]}),
    ("Poisson", lambda D, p: (D.Poisson(p["a"]), D.Poisson(p["b"])),
     {"a": [0.5, 2.0], "b": [1.5, 0.8]}),
    ("Independent", lambda D, p: (D.Independent(D.Normal(p["a"], p["b"]), 1),
                                  D.Independent(D.Normal(p["c"], p["d"]), 1)),
     {"a": [[0.1, -1.0], [0.0, 1.0]], "b": [0.5, 2.0], "c": [1.0, 0.0], "d": [1.5, 0.7]}),
]


@pytest.mark.parametrize("case", KL_CASES, ids=[c[0] for c in KL_CASES])
def test_kl_against_pytorch(real, case):
    _, build, params = case
    res = []
    for T in (tt, real):
        p = _tensors(T, params)
        kl = T.distributions.kl_divergence(*build(T.distributions, p))
        leaves = list(p.values())
        w = np.random.default_rng(5).standard_normal(tuple(kl.shape))
        grads = T.autograd.grad((kl * T.tensor(w)).sum(), leaves, allow_unused=True)
        res.append((kl, grads))
    (a, ga), (b, gb) = res
    assert tuple(a.shape) == tuple(b.shape)
    # (the infinite entries: PyTorch writes them in place, IndexPutBackward0; tracegrad selects)
    names = {"IndexPutBackward0": "WhereBackward0"}
    assert a.grad_fn.name() == names.get(b.grad_fn.name(), b.grad_fn.name())
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL)
    for x, y in zip(ga, gb):
        assert (x is None) == (y is None)
        if y is not None:
            np.testing.assert_allclose(x.numpy(), y.numpy(), **TOL)


def test_kl_infinite_entries(real):
    res = []
    for T in (tt, real):
        D = T.distributions
        u = D.kl_divergence(D.Uniform(T.tensor([0.0, 0.0]), T.tensor([1.0, 1.0])),
                            D.Uniform(T.tensor([0.5, -1.0]), T.tensor([2.0, 2.0])))
        c = D.kl_divergence(D.Categorical(probs=T.tensor([0.5, 0.5, 0.0])),
                            D.Categorical(probs=T.tensor([1.0, 0.0, 0.0])))
        b = D.kl_divergence(D.Bernoulli(T.tensor([0.0, 1.0, 0.3])),
                            D.Bernoulli(T.tensor([0.5, 0.5, 0.0])))
        res.append([x.numpy() for x in (u, c, b)])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_kl_errors_and_register(real):
    for T in (tt, real):
        D = T.distributions
        with pytest.raises(NotImplementedError, match=re.escape(
                "No KL(p || q) is implemented for p type Dirichlet and q type Categorical")):
            D.kl_divergence(D.Dirichlet(T.ones(2)), D.Categorical(T.ones(2)))

        class MyNormal(D.Normal):
            pass

        # a subclass uses its parent's divergence until one is registered for it
        p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
        base = float(D.kl_divergence(p, q))
        np.testing.assert_allclose(base, float(D.kl_divergence(D.Normal(0.0, 1.0), q)))

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return T.tensor(42.0)

        assert float(D.kl_divergence(p, q)) == 42.0
        assert float(D.kl_divergence(q, q)) == 0.0
    # (PyTorch's check of the types never fires: it accepts any class)
    with pytest.raises(TypeError, match="^Expected type_p to be a Distribution subclass"):
        tdist.register_kl(int, tdist.Normal)


# ---------------------------------------------------------------------------
# shapes, expand, sample shapes, properties

SHAPE_CASES = [
    (lambda D, T: D.Normal(T.zeros(2, 3), T.ones(3)), (4,)),
    (lambda D, T: D.Normal(0.0, 1.0), (2, 5)),
    (lambda D, T: D.MultivariateNormal(T.zeros(2, 3), scale_tril=T.eye(3)), (4,)),
    (lambda D, T: D.MultivariateNormal(T.zeros(3), covariance_matrix=T.eye(3).expand(2, 3, 3)), ()),
    (lambda D, T: D.Categorical(logits=T.zeros(2, 4)), (3,)),
    (lambda D, T: D.OneHotCategorical(logits=T.zeros(2, 4)), (3,)),
    (lambda D, T: D.Dirichlet(T.ones(2, 3)), (5,)),
    (lambda D, T: D.Beta(T.ones(2), 2.0), (3,)),
    (lambda D, T: D.Independent(D.Normal(T.zeros(2, 3, 4), T.ones(4)), 2), (5,)),
    (lambda D, T: D.Bernoulli(logits=T.zeros(3)), (2,)),
    (lambda D, T: D.Binomial(3, probs=T.full((2, 1), 0.5)), (2,)),
    (lambda D, T: D.Gamma(T.ones(3), 1.0), (2,)),
    (lambda D, T: D.Poisson(T.ones(3)), (2,)),
    (lambda D, T: D.Uniform(T.zeros(3), 2.0), (2,)),
    (lambda D, T: D.Exponential(T.ones(3)), (2,)),
    (lambda D, T: D.Laplace(T.zeros(3), 1.0), (2,)),
    (lambda D, T: D.LogNormal(T.zeros(3), 1.0), (2,)),
]


@pytest.mark.parametrize("i", range(len(SHAPE_CASES)))
def test_shapes_and_expand(real, i):
    build, sample_shape = SHAPE_CASES[i]
    res = []
    for T in (tt, real):
        d = build(T.distributions, T)
        s = d.sample(sample_shape)
        big = d.expand((6,) + tuple(d.batch_shape)) if d.batch_shape else d.expand((6,))
        lp = d.log_prob(s)
        lp_big = big.log_prob(big.sample())
        res.append(dict(batch=tuple(d.batch_shape), event=tuple(d.event_shape),
                        sample=tuple(s.shape), sdtype=str(s.dtype), lp=tuple(lp.shape),
                        big_batch=tuple(big.batch_shape), big_event=tuple(big.event_shape),
                        big_lp=tuple(lp_big.shape), ent=tuple(big.entropy().shape)
                        if not isinstance(d, T.distributions.Poisson) else None,
                        rs=d.has_rsample, enum=d.has_enumerate_support, repr=repr(big)))
    assert res[0] == res[1]


def test_expand_values_and_validation_flag(real):
    res = []
    for T in (tt, real):
        D = T.distributions
        d = D.Normal(T.tensor([0.5, -1.0], dtype=T.float64), T.tensor([1.0, 2.0], dtype=T.float64))
        e = d.expand((3, 2))
        res.append((e.log_prob(T.tensor([[0.1, 0.2]] * 3, dtype=T.float64)).numpy(),
                    e._validate_args, tuple(e.loc.shape)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    assert res[0][1:] == res[1][1:]


def test_enumerate_support_and_lazy_params(real):
    res = []
    for T in (tt, real):
        D = T.distributions
        c = D.Categorical(probs=T.tensor([[0.2, 0.8], [0.5, 0.5]], dtype=T.float64))
        b = D.Bernoulli(logits=T.tensor([0.0, 1.0], dtype=T.float64))
        n = D.Binomial(2, probs=T.tensor([0.3, 0.6], dtype=T.float64))
        o = D.OneHotCategorical(probs=T.tensor([0.2, 0.8], dtype=T.float64))
        res.append([c.enumerate_support().numpy(), c.enumerate_support(False).numpy(),
                    b.enumerate_support().numpy(), n.enumerate_support().numpy(),
                    o.enumerate_support().numpy(), c.logits.detach().numpy(),
                    b.probs.detach().numpy(), n.logits.detach().numpy(),
                    str(c.enumerate_support().dtype), c.perplexity().numpy(),
                    D.MultivariateNormal(T.zeros(2, dtype=T.float64),
                                         scale_tril=T.tensor([[1.0, 0.0], [0.5, 2.0]],
                                                             dtype=T.float64))
                    .precision_matrix.numpy()])
    for x, y in zip(*res):
        if isinstance(x, str):
            assert x == y
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12)


def test_mvn_lazy_matrices(real):
    res = []
    for T in (tt, real):
        S = T.tensor(SPD, requires_grad=True)
        d = T.distributions.MultivariateNormal(T.zeros(3, dtype=T.float64), precision_matrix=S)
        out = d.covariance_matrix.sum() + d.scale_tril.sum()
        res.append((d.covariance_matrix.detach().numpy(), d.scale_tril.detach().numpy(),
                    T.autograd.grad(out, [S])[0].numpy()))
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# constraints

def test_constraints(real):
    values = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, np.nan]])
    simplex = np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])
    mats = np.stack([SPD, tril_of(SPD), -tril_of(SPD2), np.array([[1.0, 2.0, 0], [2.0, 1.0, 0],
                                                                  [0, 0, 1.0]])])
    res = []
    for T in (tt, real):
        C = T.distributions.constraints
        v, s, m = T.tensor(values), T.tensor(simplex), T.tensor(mats)
        checks = [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean,
                  C.nonnegative_integer, C.positive_integer, C.integer_interval(0, 1),
                  C.greater_than(0.5), C.greater_than_eq(0.5), C.less_than(1.0),
                  C.interval(-1.0, 0.5), C.half_open_interval(-1.0, 0.5)]
        out = [c.check(v).numpy() for c in checks]
        out += [C.simplex.check(s).numpy(), C.real_vector.check(v).numpy(),
                C.independent(C.positive, 1).check(v).numpy(),
                C.lower_cholesky.check(m).numpy(), C.lower_triangular.check(m).numpy(),
                C.positive_definite.check(m).numpy(), C.symmetric.check(m).numpy(),
                C.square.check(m).numpy(), C.one_hot.check(T.tensor([[0.0, 1.0], [1.0, 1.0]])).numpy()]
        reprs = [repr(c) for c in checks] + [repr(C.simplex), repr(C.real_vector),
                                              repr(C.lower_cholesky), repr(C.positive_definite),
                                              repr(C.dependent)]
        flags = [(c.is_discrete, c.event_dim) for c in checks + [C.simplex, C.real_vector,
                                                                C.positive_definite]]
        res.append((out, reprs, flags, C.is_dependent(C.dependent),
                    C.is_dependent(T.distributions.Uniform.support)))
    for x, y in zip(res[0][0], res[1][0]):
        np.testing.assert_array_equal(x, y)
    assert res[0][1:] == res[1][1:]
    for T in (tt, real):
        with pytest.raises(ValueError, match="^Cannot determine validity of dependent constraint$"):
            T.distributions.constraints.dependent.check(T.zeros(1))


# ---------------------------------------------------------------------------
# validation errors (type and whole message, against PyTorch)

ERRORS = [
    lambda D, T: D.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, -1.0])),
    lambda D, T: D.Normal(0.0, -1.0),
    lambda D, T: D.Normal(T.tensor(0.0), T.tensor(0.0)),
    lambda D, T: D.Gamma(T.tensor([1.0, -2.0]), 1.0),
    lambda D, T: D.Beta(-1.0, 1.0),
    lambda D, T: D.Dirichlet(T.tensor([1.0, 0.0])),
    lambda D, T: D.Dirichlet(T.tensor(1.0)),
    lambda D, T: D.Categorical(probs=T.tensor([0.5, -0.5])),
    lambda D, T: D.Categorical(probs=T.tensor(0.5)),
    lambda D, T: D.Categorical(logits=T.tensor(0.5)),
    lambda D, T: D.Categorical(),
    lambda D, T: D.Categorical(probs=T.tensor([1.0]), logits=T.tensor([1.0])),
    lambda D, T: D.Bernoulli(probs=T.tensor([1.5])),
    lambda D, T: D.Bernoulli(),
    lambda D, T: D.Binomial(T.tensor([2.5]), probs=T.tensor([0.5])),
    lambda D, T: D.Uniform(T.tensor([0.0, 2.0]), T.tensor([1.0, 1.0])),
    lambda D, T: D.Exponential(T.tensor([-1.0])),
    lambda D, T: D.Laplace(0.0, T.tensor([0.0, 1.0])),
    lambda D, T: D.Poisson(T.tensor([-1.0])),
    lambda D, T: D.LogNormal(0.0, -1.0),
    lambda D, T: D.MultivariateNormal(T.tensor(0.0), T.eye(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2), scale_tril=T.zeros(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2), covariance_matrix=T.ones(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2), precision_matrix=T.ones(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(2), covariance_matrix=T.tensor([[1.0, 2.0],
                                                                              [2.0, 1.0]])),
    lambda D, T: D.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda D, T: D.Independent(D.Normal(T.zeros(2), 1.0), 2),
    lambda D, T: D.Normal(0.0, 1.0).log_prob(0.5),
    lambda D, T: D.Normal(T.zeros(3), 1.0).log_prob(T.zeros(2)),
    lambda D, T: D.MultivariateNormal(T.zeros(3), T.eye(3)).log_prob(T.zeros(2)),
    lambda D, T: D.Exponential(T.ones(2)).log_prob(T.tensor([1.0, -1.0])),
    lambda D, T: D.Bernoulli(T.tensor([0.5])).log_prob(T.tensor([0.5])),
    lambda D, T: D.Categorical(probs=T.tensor([0.5, 0.5])).log_prob(T.tensor(2)),
    lambda D, T: D.Uniform(0.0, 1.0).log_prob(T.tensor(1.5)),
    lambda D, T: D.Binomial(3, probs=T.tensor([0.5])).log_prob(T.tensor([4.0])),
    lambda D, T: D.Dirichlet(T.ones(3)).log_prob(T.tensor([0.5, 0.5, 0.5])),
    lambda D, T: D.Binomial(T.tensor([2.0, 3.0]), probs=T.tensor([0.5, 0.5])).entropy(),
    lambda D, T: D.Distribution(validate_args=False).mode,
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_against_pytorch(real, i):
    caught = []
    for T in (tt, real):
        with pytest.raises(Exception) as info:
            ERRORS[i](T.distributions, T)
        caught.append(info.value)
    ours, theirs = caught
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours) == str(theirs).replace("torch.distributions", "tracegrad.torch.distributions")


def test_validate_args_off(real):
    for T in (tt, real):
        D = T.distributions
        d = D.Normal(0.0, -1.0, validate_args=False)
        assert math.isnan(float(d.log_prob(T.tensor(0.0))))
        D.Distribution.set_default_validate_args(False)
        try:
            D.Exponential(-1.0).log_prob(T.tensor(-2.0))
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            D.Exponential(-1.0)


# ---------------------------------------------------------------------------
# random draws (tracegrad only: the random streams differ from PyTorch's by design)

def _seeded():
    tt.manual_seed(1234)


def test_normal_rsample_reparameterization():
    _seeded()
    loc = tt.tensor([0.5, -1.0], dtype=tt.float64, requires_grad=True)
    scale = tt.tensor([1.0, 2.0], dtype=tt.float64, requires_grad=True)
    x = tdist.Normal(loc, scale).rsample((20000,))
    assert x.shape == (20000, 2)
    x.mean().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [0.5, 0.5], rtol=1e-12)
    eps = (x.detach().numpy() - loc.detach().numpy()) / scale.detach().numpy()
    np.testing.assert_allclose(scale.grad.numpy(), eps.mean(0) / 2, rtol=1e-10)
    np.testing.assert_allclose(x.detach().numpy().mean(0), [0.5, -1.0], atol=0.05)
    np.testing.assert_allclose(x.detach().numpy().std(0), [1.0, 2.0], rtol=0.03)
    s = tdist.Normal(loc, scale).sample((3,))
    assert not s.requires_grad


def test_sampling_is_reproducible():
    tt.manual_seed(7)
    a = tdist.Gamma(tt.tensor([2.0]), 1.0).sample((5,)).numpy()
    tt.manual_seed(7)
    b = tdist.Gamma(tt.tensor([2.0]), 1.0).sample((5,)).numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,make,mean,var", [
    ("Uniform", lambda: tdist.Uniform(tt.tensor([-1.0, 2.0], dtype=tt.float64), 3.0), [1.0, 2.5],
     [4 / 3, 1 / 12]),
    ("Exponential", lambda: tdist.Exponential(tt.tensor([0.5, 2.0], dtype=tt.float64)), [2.0, 0.5],
     [4.0, 0.25]),
    ("Laplace", lambda: tdist.Laplace(tt.tensor([0.0, 1.0], dtype=tt.float64), 2.0), [0.0, 1.0],
     [8.0, 8.0]),
    ("LogNormal", lambda: tdist.LogNormal(tt.tensor([0.0, 0.5], dtype=tt.float64), 0.5),
     [math.exp(0.125), math.exp(0.625)], [math.expm1(0.25) * math.exp(0.25),
                                          math.expm1(0.25) * math.exp(1.25)]),
    ("Gamma", lambda: tdist.Gamma(tt.tensor([0.5, 4.0], dtype=tt.float64), 2.0), [0.25, 2.0],
     [0.125, 1.0]),
    ("Beta", lambda: tdist.Beta(tt.tensor([0.5, 4.0], dtype=tt.float64), 2.0), [0.2, 2 / 3],
     [0.5 * 2 / (2.5 ** 2 * 3.5), 8 / (36 * 7)]),
    ("Poisson", lambda: tdist.Poisson(tt.tensor([0.5, 4.0], dtype=tt.float64)), [0.5, 4.0],
     [0.5, 4.0]),
    ("Bernoulli", lambda: tdist.Bernoulli(tt.tensor([0.2, 0.7], dtype=tt.float64)), [0.2, 0.7],
     [0.16, 0.21]),
    ("Binomial", lambda: tdist.Binomial(5, tt.tensor([0.2, 0.7], dtype=tt.float64)), [1.0, 3.5],
     [0.8, 1.05]),
    ("Categorical", lambda: tdist.Categorical(tt.tensor([0.2, 0.5, 0.3], dtype=tt.float64)),
     [1.1], [0.49]),
])
def test_sample_moments(name, make, mean, var):
    _seeded()
    d = make()
    x = d.sample((40000,)).numpy().astype(np.float64)
    n = x.shape[0]
    np.testing.assert_allclose(x.mean(0), mean, atol=5 * np.sqrt(np.max(var) / n) + 1e-12)
    np.testing.assert_allclose(x.var(0), var, rtol=0.08)
    # the support holds every draw (checked by log_prob's validation)
    assert np.isfinite(d.log_prob(d.sample((10,))).numpy()).all()


def test_dirichlet_and_onehot_samples():
    _seeded()
    a = tt.tensor([0.5, 2.0, 3.5], dtype=tt.float64)
    x = tdist.Dirichlet(a).sample((20000,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), [0.5 / 6, 2 / 6, 3.5 / 6], atol=0.01)
    o = tdist.OneHotCategorical(tt.tensor([0.2, 0.5, 0.3])).sample((20000,)).numpy()
    np.testing.assert_array_equal(o.sum(-1), 1.0)
    np.testing.assert_allclose(o.mean(0), [0.2, 0.5, 0.3], atol=0.015)


def test_mvn_rsample():
    _seeded()
    loc = tt.tensor([1.0, -1.0, 0.5], dtype=tt.float64, requires_grad=True)
    L = tt.tensor(tril_of(SPD), requires_grad=True)
    x = tdist.MultivariateNormal(loc, scale_tril=L).rsample((30000,))
    x.sum(0)[0].backward()
    np.testing.assert_allclose(loc.grad.numpy(), [30000.0, 0.0, 0.0])
    xs = x.detach().numpy()
    np.testing.assert_allclose(np.cov(xs.T), SPD, atol=0.06)
    np.testing.assert_allclose(xs.mean(0), [1.0, -1.0, 0.5], atol=0.05)


@pytest.mark.parametrize("name", ["Uniform", "Exponential", "Laplace", "LogNormal"])
def test_rsample_gradients_exact(name):
    # d(draw)/d(parameter) from the draw itself: the reparameterization is exact
    _seeded()
    p = tt.tensor([0.5, 2.0], dtype=tt.float64, requires_grad=True)
    q = tt.tensor([1.5, 3.0], dtype=tt.float64, requires_grad=True)
    d = {"Uniform": lambda: tdist.Uniform(p, q + 2.0), "Exponential": lambda: tdist.Exponential(q),
         "Laplace": lambda: tdist.Laplace(p, q), "LogNormal": lambda: tdist.LogNormal(p, q)}[name]()
    x = d.rsample((50,))
    gp, gq = tt.autograd.grad(x.sum(), [p, q], allow_unused=True)
    xs = x.detach().numpy()
    pn, qn = p.detach().numpy(), q.detach().numpy()
    if name == "Uniform":  # x = p + u (q + 2 - p)
        u = (xs - pn) / (qn + 2 - pn)
        np.testing.assert_allclose(gp.numpy(), (1 - u).sum(0), rtol=1e-10)
        np.testing.assert_allclose(gq.numpy(), u.sum(0), rtol=1e-10)
    elif name == "Exponential":  # x = E / q
        assert gp is None
        np.testing.assert_allclose(gq.numpy(), (-xs / qn).sum(0), rtol=1e-10)
    elif name == "Laplace":  # x = p + q * z
        np.testing.assert_allclose(gp.numpy(), [50.0, 50.0], rtol=1e-12)
        np.testing.assert_allclose(gq.numpy(), ((xs - pn) / qn).sum(0), rtol=1e-10)
    else:  # x = exp(p + q z)
        np.testing.assert_allclose(gp.numpy(), xs.sum(0), rtol=1e-10)
        np.testing.assert_allclose(gq.numpy(), (xs * (np.log(xs) - pn) / qn).sum(0), rtol=1e-8)


def test_gamma_implicit_gradient():
    # dx/dalpha of a draw equals the derivative of the inverse CDF at the draw's CDF value
    import scipy.special as sc

    from tracegrad.torch.distributions.gamma import _standard_gamma_grad

    a = np.array([0.3, 1.0, 2.5, 20.0])
    x = np.array([0.05, 0.7, 3.0, 18.0])
    u = sc.gammainc(a, x)
    h = 1e-6 * a
    fd = (sc.gammaincinv(a + h, u) - sc.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(_standard_gamma_grad(x, a), fd, rtol=1e-5)


def test_gamma_beta_dirichlet_rsample_gradients():
    _seeded()
    n = 40000
    c = tt.tensor([0.7, 3.0], dtype=tt.float64, requires_grad=True)
    rate = tt.tensor([2.0, 0.5], dtype=tt.float64, requires_grad=True)
    x = tdist.Gamma(c, rate).rsample((n,))
    gc, gr = tt.autograd.grad(x.mean(0).sum(), [c, rate])
    # E[x] = c / rate: d/dc = 1/rate, d/drate = -c/rate**2
    np.testing.assert_allclose(gc.numpy(), [0.5, 2.0], rtol=0.05)
    np.testing.assert_allclose(gr.numpy(), [-0.175, -12.0], rtol=0.05)
    a = tt.tensor([1.5, 2.0, 3.5], dtype=tt.float64, requires_grad=True)
    y = tdist.Dirichlet(a).rsample((n,))
    (g,) = tt.autograd.grad(y.mean(0)[0], [a])
    a0 = 7.0
    np.testing.assert_allclose(g.numpy(), [(a0 - 1.5) / a0 ** 2, -1.5 / a0 ** 2, -1.5 / a0 ** 2],
                               atol=0.01)
    b1 = tt.tensor(2.0, dtype=tt.float64, requires_grad=True)
    z = tdist.Beta(b1, 3.0).rsample((n,))
    (g,) = tt.autograd.grad(z.mean(), [b1])
    np.testing.assert_allclose(float(g), 3.0 / 25.0, rtol=0.1)


def test_inside_torch_func(real):
    # the densities trace through torch.func (validation skips the traced values)
    res = []
    for T in (tt, real):
        D = T.distributions
        x = T.tensor([0.5, 1.0], dtype=T.float64)
        f = lambda c, r: D.Gamma(c, r).log_prob(x).sum()  # noqa: E731
        g = lambda L: D.MultivariateNormal(T.zeros(2, dtype=T.float64),  # noqa: E731
                                           scale_tril=L).log_prob(x)
        h = lambda a, b: D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)).sum()  # noqa: E731
        v = T.func.vmap(lambda loc: D.Normal(loc, 2.0).log_prob(x))
        res.append([*T.func.grad(f, argnums=(0, 1))(T.tensor([2.0, 3.0], dtype=T.float64),
                                                    T.tensor([1.0, 0.5], dtype=T.float64)),
                    T.func.grad(g)(T.tensor([[1.0, 0.0], [0.3, 2.0]], dtype=T.float64)),
                    T.func.grad(h)(T.tensor([[1.0, 2.0], [0.5, 1.5]], dtype=T.float64),
                                   T.tensor([2.0, 1.0], dtype=T.float64)),
                    v(T.tensor([[0.0, 1.0], [2.0, -1.0]], dtype=T.float64))])
    for a, b in zip(*res):
        # (the Dirichlet gradient holds trigamma: PyTorch's is good to about 1e-9;
        # tracegrad's gives pi**2/6 at 1 to the last bit)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8)


def test_misc_api(real):
    res = []
    for T in (tt, real):
        D = T.distributions

        class MyNormal(D.Normal):
            def __init__(self):
                super().__init__(T.zeros(2), 1.0)

        with pytest.raises(NotImplementedError) as info:
            MyNormal().expand((3, 2))
        g = D.Gamma(T.tensor([2.0], dtype=T.float64), 1.0)
        ind = D.Independent(D.Normal(T.zeros(2, 3), 1.0), 1)
        with pytest.warns(FutureWarning):
            n = D.Normal(0.0, 1.0).sample_n(4)
        res.append((str(info.value), g.log_prob(1.5).numpy(), repr(ind), repr(ind.support),
                    ind.has_rsample, ind.has_enumerate_support, tuple(n.shape),
                    repr(D.Binomial(3, probs=T.tensor([0.5])).support),
                    repr(D.Categorical(logits=T.zeros(2, 3))),
                    D.Bernoulli(T.tensor([0.2, 0.5, 0.8])).mode.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)
    assert res[0][2:-1] == res[1][2:-1]
    np.testing.assert_array_equal(res[0][-1], res[1][-1])
