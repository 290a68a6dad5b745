"""Samplers of ``tracegrad.torch.utils.data``: iterables of dataset keys (or of lists of
keys, :class:`BatchSampler`) that drive a :class:`DataLoader` over a map-style dataset.

Argument checks and error messages follow ``torch.utils.data.sampler`` of PyTorch 2.13.
Random choices come from a :class:`tracegrad.torch.Generator` (NumPy's PCG64), so a
seeded generator reproduces tracegrad's order but not PyTorch's.
"""
import itertools

import numpy as np

from ..._creation import Generator, _rng, as_tensor, randint, randperm
from ..._dtype import float64

__all__ = [
    "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
    "WeightedRandomSampler",
]


class Sampler:
    """Base class of samplers: subclasses define ``__iter__`` (and ``__len__`` when the
    number of keys is known; a sampler without it has no ``len()``).

    Parameters
    ----------
    data_source : optional
        Ignored (accepted for compatibility, as in PyTorch).
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Keys ``0, 1, ..., len(data_source) - 1`` in order.

    Parameters
    ----------
    data_source : sized
        Its ``len()`` is read at each iteration.
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    """A generator seeded from the default one (so ``manual_seed`` makes it reproducible)."""
    seed = int(_rng(None).integers(0, 2 ** 63))
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """Keys of ``data_source`` in random order.

    Parameters
    ----------
    data_source : sized
    replacement : bool, default False
        True: ``num_samples`` independent uniform draws from ``range(len(data_source))``.
        False: a random permutation; with ``num_samples > len(data_source)``, whole
        permutations one after another, the last one cut short.
    num_samples : int, optional
        Number of keys per iteration; default ``len(data_source)``.
    generator : Generator, optional
        Source of the randomness. Without one, each iteration seeds a fresh generator
        from the default generator (as PyTorch does), so ``torch.manual_seed`` makes the
        order reproducible.

    Raises
    ------
    TypeError
        for a ``replacement`` that is not a bool.
    ValueError
        for a ``num_samples`` that is not a positive int (also an empty ``data_source``).
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """``num_samples`` if given, else ``len(data_source)``."""
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        gen = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=gen).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=gen).tolist()
            yield from randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order (a fresh permutation at each iteration).

    Parameters
    ----------
    indices : sequence
    generator : Generator, optional
        Default: the default generator.
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Keys ``0 .. len(weights) - 1`` drawn with probabilities proportional to ``weights``.

    Parameters
    ----------
    weights : sequence of float
        1-d, non-negative, finite, not all zero (need not sum to 1); kept as a float64
        tensor in ``self.weights``.
    num_samples : int
        Keys per iteration (positive).
    replacement : bool, default True
        False: each key at most once (sequential draws without replacement; the draws
        reach zero-weight keys only after every positive-weight key), so
        ``num_samples <= len(weights)``.
    generator : Generator, optional
        Default: the default generator.

    Raises
    ------
    ValueError
        at construction for a bad ``num_samples``, ``replacement`` or weights' shape.
    RuntimeError
        while iterating, with ``torch.multinomial``'s messages: weights containing
        inf/NaN, negative, or summing to 0, or more samples than keys without
        replacement.
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights = as_tensor(weights, dtype=float64)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        w = self.weights.numpy()
        n = w.shape[0]
        if not self.replacement and self.num_samples > n:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        if not np.all(np.isfinite(w)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(w < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        total = w.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = _rng(self.generator)
        if self.replacement:
            keys = rng.choice(n, size=self.num_samples, replace=True, p=w / total)
        else:
            # sequential draws without replacement, proportional to the weights, are the
            # order of exponential clocks E_i / w_i (zero weights: infinite, last)
            with np.errstate(divide="ignore"):
                clocks = rng.standard_exponential(n) / w
            keys = np.argsort(clocks, kind="stable")[:self.num_samples]
        yield from keys.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the keys of ``sampler`` into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler or iterable
    batch_size : int
        Positive.
    drop_last : bool
        True: drop a final batch shorter than ``batch_size``.

    Notes
    -----
    ``len()`` is ``len(sampler) // batch_size`` with ``drop_last``, otherwise
    ``ceil(len(sampler) / batch_size)``.

    Raises
    ------
    ValueError
        for a ``batch_size`` that is not a positive int or a ``drop_last`` that is not a
        bool.
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
