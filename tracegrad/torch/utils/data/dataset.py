"""Datasets of ``tracegrad.torch.utils.data``: map-style and iterable-style, and their
combinations (``TensorDataset``, ``Subset``, ``ConcatDataset``, ``ChainDataset``,
``StackDataset``) and :func:`random_split`.

Behaviour, argument checks and error messages follow ``torch.utils.data.dataset`` of
PyTorch 2.13.
"""
import bisect
import collections.abc
import itertools
import math
import warnings

from ..._creation import default_generator, randperm

__all__ = [
    "ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "StackDataset", "Subset",
    "TensorDataset", "random_split",
]


class Dataset:
    """A map-style dataset: samples looked up by key with ``dataset[key]``.

    Subclasses define ``__getitem__`` (and usually ``__len__``, which the default
    samplers of :class:`~tracegrad.torch.utils.data.DataLoader` need); they may also
    define ``__getitems__(indices)`` returning the list of samples of a whole batch,
    which the loader then calls once per batch instead of ``__getitem__`` per sample.

    ``a + b`` is ``ConcatDataset([a, b])``.

    Raises
    ------
    NotImplementedError
        from ``__getitem__`` when a subclass does not define it.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, collections.abc.Iterable):
    """An iterable-style dataset: a stream of samples from ``__iter__``.

    Subclasses must define ``__iter__`` (it is abstract: instantiating a class without
    it raises TypeError). A :class:`DataLoader` over it draws samples in the
    stream's order (no sampler, no shuffling); ``len()`` works when the subclass defines
    ``__len__``. ``a + b`` is ``ChainDataset([a, b])``.

    Notes
    -----
    Loading always happens in the calling process here (see :class:`DataLoader`), so
    :func:`get_worker_info` returns None inside ``__iter__`` and each sample is
    produced once, whatever ``num_workers`` is.
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are slices of tensors along their first dimension.

    Parameters
    ----------
    *tensors : Tensor
        Tensors of equal size along dimension 0 (``N``). Sample ``i`` is the tuple
        ``(t[i] for t in tensors)``, shapes ``t.shape[1:]``, dtypes kept.

    Raises
    ------
    AssertionError
        ``"Size mismatch between tensors"`` when the first dimensions differ.
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples of several equally long datasets side by side.

    Parameters
    ----------
    *args : Dataset
        Sample ``i`` is the tuple ``(d[i] for d in args)``.
    **kwargs : Dataset
        Or, by keyword: sample ``i`` is the dict ``{k: d[i]}``.

    Raises
    ------
    ValueError
        when both or neither of ``args`` and ``kwargs`` are given, or the lengths differ.
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or"
                             "``dict``- (via ``kwargs``) like input/output, but both types "
                             "are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, d in items:
            if callable(getattr(d, "__getitems__", None)):
                column = d.__getitems__(indices)
                if len(column) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch."
                                     f" Expected {len(indices)}, got {len(column)}")
            else:
                column = [d[i] for i in indices]
            columns[key] = column
        if named:
            return [{k: c[j] for k, c in columns.items()} for j in range(len(indices))]
        return [tuple(c[j] for c in columns.values()) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other.

    Parameters
    ----------
    datasets : iterable of Dataset
        Non-empty; none may be an :class:`IterableDataset` (use :class:`ChainDataset`).

    Attributes
    ----------
    datasets : list
    cumulative_sizes : list of int
        Running totals of the lengths; ``len(self)`` is the last.

    Raises
    ------
    AssertionError
        for no datasets or an iterable-style one.
    ValueError
        from ``__getitem__`` for a negative index beyond the length.
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of ``len(e)`` for ``e`` in ``sequence``."""
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable-style datasets one after the other, chained lazily.

    Parameters
    ----------
    datasets : iterable of IterableDataset

    Raises
    ------
    AssertionError
        while iterating or taking ``len()``, on reaching a dataset that is not
        iterable-style.
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def _check(self, d):
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        return d

    def __iter__(self):
        for d in self.datasets:
            yield from self._check(d)

    def __len__(self):
        return sum(len(self._check(d)) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``subset[i]`` is ``dataset[indices[i]]``.

    Parameters
    ----------
    dataset : Dataset
    indices : sequence of int

    Raises
    ------
    NotImplementedError
        for a subclass overriding ``__getitem__`` but not ``__getitems__`` (the loader
        fetches batches through ``__getitems__``, which would bypass the override).
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When "
                "subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        keys = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(keys)
        return [self.dataset[k] for k in keys]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s.

    Parameters
    ----------
    dataset : Dataset
        Anything with ``len()`` and indexing.
    lengths : sequence of int or float
        The subsets' lengths, summing to ``len(dataset)``; or fractions summing to 1,
        turned into lengths as PyTorch does: ``floor(frac * len(dataset))`` each, then
        the remainder handed out one by one to the splits in order (round robin). A
        resulting length of 0 warns.
    generator : Generator, optional
        Source of the permutation (default: the default generator, so
        ``torch.manual_seed`` makes the split reproducible). tracegrad's permutations
        are not PyTorch's for the same seed.

    Returns
    -------
    list of Subset
        Their indices together are a permutation of ``range(len(dataset))``.

    Raises
    ------
    ValueError
        for a fraction outside ``[0, 1]``, or lengths not summing to the length.
    """
    n = len(dataset)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, size in enumerate(lengths):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(sum(lengths), generator=generator).tolist()
    ends = list(itertools.accumulate(lengths))
    return [Subset(dataset, perm[end - size:end]) for end, size in zip(ends, lengths)]
