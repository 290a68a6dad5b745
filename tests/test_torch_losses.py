"""The losses of tracegrad.torch.nn beyond MSE/L1/NLL/CrossEntropy/BCE, against PyTorch 2.13.

Differential tests (skipped without PyTorch): each functional loss and its
module get the same inputs in both libraries, in float32 and float64, for
every reduction; the values, the top ``grad_fn`` name and the gradients of
every input that requires grad are compared; errors and warnings are
compared by type and message.
"""
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


DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-12)}
REDUCTIONS = ["none", "mean", "sum"]


def raises(exc_type, message):
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


def _rng():
    return np.random.default_rng(0)


def _signs(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


# name -> (call(F, reduction, *tensors), arrays(rng), which arrays require grad)
CASES = {
    "smooth_l1": (lambda F, r, a, b: F.smooth_l1_loss(a, b, reduction=r, beta=0.7),
                  lambda g: [g.normal(size=(4, 5)), g.normal(size=(4, 5))], (True, True)),
    "smooth_l1_beta0": (lambda F, r, a, b: F.smooth_l1_loss(a, b, reduction=r, beta=0.0),
                        lambda g: [g.normal(size=(3, 4)), g.normal(size=(3, 4))], (True, False)),
    "smooth_l1_broadcast": (lambda F, r, a, b: F.smooth_l1_loss(a, b, reduction=r),
                            lambda g: [g.normal(size=(3, 4)), 2 * g.normal(size=(4,))],
                            (True, True)),
    "huber": (lambda F, r, a, b: F.huber_loss(a, b, reduction=r, delta=0.6),
              lambda g: [g.normal(size=(4, 5)), g.normal(size=(4, 5))], (True, True)),
    "huber_weight": (lambda F, r, a, b, w: F.huber_loss(a, b, reduction=r, delta=1.5, weight=w),
                     lambda g: [2 * g.normal(size=(3, 4)), g.normal(size=(3, 4)),
                                g.random((3, 4))], (True, False, True)),
    "kl_div": (lambda F, r, a, b: F.kl_div(a, b, reduction=r),
               lambda g: [np.log(g.dirichlet(np.ones(5), 3)),
                          np.where(g.random((3, 5)) < 0.2, 0.0, g.dirichlet(np.ones(5), 3))],
               (True, False)),
    "kl_div_log_target": (lambda F, r, a, b: F.kl_div(a, b, reduction=r, log_target=True),
                          lambda g: [np.log(g.dirichlet(np.ones(4), 3)),
                                     np.log(g.dirichlet(np.ones(4), 3))], (True, True)),
    "kl_div_target_grad": (lambda F, r, a, b: F.kl_div(a, b, reduction=r),
                           lambda g: [g.normal(size=(2, 3)), g.random((2, 3)) + 0.1],
                           (True, True)),
    "poisson": (lambda F, r, a, b: F.poisson_nll_loss(a, b, reduction=r),
                lambda g: [g.normal(size=(4, 3)), g.poisson(2.0, (4, 3)).astype(float)],
                (True, False)),
    "poisson_full_rate": (lambda F, r, a, b: F.poisson_nll_loss(a, b, log_input=False,
                                                                full=True, reduction=r),
                          lambda g: [g.random((4, 3)) + 0.5,
                                     g.poisson(2.0, (4, 3)).astype(float)], (True, False)),
    "poisson_full_log": (lambda F, r, a, b: F.poisson_nll_loss(a, b, full=True, eps=1e-4,
                                                               reduction=r),
                         lambda g: [g.normal(size=(5,)), np.array([0.5, 1, 2, 3.5, 7])],
                         (True, True)),
    "gaussian": (lambda F, r, a, b, v: F.gaussian_nll_loss(a, b, v, reduction=r),
                 lambda g: [g.normal(size=(4, 3)), g.normal(size=(4, 3)), g.random((4, 3)) + .1],
                 (True, True, True)),
    "gaussian_full_rows": (lambda F, r, a, b, v: F.gaussian_nll_loss(a, b, v, full=True,
                                                                     reduction=r),
                           lambda g: [g.normal(size=(4, 3)), g.normal(size=(4, 3)),
                                      g.random((4,)) + .1], (True, False, True)),
    "gaussian_column": (lambda F, r, a, b, v: F.gaussian_nll_loss(a, b, v, reduction=r),
                        lambda g: [g.normal(size=(2, 3, 4)), g.normal(size=(2, 3, 4)),
                                   g.random((2, 1, 4)) + .1], (True, False, True)),
    "gaussian_clamped": (lambda F, r, a, b, v: F.gaussian_nll_loss(a, b, v, eps=0.05,
                                                                   reduction=r),
                         lambda g: [g.normal(size=(5,)), g.normal(size=(5,)),
                                    np.array([0.0, 0.01, 0.05, 0.5, 2.0])], (True, False, True)),
    "gaussian_float_var": (lambda F, r, a, b: F.gaussian_nll_loss(a, b, 0.7, reduction=r),
                           lambda g: [g.normal(size=(3, 2)), g.normal(size=(3, 2))],
                           (True, True)),
    "cosine_embedding": (lambda F, r, a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.2,
                                                                       reduction=r),
                         lambda g: [g.normal(size=(6, 4)), g.normal(size=(6, 4)),
                                    np.array([1., -1, 1, -1, -1, 1])], (True, True, False)),
    "cosine_embedding_1d": (lambda F, r, a, b, t: F.cosine_embedding_loss(a, b, t, reduction=r),
                            lambda g: [g.normal(size=(4,)), g.normal(size=(4,)),
                                       np.array(-1.0)], (True, True, False)),
    "margin_ranking": (lambda F, r, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3,
                                                                   reduction=r),
                       lambda g: [g.normal(size=(7,)), g.normal(size=(7,)), _signs(g, (7,))],
                       (True, True, False)),
    "margin_ranking_broadcast": (lambda F, r, a, b, t: F.margin_ranking_loss(a, b, t,
                                                                             reduction=r),
                                 lambda g: [g.normal(size=(3, 4)), g.normal(size=(1, 4)),
                                            _signs(g, (3, 1))], (True, True, False)),
    "hinge_embedding": (lambda F, r, a, t: F.hinge_embedding_loss(a, t, margin=0.8, reduction=r),
                        lambda g: [g.random((4, 5)) * 2, _signs(g, (4, 5))], (True, False)),
    "hinge_embedding_broadcast": (lambda F, r, a, t: F.hinge_embedding_loss(a, t, reduction=r),
                                  lambda g: [g.normal(size=(3, 4)), _signs(g, (4,))],
                                  (True, False)),
    "soft_margin": (lambda F, r, a, t: F.soft_margin_loss(a, t, reduction=r),
                    lambda g: [3 * g.normal(size=(4, 5)), _signs(g, (4, 5))], (True, False)),
    "multilabel_soft_margin": (lambda F, r, a, t: F.multilabel_soft_margin_loss(a, t,
                                                                                reduction=r),
                               lambda g: [2 * g.normal(size=(4, 5)),
                                          (g.random((4, 5)) < 0.5).astype(float)],
                               (True, False)),
    "multilabel_soft_margin_weight": (
        lambda F, r, a, t, w: F.multilabel_soft_margin_loss(a, t, weight=w, reduction=r),
        lambda g: [g.normal(size=(3, 4)), g.random((3, 4)), g.random((4,))],
        (True, True, False)),
    "triplet": (lambda F, r, a, p, n: F.triplet_margin_loss(a, p, n, reduction=r),
                lambda g: [g.normal(size=(5, 4)), g.normal(size=(5, 4)), g.normal(size=(5, 4))],
                (True, True, True)),
    "triplet_p1_swap": (lambda F, r, a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1,
                                                                    swap=True, reduction=r),
                        lambda g: [g.normal(size=(6, 3)), g.normal(size=(6, 3)),
                                   g.normal(size=(6, 3))], (True, True, True)),
    "triplet_1d_p3": (lambda F, r, a, p, n: F.triplet_margin_loss(a, p, n, p=3, eps=1e-3,
                                                                  reduction=r),
                      lambda g: [g.normal(size=(4,)), g.normal(size=(4,)), g.normal(size=(4,))],
                      (True, True, True)),
    "multi_margin": (lambda F, r, a, t: F.multi_margin_loss(a, t, reduction=r),
                     lambda g: [g.normal(size=(5, 4)), np.array([0, 3, 1, 1, 2])], (True, False)),
    "multi_margin_p2_weight": (lambda F, r, a, t, w: F.multi_margin_loss(
        a, t, p=2, margin=0.7, weight=w, reduction=r),
        lambda g: [g.normal(size=(5, 4)), np.array([0, 3, 1, 1, 2]), g.random(4)],
        (True, False, False)),
    "multi_margin_1d": (lambda F, r, a, t: F.multi_margin_loss(a, t, reduction=r),
                        lambda g: [g.normal(size=(4,)), np.array(2)], (True, False)),
    "multilabel_margin": (lambda F, r, a, t: F.multilabel_margin_loss(a, t, reduction=r),
                          lambda g: [g.normal(size=(3, 4)),
                                     np.array([[3, 0, -1, 1], [1, 1, 2, -1], [0, 1, 2, 3]])],
                          (True, False)),
    "multilabel_margin_1d": (lambda F, r, a, t: F.multilabel_margin_loss(a, t, reduction=r),
                             lambda g: [g.normal(size=(5,)), np.array([4, 2, -1, 0, 1])],
                             (True, False)),
}


def _run(T, F, case, reduction, dtype):
    call, arrays, grads = CASES[case]
    vals = arrays(_rng())
    ts = [T.tensor(np.asarray(v, dtype=dtype if np.asarray(v).dtype.kind == "f" else None),
                   requires_grad=g) for v, g in zip(vals, grads)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = call(F, reduction, *ts)
    seed = np.random.default_rng(1).normal(size=tuple(out.shape)).astype(dtype)
    (out * T.tensor(seed)).sum().backward()
    return out, [t.grad for t, g in zip(ts, grads) if g]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_matches_torch(real, case, reduction, dtype):
    ours, our_grads = _run(tt, tt.nn.functional, case, reduction, dtype)
    theirs, their_grads = _run(real, real.nn.functional, case, reduction, dtype)
    assert ours.dtype == getattr(tt, dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **TOL[dtype])
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for g, h in zip(our_grads, their_grads):
        assert g is not None and g.dtype == ours.dtype
        np.testing.assert_allclose(g.numpy(), h.numpy(), **TOL[dtype])


def test_kl_div_batchmean_and_mean_warning(real):
    g = _rng()
    x, y = np.log(g.dirichlet(np.ones(4), 3)), g.dirichlet(np.ones(4), 3)
    res = {}
    for T in (tt, real):
        a = T.tensor(x, requires_grad=True)
        out = T.nn.functional.kl_div(a, T.tensor(y), reduction="batchmean")
        out.backward()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.nn.functional.kl_div(a, T.tensor(y))
            T.nn.KLDivLoss()(a, T.tensor(y))
        msgs = [(x.category, str(x.message)) for x in w]
        with warnings.catch_warnings(record=True) as w2:
            warnings.simplefilter("always")
            T.nn.functional.kl_div(a, T.tensor(y), reduction="sum")
        res[T] = out.item(), a.grad.numpy(), out.grad_fn.name(), msgs, len(w2)
    np.testing.assert_allclose(res[tt][0], res[real][0], rtol=1e-12)
    np.testing.assert_allclose(res[tt][1], res[real][1], rtol=1e-12)
    assert res[tt][2:] == res[real][2:]
    assert len(res[tt][3]) == 2 and res[tt][3][0][0] is UserWarning


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_legacy_size_average_and_target_size_warnings(real, reduction):
    g = _rng()
    x, y = g.normal(size=(3, 4)), g.normal(size=(4,))
    res = {}
    for T in (tt, real):
        F = T.nn.functional
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a = F.smooth_l1_loss(T.tensor(x), T.tensor(y), size_average=reduction == "mean")
            b = F.soft_margin_loss(T.tensor(x), T.tensor(np.sign(x)), reduce=True,
                                   size_average=reduction == "mean")
            c = F.kl_div(T.tensor(x), T.tensor(np.abs(x)), size_average=False)
            d = F.huber_loss(T.tensor(x), T.tensor(y))
        res[T] = [a.item(), b.item(), c.item(), d.item()], [(m.category, str(m.message))
                                                            for m in w]
    np.testing.assert_allclose(res[tt][0], res[real][0], rtol=1e-12)
    assert res[tt][1] == res[real][1]


def test_modules_store_options_and_match(real):
    g = _rng()
    x, y = g.normal(size=(4, 3)), g.normal(size=(4, 3))
    pairs = [
        ("SmoothL1Loss", dict(beta=0.3, reduction="sum"), (x, y)),
        ("HuberLoss", dict(delta=0.4, reduction="none"), (x, y)),
        ("KLDivLoss", dict(log_target=True, reduction="batchmean"), (x, y)),
        ("PoissonNLLLoss", dict(log_input=False, full=True, eps=1e-3),
         (np.abs(x) + .1, np.round(np.abs(3 * y)))),
        ("GaussianNLLLoss", dict(full=True, eps=1e-2), (x, y, np.abs(y))),
        ("CosineEmbeddingLoss", dict(margin=0.1), (x, y, np.array([1., -1, -1, 1]))),
        ("MarginRankingLoss", dict(margin=0.5), (x[:, 0], y[:, 0], np.array([1., -1, -1, 1]))),
        ("HingeEmbeddingLoss", dict(margin=2.0), (x, np.sign(y))),
        ("SoftMarginLoss", dict(reduction="sum"), (x, np.sign(y))),
        ("MultiLabelSoftMarginLoss", dict(), (x, (y > 0).astype(float))),
        ("TripletMarginLoss", dict(margin=0.5, p=1.0, swap=True), (x, y, x + y)),
        ("MultiMarginLoss", dict(p=2, margin=0.5), (x, np.array([0, 2, 1, 1]))),
        ("MultiLabelMarginLoss", dict(reduction="sum"),
         (x, np.array([[2, -1, 0], [0, 1, 2], [1, 0, -1], [-1, 0, 0]]))),
    ]
    for name, kw, args in pairs:
        outs = []
        for T in (tt, real):
            m = getattr(T.nn, name)(**kw)
            for k, v in kw.items():
                assert getattr(m, k) == v
            a0 = T.tensor(args[0], requires_grad=True)
            out = m(a0, *[T.tensor(a) for a in args[1:]])
            out.sum().backward()
            outs.append((out.detach().numpy(), a0.grad.numpy(), m.reduction,
                         list(m.state_dict())))
        np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-11, atol=1e-12,
                                   err_msg=name)
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-11, atol=1e-12,
                                   err_msg=name)
        assert outs[0][2:] == outs[1][2:], name


def test_weight_buffers(real):
    for T in (tt, real):
        for name in ("MultiLabelSoftMarginLoss", "MultiMarginLoss"):
            m = getattr(T.nn, name)(weight=T.tensor([1.0, 2.0]))
            assert list(m.state_dict()) == ["weight"]
            np.testing.assert_array_equal(m.weight.numpy(), [1.0, 2.0])


def _error(T, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(T)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return None


ERRORS = {
    "smooth_l1_negative_beta": lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(3), T.zeros(3), beta=-1.0),
    "smooth_l1_bad_reduction": lambda T: T.nn.functional.smooth_l1_loss(
        T.ones(3), T.zeros(3), reduction="avg"),
    "smooth_l1_no_broadcast": lambda T: T.nn.functional.smooth_l1_loss(T.ones(3), T.zeros(2)),
    "huber_zero_delta": lambda T: T.nn.functional.huber_loss(T.ones(3), T.zeros(3), delta=0.0),
    "huber_weight_shape": lambda T: T.nn.functional.huber_loss(
        T.ones(3), T.zeros(3), weight=T.ones(1)),
    "huber_weight_reduction": lambda T: T.nn.functional.huber_loss(
        T.ones(3), T.zeros(3), weight=T.ones(3), reduction="avg"),
    "kl_div_bad_reduction": lambda T: T.nn.functional.kl_div(T.ones(3), T.ones(3),
                                                             reduction="avg"),
    "kl_div_integral": lambda T: T.nn.functional.kl_div(T.ones(3), T.ones(3, dtype=T.int64),
                                                        reduction="sum"),
    "poisson_bad_reduction": lambda T: T.nn.functional.poisson_nll_loss(T.ones(3), T.ones(3),
                                                                        reduction="x"),
    "gaussian_negative_var": lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(3), T.ones(3), T.tensor([1.0, -1.0, 1.0])),
    "gaussian_negative_float": lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(3), T.ones(3), -0.5),
    "gaussian_var_size": lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(3)),
    "gaussian_var_two_mismatches": lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(2, 3, 4), T.ones(2, 3, 4), T.ones(1, 1, 4)),
    "gaussian_bad_reduction": lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), reduction="avg"),
    "cosine_2d_target": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(2, 1)),
    "cosine_1d_target_1d_inputs": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(3), T.ones(3), T.ones(3)),
    "cosine_0d_target_2d_inputs": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(2, 3), T.ones(2, 3), T.tensor(1.0)),
    "margin_ranking_dims": lambda T: T.nn.functional.margin_ranking_loss(
        T.ones(3), T.ones(3), T.ones(1, 3)),
    "margin_ranking_reduction": lambda T: T.nn.functional.margin_ranking_loss(
        T.ones(3), T.ones(3), T.ones(3), reduction="x"),
    "multilabel_reduction": lambda T: T.nn.functional.multilabel_soft_margin_loss(
        T.ones(2, 3), T.ones(2, 3), reduction="x"),
    "triplet_margin": lambda T: T.nn.functional.triplet_margin_loss(
        T.ones(3), T.ones(3), T.ones(3), margin=0.0),
    "triplet_dims": lambda T: T.nn.functional.triplet_margin_loss(
        T.ones(3), T.ones(2, 3), T.ones(2, 3)),
    "triplet_module_margin": lambda T: T.nn.TripletMarginLoss(margin=-1.0),
    "multi_margin_target_size": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0, 1])),
    "multi_margin_range": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0, 1, 4])),
    "multi_margin_p": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0, 1, 2]), p=3),
    "multi_margin_weight_dim": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0, 1, 2]), weight=T.ones(2, 2)),
    "multi_margin_weight_size": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0, 1, 2]), weight=T.ones(3)),
    "multi_margin_float_target": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(3, 4), T.tensor([0.0, 1, 2])),
    "multi_margin_3d": lambda T: T.nn.functional.multi_margin_loss(
        T.ones(2, 3, 4), T.tensor([0, 1])),
    "multi_margin_module_weight": lambda T: T.nn.MultiMarginLoss(weight=T.ones(2, 2)),
    "multilabel_margin_size": lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(3, 4), T.tensor([[0, 1, -1]] * 3)),
    "multilabel_margin_range": lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(3, 4), T.tensor([[0, 1, -1, 5]] * 3)),
    "multilabel_margin_dtype": lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(3, 4), T.tensor([[0.0, 1, -1, 0]] * 3)),
    "multilabel_margin_reduction": lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(3, 4), T.tensor([[0, 1, -1, 0]] * 3), reduction="x"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(real, case):
    ours, theirs = _error(tt, ERRORS[case]), _error(real, ERRORS[case])
    assert theirs is not None
    assert ours == theirs


def test_soft_margin_is_finite_where_torch_overflows():
    """A documented difference: tracegrad's stable form stays finite."""
    x = tt.tensor([-100.0], requires_grad=True)
    out = tt.nn.functional.soft_margin_loss(x, tt.tensor([1.0]))
    out.backward()
    np.testing.assert_allclose(out.item(), 100.0)
    np.testing.assert_allclose(x.grad.numpy(), [-1.0])


def test_per_example_gradients_with_torch_func(real):
    g = _rng()
    x, y = g.normal(size=(4, 3)), g.normal(size=(4, 3))
    res = []
    for T in (tt, real):
        F = T.nn.functional

        def loss(a, b, F=F):
            return F.huber_loss(a, b, delta=0.5) + F.smooth_l1_loss(a, b, beta=0.3)

        res.append(T.func.vmap(T.func.grad(loss))(T.tensor(x), T.tensor(y)).numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)
