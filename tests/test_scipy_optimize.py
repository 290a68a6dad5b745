"""tracegrad.scipy.optimize.minimize and examples/gp.py."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.scipy.optimize import OptimizeResults, minimize

pytest.importorskip("scipy.optimize")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gp.py"


def rosenbrock(x, a):
    return tnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2)


def test_bfgs_finds_the_rosenbrock_minimum_as_scipy_does():
    import scipy.optimize

    x0 = np.array([-1.2, 1.0, 0.5])
    res = minimize(rosenbrock, x0, args=(1.0,), method="BFGS")
    assert isinstance(res, OptimizeResults) and res.success and res.status == 0
    np.testing.assert_allclose(res.x, np.ones(3), atol=1e-5)
    assert res.fun < 1e-10 and res.hess_inv.shape == (3, 3)
    np.testing.assert_allclose(res.jac, tg.grad(rosenbrock)(res.x, 1.0))
    ref = scipy.optimize.minimize(lambda x: 100 * np.sum((x[1:] - x[:-1] ** 2) ** 2)
                                  + np.sum((1 - x[:-1]) ** 2), x0, method="BFGS",
                                  jac=scipy.optimize.rosen_der)
    assert res.nit == ref.nit  # the same iteration on the same (exact) gradients
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-10)


def test_options_dtype_and_status():
    res = minimize(rosenbrock, np.array([-1.2, 1.0], np.float32), args=(1.0,), method="bfgs",
                   options={"maxiter": 3})
    assert not res.success and res.status == 1 and res.nit == 3
    assert res.x.dtype == np.float32 and res.fun.dtype == np.float32
    res = minimize(lambda x: tnp.sum((x - 3.0) ** 2), np.array([0, 0]), method="BFGS", tol=1e-10)
    assert res.x.dtype == np.float64
    np.testing.assert_allclose(res.x, [3.0, 3.0], rtol=1e-12)


def test_errors_name_the_problem(monkeypatch):
    f = lambda x: tnp.sum(x ** 2)  # noqa: E731
    with pytest.raises(ValueError, match="method must be 'BFGS'"):
        minimize(f, np.zeros(2), method="Nelder-Mead")
    with pytest.raises(ValueError, match="1-D"):
        minimize(f, np.zeros((2, 2)), method="BFGS")
    with pytest.raises(TypeError, match="scalar-output"):
        minimize(lambda x: x ** 2, np.ones(2), method="BFGS")
    with pytest.raises(TypeError, match="real-valued"):
        minimize(lambda x: tnp.sum(x ** 2) + 0j, np.ones(2), method="BFGS")
    with pytest.raises(TypeError, match="x0 is traced"):
        tg.grad(lambda s: minimize(f, s * np.ones(2), method="BFGS").fun)(1.0)
    monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    with pytest.raises(ImportError, match=r"\.\[scipy\]"):
        minimize(f, np.ones(2), method="BFGS")


def _load_example():
    spec = importlib.util.spec_from_file_location("gp_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gp_likelihood_equals_scikit_learns():
    pytest.importorskip("sklearn")
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    gp = _load_example()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((30, 3)), rng.standard_normal(30)
    p = np.array([0.3, -1.2, 0.1, 0.5, -0.4])
    kern = (ConstantKernel(np.exp(p[0])) * RBF(np.exp(p[2:])) + WhiteKernel(np.exp(p[1])))
    model = GaussianProcessRegressor(kern, optimizer=None).fit(x, y)
    lml, lml_grad = model.log_marginal_likelihood(model.kernel_.theta, eval_gradient=True)
    # (scikit-learn forms the squared distances differently: 7e-11 relative apart here)
    np.testing.assert_allclose(-gp.negative_log_marginal_likelihood(p, x, y), lml, rtol=1e-9)
    # scikit-learn's theta order: log amplitude, log length scales, log noise
    g = tg.grad(gp.negative_log_marginal_likelihood)(p, x, y)
    np.testing.assert_allclose(-np.concatenate([g[:1], g[2:], g[1:2]]), lml_grad, rtol=1e-8)


def test_gp_example_fits_the_diabetes_data(tmp_path):
    pytest.importorskip("sklearn")
    proc = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "check_grads: likelihood derivatives match" in proc.stdout, out
    assert "success=True" in proc.stdout, out
    start = float(re.search(r"at the start: (-?[0-9.]+)", proc.stdout).group(1))
    final = float(re.search(r"log marginal likelihood: (-?[0-9.]+)", proc.stdout).group(1))
    rmse, base = map(float, re.search(r"test RMSE of the posterior mean: ([0-9.]+) "
                                      r"\(predicting the mean: ([0-9.]+)\)", proc.stdout).groups())
    assert final > start + 10 and rmse < 0.85 * base, out


def test_minimize_inside_a_transform_through_a_closure_names_the_problem():
    def outer(s):
        return minimize(lambda x: tnp.sum((x - s) ** 2), np.zeros(2), method="BFGS").fun

    with pytest.raises(TypeError, match="closes over a value traced"):
        tg.grad(outer)(1.0)
    with pytest.raises(ValueError, match="at least one element"):
        minimize(lambda x: tnp.sum(x), np.zeros(0), method="BFGS")
    assert minimize(lambda x: tnp.sum((x - 1.0) ** 2), np.zeros(2), method="BFGS").success


# Implicit differentiation through the solution ------------------------------

_rng = np.random.default_rng(0)
_X, _Y = _rng.standard_normal((20, 3)), _rng.standard_normal(20)


def ridge(w, lam):
    return 0.5 * tnp.sum((_X @ w - _Y) ** 2) + 0.5 * lam * tnp.sum(w ** 2)


def ridge_solution(lam):
    return minimize(ridge, np.zeros(3), args=(lam,), method="BFGS", tol=1e-12).x


def test_derivatives_of_the_solution_match_the_closed_form_to_second_order():
    # w*(lam) = A^-1 X^T y with A = X^T X + lam I: dw*/dlam = -A^-1 w*, d2w*/dlam2 = 2 A^-2 w*
    lam = 0.7
    a = _X.T @ _X + lam * np.eye(3)
    w = np.linalg.solve(a, _X.T @ _Y)
    np.testing.assert_allclose(ridge_solution(lam), w, rtol=1e-10)
    d1 = -np.linalg.solve(a, w)
    np.testing.assert_allclose(tg.jacrev(ridge_solution)(lam), d1, rtol=1e-8)
    np.testing.assert_allclose(tg.jacfwd(ridge_solution)(lam), d1, rtol=1e-8)
    d2 = 2 * np.linalg.solve(a, np.linalg.solve(a, w))
    np.testing.assert_allclose(tg.jacfwd(tg.jacrev(ridge_solution))(lam), d2, rtol=1e-7)
    np.testing.assert_allclose(tg.hessian(lambda l: ridge_solution(l)[0])(lam), d2[0], rtol=1e-7)


def test_the_value_at_the_solution_follows_the_envelope_theorem():
    # d/dlam min_w f(w, lam) = (d/dlam f)(w*, lam) = |w*|^2 / 2
    lam = 0.7
    w = np.linalg.solve(_X.T @ _X + lam * np.eye(3), _X.T @ _Y)
    res_grad = tg.grad(lambda l: minimize(ridge, np.zeros(3), args=(l,), method="BFGS",
                                          tol=1e-12).fun)(lam)
    np.testing.assert_allclose(res_grad, 0.5 * w @ w, rtol=1e-9)


def test_a_nonlinear_solution_passes_check_grads_in_every_argument():
    # x* solves exp(x) + x = theta * c elementwise (the gradient of f below vanishes there)
    def f(x, theta, c):
        return tnp.sum(tnp.exp(x) + 0.5 * x ** 2 - theta * c * x)

    def sol(theta, c):
        return minimize(f, np.zeros(3), args=(theta, c), method="BFGS", tol=1e-13).x

    theta, c = 1.3, np.array([0.5, 1.0, 2.0])
    x = sol(theta, c)
    np.testing.assert_allclose(np.exp(x) + x, theta * c, rtol=1e-8)
    np.testing.assert_allclose(tg.jacrev(sol)(theta, c), c / (np.exp(x) + 1), rtol=1e-8)
    # (finite differences of a solution known to ~1e-9: eps 1e-3 keeps that noise at 1e-6)
    tg.test_util.check_grads(sol, (theta, c), order=2, modes=("fwd", "rev"), atol=1e-5,
                             rtol=1e-5, eps=1e-3)


def test_diagnostics_of_a_differentiated_minimize_are_concrete():
    seen = {}

    def g(lam):
        res = minimize(ridge, np.zeros(3), args=(lam,), method="BFGS")
        seen.update(success=res.success, nit=res.nit, status=res.status)
        assert res.hess_inv.shape == (3, 3)
        return res.fun

    tg.grad(g)(0.5)
    assert seen["success"] is True and seen["status"] == 0 and isinstance(seen["nit"], int)


def test_under_jit_the_iteration_runs_at_call_time_and_vmap_names_the_problem():
    for lam in (0.7, 0.3):  # one trace, two solutions
        w = np.linalg.solve(_X.T @ _X + lam * np.eye(3), _X.T @ _Y)
        np.testing.assert_allclose(tg.jit(ridge_solution)(lam), w, rtol=1e-10)
    np.testing.assert_allclose(tg.jacrev(tg.jit(ridge_solution))(0.7),
                               tg.jacrev(ridge_solution)(0.7), rtol=1e-12)
    res = tg.jit(lambda lam: minimize(ridge, np.zeros(3), args=(lam,), method="BFGS"))(0.7)
    assert bool(res.success) and int(res.status) == 0
    with pytest.raises(TypeError, match="cannot run under vmap.*loop over the batch"):
        tg.vmap(ridge_solution)(np.array([0.5, 0.7]))
