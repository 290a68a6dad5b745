"""Train a small convolutional network on the digits, in the PyTorch style, on tracegrad.

scikit-learn's 8x8 handwritten digits (1,797 images, nothing downloaded) as
1-channel images with pixels scaled to [0, 1], classified by an
``nn.Sequential`` CNN: two blocks of ``Conv2d`` (3x3, padding 1),
``BatchNorm2d``, ``ReLU`` and ``MaxPool2d(2)`` (8x8 -> 4x4 -> 2x2), then
``Flatten``, ``Dropout`` and a ``Linear`` layer to 10 logits.  Training is
the usual PyTorch loop: a shuffling ``DataLoader`` over a
``TensorDataset``, ``nn.CrossEntropyLoss``, ``optim.Adam``,
``model.train()`` / ``model.eval()`` and ``torch.no_grad()`` for
evaluation.  The trained weights are written with
``torch.save(model.state_dict(), path)``; ``--load PATH`` reads such a file
(``torch.load`` + ``model.load_state_dict``) and only evaluates it.  Only
the import line says tracegrad: replace it with ``import torch`` and the
script runs on PyTorch unchanged, and either library loads the weights the
other saved.

It prints the loss per epoch and the final test accuracy, and exits with
status 1 if that accuracy is below 0.97.  Everything is seeded.

Run it with::

    pip install -e ".[examples]" && python examples/cnn_digits.py
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

# attributes rather than ``from torch import nn``: that statement imports
# whatever module is named ``torch``, not the one bound to the name above
nn = torch.nn
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset
TARGET_ACCURACY = 0.97


def load_data(seed):
    """Train/test tensors ``(x_train, x_test, y_train, y_test)``.

    ``x`` is float32 of shape (n, 1, 8, 8) with pixels in [0, 1] (the
    digits' 0-16 intensities divided by 16), ``y`` int64 labels 0-9; a
    quarter of the images, stratified by class, are kept for testing.
    """
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.images / 16.0, digits.target, test_size=0.25, random_state=seed,
        stratify=digits.target,
    )
    return (torch.tensor(x_train, dtype=torch.float32).unsqueeze(1),
            torch.tensor(x_test, dtype=torch.float32).unsqueeze(1),
            torch.tensor(y_train, dtype=torch.long), torch.tensor(y_test, dtype=torch.long))


def make_model():
    """The CNN: (n, 1, 8, 8) images -> (n, 10) logits."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(0.25),
        nn.Linear(32 * 2 * 2, 10),
    )


def accuracy(model, x, y):
    """Fraction of the images in ``x`` whose predicted digit is ``y`` (in eval mode)."""
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    return (predicted == y).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.003, help="Adam step size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="cnn_digits.pt",
                        help="where to write the trained state_dict")
    parser.add_argument("--load", metavar="PATH",
                        help="evaluate the state_dict saved in PATH instead of training")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    torch.manual_seed(args.seed)

    x_train, x_test, y_train, y_test = load_data(args.seed)
    model = make_model()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"digits: {len(x_train)} training and {len(x_test)} test images of 8x8 pixels; "
          f"{n_params} parameters")
    print(model)

    if args.load is not None:
        model.load_state_dict(torch.load(args.load))
        print(f"loaded {args.load}")
    else:
        loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size,
                            shuffle=True, generator=torch.Generator().manual_seed(args.seed))
        loss_fn = nn.CrossEntropyLoss()
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        for epoch in range(1, args.epochs + 1):
            model.train()
            total, count = 0.0, 0
            for images, labels in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(images), labels)
                loss.backward()
                optimizer.step()
                total += loss.item() * len(labels)
                count += len(labels)
            print(f"epoch {epoch:3d}  loss {total / count:.4f}  "
                  f"test accuracy {accuracy(model, x_test, y_test):.4f}", flush=True)
        torch.save(model.state_dict(), args.save)
        print(f"trained in {time.perf_counter() - start:.1f} s; saved the weights to {args.save}")

    test_accuracy = accuracy(model, x_test, y_test)
    print(f"final test accuracy: {test_accuracy:.4f}")
    if test_accuracy < TARGET_ACCURACY:
        print(f"FAILED: test accuracy below {TARGET_ACCURACY}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
