"""Fit a Gaussian process's hyperparameters by maximizing its log marginal likelihood.

The data is scikit-learn's diabetes set (442 patients, 10 standardized
features, disease progression after one year).  The model: y ~ GP(0, k) with
an RBF kernel with one length scale per feature (automatic relevance
determination), an amplitude and a noise variance,

    k(x, x') = amp * exp(-0.5 * sum_d (x_d - x'_d)**2 / length_d**2) + noise * [x == x'],

all three positive, optimized as logarithms.  The negative log marginal
likelihood (Rasmussen and Williams, "Gaussian Processes for Machine
Learning", 2006, eq. 2.30) is

    0.5 y^T K^-1 y + sum(log diag(L)) + 0.5 n log(2 pi),   K = L L^T,

computed with ``cho_factor``/``cho_solve`` and minimized with
``tracegrad.scipy.optimize.minimize(method="BFGS")`` on tracegrad's
gradient.  Prints the fitted hyperparameters, the log marginal likelihood
and the test error of the posterior mean on held-out patients.

Run: ``python examples/gp.py`` (needs ``pip install -e ".[examples,scipy]"``).
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.scipy.linalg import cho_factor, cho_solve
from tracegrad.scipy.optimize import minimize
from tracegrad.test_util import check_grads


def kernel(log_params, xa, xb):
    """The ARD RBF kernel matrix between the rows of ``xa`` and ``xb``."""
    log_amp, log_len = log_params[0], log_params[2:]
    za, zb = xa / tnp.exp(log_len), xb / tnp.exp(log_len)
    d2 = tnp.sum(za ** 2, axis=1)[:, None] + tnp.sum(zb ** 2, axis=1)[None, :] - 2.0 * za @ zb.T
    return tnp.exp(log_amp) * tnp.exp(-0.5 * tnp.maximum(d2, 0.0))


def negative_log_marginal_likelihood(log_params, x, y):
    n = x.shape[0]
    k = kernel(log_params, x, x) + tnp.exp(log_params[1]) * tnp.eye(n)
    factor = cho_factor(k, lower=True)
    alpha = cho_solve(factor, y)
    return 0.5 * y @ alpha + tnp.sum(tnp.log(tnp.diagonal(factor[0]))) + 0.5 * n * np.log(2 * np.pi)


def posterior_mean(log_params, x, y, x_new):
    k = kernel(log_params, x, x) + tnp.exp(log_params[1]) * tnp.eye(x.shape[0])
    return kernel(log_params, x_new, x) @ cho_solve(cho_factor(k, lower=True), y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--maxiter", type=int, default=200, help="BFGS iterations at most")
    parser.add_argument("--seed", type=int, default=0, help="train/test split seed")
    args = parser.parse_args(argv)

    x, y = load_diabetes(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=args.seed)
    mu, sd = x_train.mean(axis=0), x_train.std(axis=0)
    y_mu, y_sd = y_train.mean(), y_train.std()
    x_train, x_test = (x_train - mu) / sd, (x_test - mu) / sd
    y_train_std = (y_train - y_mu) / y_sd
    n, d = x_train.shape

    # amplitude 1, noise 0.5, length scales sqrt(d) (standardized data)
    p0 = np.concatenate([[0.0, np.log(0.5)], np.full(d, 0.5 * np.log(d))])
    nll = negative_log_marginal_likelihood
    check_grads(lambda p: nll(p, x_train[:40], y_train_std[:40]), (p0,), order=2, modes=("fwd", "rev"))
    print("check_grads: likelihood derivatives match finite differences (second order)")

    print(f"fitting on {n} patients, {d} features, {d + 2} hyperparameters; "
          f"log marginal likelihood at the start: {-float(nll(p0, x_train, y_train_std)):.4f}")
    t0 = time.perf_counter()
    res = minimize(nll, p0, args=(x_train, y_train_std), method="BFGS",
                   options={"maxiter": args.maxiter})
    elapsed = time.perf_counter() - t0
    print(f"BFGS: {res.nit} iterations, {res.nfev} evaluations, {elapsed:.2f} s, "
          f"success={res.success} (status {res.status}), |gradient| = {np.linalg.norm(res.jac):.2e}")
    amp, noise, lengths = np.exp(res.x[0]), np.exp(res.x[1]), np.exp(res.x[2:])
    names = load_diabetes().feature_names
    print(f"amplitude: {amp:.4f}   noise variance: {noise:.4f}   (standardized target)")
    print("length scales: " + ", ".join(f"{nm}={v:.3g}" for nm, v in zip(names, lengths)))
    print(f"log marginal likelihood: {-float(res.fun):.4f}")

    pred = np.asarray(posterior_mean(res.x, x_train, y_train_std, x_test)) * y_sd + y_mu
    rmse = float(np.sqrt(np.mean((pred - y_test) ** 2)))
    baseline = float(np.sqrt(np.mean((y_mu - y_test) ** 2)))
    print(f"test RMSE of the posterior mean: {rmse:.2f} (predicting the mean: {baseline:.2f})")
    return res


if __name__ == "__main__":
    main()
