"""Train a small neural network on handwritten digits with tracegrad.

The data are the UCI handwritten digits that ship inside scikit-learn
(1,797 grey-scale 8x8 images of the digits 0-9; nothing is downloaded).
The model is a multilayer perceptron, 64 pixels -> 64 tanh units -> 10
logits, trained on softmax cross-entropy with Adam.  Gradients come from
``tracegrad.value_and_grad``; the optimizer is a few lines of NumPy applied
to the parameter pytree with ``tracegrad.tree_util.tree_map``.

Before training, the loss gradient is checked once against finite
differences with ``tracegrad.test_util.check_grads``.  The script prints
its progress and the final test accuracy, and exits with status 1 if that
accuracy is below 0.95.  Everything is seeded, so runs are repeatable.

Run it with::

    pip install -e ".[examples]" && python examples/digits.py

``--jit`` trains the same model with the gradient step compiled by
``tracegrad.jit`` (traced once per batch shape, then run without tracing):
the same arithmetic in the same order, so the same accuracy, in less time.
"""
import argparse
import sys
import time

import numpy as np

import tracegrad as tg
import tracegrad.nn as tnn
import tracegrad.numpy as tnp
from tracegrad.test_util import check_grads
from tracegrad.tree_util import tree_leaves, tree_map

try:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
except ImportError:
    sys.exit('This example needs scikit-learn: pip install -e ".[examples]"')

TARGET_ACCURACY = 0.95


def load_data(seed):
    """Standardized train/test split: ``(x_train, x_test, y_train, y_test)``.

    ``x`` has shape (n, 64), float64; ``y`` holds integer labels 0-9.  The
    split keeps a quarter of the images for testing, in the same class
    proportions as the whole set.  Each pixel is standardized with the
    training set's mean and standard deviation (pixels that are constant in
    the training set are only centred).
    """
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data.astype(np.float64),
        digits.target,
        test_size=0.25,
        random_state=seed,
        stratify=digits.target,
    )
    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    std[std == 0] = 1.0
    return (x_train - mean) / std, (x_test - mean) / std, y_train, y_test


def init_params(rng, sizes):
    """One ``{"W": (m, n), "b": (n,)}`` dict per layer; W ~ N(0, 1/m)."""
    return [
        {"W": rng.standard_normal((m, n)) / np.sqrt(m), "b": np.zeros(n)}
        for m, n in zip(sizes[:-1], sizes[1:])
    ]


def predict(params, x):
    """Logits, shape (batch, 10), of the network for inputs ``x`` (batch, 64)."""
    *hidden, last = params
    for layer in hidden:
        x = tnp.tanh(x @ layer["W"] + layer["b"])
    return x @ last["W"] + last["b"]


def loss(params, x, targets):
    """Softmax cross-entropy averaged over the batch; ``targets`` are one-hot."""
    log_probs = tnn.log_softmax(predict(params, x), axis=-1)
    return -tnp.mean(tnp.sum(targets * log_probs, axis=-1))


def accuracy(params, x, y):
    """Fraction of the images in ``x`` whose predicted digit is ``y``."""
    return float(np.mean(np.argmax(predict(params, x), axis=-1) == y))


def adam(lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam (Kingma & Ba, 2015) on pytrees: returns ``(init, update)``.

    ``init(params)`` makes the optimizer state; ``update(params, grads,
    state)`` returns the new parameters and state.
    """

    def init(params):
        zeros = tree_map(np.zeros_like, params)
        return {"step": 0, "m": zeros, "v": zeros}

    def update(params, grads, state):
        step = state["step"] + 1
        m = tree_map(lambda m, g: beta1 * m + (1 - beta1) * g, state["m"], grads)
        v = tree_map(lambda v, g: beta2 * v + (1 - beta2) * g * g, state["v"], grads)
        rate = lr * np.sqrt(1 - beta2**step) / (1 - beta1**step)  # bias correction
        params = tree_map(lambda p, m, v: p - rate * m / (np.sqrt(v) + eps), params, m, v)
        return params, {"step": step, "m": m, "v": v}

    return init, update


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam step size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jit", action="store_true",
                        help="compile the gradient step with tracegrad.jit")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    x_train, x_test, y_train, y_test = load_data(args.seed)
    onehot = np.eye(10)[y_train]
    rng = np.random.default_rng(args.seed)
    params = init_params(rng, (x_train.shape[1], args.hidden, 10))
    n_params = sum(p.size for p in tree_leaves(params))
    print(
        f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels; "
        f"MLP 64-{args.hidden}-10 with {n_params} parameters"
    )

    # Check the loss derivatives, to second order, against finite differences
    # on a few images before trusting them for training.  The check probes
    # random directions through all parameters at once, along which the loss
    # curves strongly, so a step of 1e-5 (not the default 1e-4) keeps the
    # finite differences' own O(step**2) error below the tolerance.
    check_grads(
        loss, (params, x_train[:8], onehot[:8]), order=2, modes=("fwd", "rev"), eps=1e-5
    )
    print("check_grads: loss derivatives match finite differences (order 2, fwd and rev)")

    loss_and_grad = tg.value_and_grad(loss)
    if args.jit:
        loss_and_grad = tg.jit(loss_and_grad)
    opt_init, opt_update = adam(args.lr)
    opt_state = opt_init(params)
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        for i in range(0, len(order), args.batch_size):
            batch = order[i : i + args.batch_size]
            value, grads = loss_and_grad(params, x_train[batch], onehot[batch])
            params, opt_state = opt_update(params, grads, opt_state)
            losses.append(float(value))
        if epoch == 1 or epoch % 5 == 0 or epoch == args.epochs:
            print(
                f"epoch {epoch:3d}  loss {np.mean(losses):.4f}  "
                f"train accuracy {accuracy(params, x_train, y_train):.4f}  "
                f"test accuracy {accuracy(params, x_test, y_test):.4f}",
                flush=True,
            )

    test_accuracy = accuracy(params, x_test, y_test)
    print(f"trained in {time.perf_counter() - start:.1f} s" + (" (jit)" if args.jit else ""))
    print(f"final test accuracy: {test_accuracy:.4f}")
    if test_accuracy < TARGET_ACCURACY:
        print(f"FAILED: test accuracy below {TARGET_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
