"""Train a digits classifier in the PyTorch style, on tracegrad.

The same task as ``examples/digits.py`` (scikit-learn's 8x8 handwritten
digits, 1,797 images, nothing downloaded), written as a PyTorch training
loop: an ``nn.Sequential`` multilayer perceptron (64 -> 64 tanh units -> 10
logits), ``nn.CrossEntropyLoss``, ``optim.SGD`` with momentum, and the
usual ``optimizer.zero_grad()`` / ``loss.backward()`` / ``optimizer.step()``
steps.  Only the import line says tracegrad: replace it with ``import
torch`` and the script runs on PyTorch unchanged.

It prints its progress and the final test accuracy, and exits with status
1 if that accuracy is below 0.95.  Everything is seeded.

Run it with::

    pip install -e ".[examples]" && python examples/digits_torch.py
"""
import argparse
import sys
import time

import tracegrad.torch as torch

try:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
except ImportError:
    sys.exit('This example needs scikit-learn: pip install -e ".[examples]"')

nn = torch.nn
TARGET_ACCURACY = 0.95


def load_data(seed):
    """Standardized train/test tensors ``(x_train, x_test, y_train, y_test)``.

    ``x`` is float32 of shape (n, 64), ``y`` int64 labels 0-9; a quarter of
    the images, stratified by class, are kept for testing, and each pixel is
    standardized with the training set's statistics.
    """
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data, digits.target, test_size=0.25, random_state=seed,
        stratify=digits.target,
    )
    x_train = torch.tensor(x_train, dtype=torch.float32)
    x_test = torch.tensor(x_test, dtype=torch.float32)
    mean, std = x_train.mean(dim=0), x_train.std(dim=0, unbiased=False)
    std = torch.where(std == 0, torch.ones_like(std), std)
    return ((x_train - mean) / std, (x_test - mean) / std,
            torch.tensor(y_train, dtype=torch.long), torch.tensor(y_test, dtype=torch.long))


def accuracy(model, x, y):
    """Fraction of the images in ``x`` whose predicted digit is ``y``."""
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05, help="SGD step size")
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    torch.manual_seed(args.seed)

    x_train, x_test, y_train, y_test = load_data(args.seed)
    model = nn.Sequential(
        nn.Linear(64, args.hidden),
        nn.Tanh(),
        nn.Linear(args.hidden, 10),
    )
    n_params = sum(p.numel() for p in model.parameters())
    print(f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels; "
          f"{n_params} parameters")
    print(model)

    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(len(x_train))
        total, batches = 0.0, 0
        for i in range(0, len(order), args.batch_size):
            batch = order[i:i + args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
        if epoch == 1 or epoch % 5 == 0 or epoch == args.epochs:
            print(f"epoch {epoch:3d}  loss {total / batches:.4f}  "
                  f"train accuracy {accuracy(model, x_train, y_train):.4f}  "
                  f"test accuracy {accuracy(model, x_test, y_test):.4f}", flush=True)

    test_accuracy = accuracy(model, x_test, y_test)
    print(f"trained in {time.perf_counter() - start:.1f} s")
    print(f"final test accuracy: {test_accuracy:.4f}")
    if test_accuracy < TARGET_ACCURACY:
        print(f"FAILED: test accuracy below {TARGET_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
