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
    with pytest.raises(TypeError, match="concrete values"):
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
