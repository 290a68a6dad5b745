"""``DataLoader``: batches from a dataset, in the calling process.

Argument checks, their order and messages, ``len()`` and the iteration rules follow
``torch.utils.data.dataloader`` of PyTorch 2.13. There are no worker processes:
``num_workers > 0`` is accepted and loads in the calling process too (see
:class:`DataLoader`).
"""
import math
import warnings

from ._collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def get_worker_info():
    """Information about the current loader worker: always None here, since tracegrad's
    :class:`DataLoader` loads in the calling (main) process, where PyTorch returns None too.

    Returns
    -------
    None
    """
    return None


class _InfiniteConstantSampler:
    """The sampler of an iterable-style dataset: None forever (the stream decides)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over a dataset in batches.

    Parameters
    ----------
    dataset : Dataset or IterableDataset
        Map-style (``dataset[key]``, keys from the sampler) or iterable-style (samples
        in the stream's order; no ``shuffle``, ``sampler`` or ``batch_sampler``).
    batch_size : int or None, default 1
        Samples per batch; None turns automatic batching off (each sample passes through
        ``collate_fn``, by default :func:`default_convert`, on its own).
    shuffle : bool, optional
        Map-style: a :class:`RandomSampler` (drawing from ``generator``), reshuffled at
        every iteration.
    sampler : Sampler or iterable, optional
        Keys to load, one at a time; excludes ``shuffle``.
    batch_sampler : Sampler or iterable of lists, optional
        Batches of keys; excludes ``batch_size`` (other than 1), ``shuffle``, ``sampler``
        and ``drop_last``.
    num_workers : int, default 0
        Must be non-negative. Values above 0 are accepted and load in the calling
        process, like 0: same batches in the same order, no parallelism,
        ``worker_init_fn`` not called, ``get_worker_info()`` None (so an
        :class:`IterableDataset` is read once, not once per worker).
    collate_fn : callable, optional
        Turns a list of samples into a batch; default :func:`default_collate` (or
        :func:`default_convert` with ``batch_size=None``).
    pin_memory : bool, default False
        Accepted; no effect (CPU only, and PyTorch also pins nothing without an
        accelerator, with a warning tracegrad does not give).
    drop_last : bool, default False
        Drop the last batch when shorter than ``batch_size``.
    timeout : float, default 0
        Must be non-negative. With ``num_workers=0``, a positive value makes iteration
        raise AssertionError, as in PyTorch; otherwise unused.
    worker_init_fn : callable, optional
        Accepted; never called (no workers).
    multiprocessing_context : optional
        Only with ``num_workers > 0`` (ValueError otherwise, as in PyTorch); unused.
    generator : Generator, optional
        Source of the default :class:`RandomSampler`'s permutations.
    prefetch_factor : int, optional
        Only with ``num_workers > 0``; unused.
    persistent_workers : bool, default False
        Only with ``num_workers > 0``; unused.
    pin_memory_device : str, default ""
        Accepted; unused.
    in_order : bool, default True
        Accepted; batches always come in order.

    Attributes
    ----------
    dataset, batch_size, drop_last, sampler, batch_sampler, collate_fn, generator, ...
        As resolved from the arguments (``batch_size`` None with a ``batch_sampler``);
        ``batch_size``, ``batch_sampler``, ``sampler``, ``drop_last``, ``dataset`` and
        ``persistent_workers`` cannot be reassigned (ValueError).

    Notes
    -----
    ``len(loader)`` is the number of batches: ``len(batch_sampler)`` (or of the sampler
    without batching) for a map-style dataset; for an iterable-style one,
    ``len(dataset)`` divided by ``batch_size`` (rounded up, or down with ``drop_last``),
    and, once ``len()`` has been asked, a warning when an iteration yields more batches
    than ``len(dataset)`` (PyTorch's check, which compares batches with samples).

    Raises
    ------
    ValueError
        for a negative ``num_workers`` or ``timeout``, worker-only options without
        workers, ``shuffle``/``sampler``/``batch_sampler`` with an iterable-style dataset,
        ``sampler`` with ``shuffle``, ``batch_sampler`` with another batching option,
        ``batch_size=None`` with ``drop_last``, or from :class:`BatchSampler` for a bad
        ``batch_size``/``drop_last``; PyTorch's messages.

    Examples
    --------
    >>> import tracegrad.torch as torch
    >>> from tracegrad.torch.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(torch.arange(5.), torch.arange(5))
    >>> [y.tolist() for x, y in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    _initialized = False
    _frozen = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             f"loading (num_workers > 0), but got num_workers={num_workers}")
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._len_called = None  # len(dataset) of an iterable-style dataset, once asked
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in self._frozen:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._iterable:
            n = self._len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        if self.timeout != 0 and self.num_workers == 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        return _LoaderIter(self)


class _LoaderIter:
    """One pass over a :class:`DataLoader` (``len()`` is the loader's index sampler's)."""

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._indices = iter(loader._index_sampler)
        self._collate = loader.collate_fn
        self._auto = loader._auto_collation
        self._drop_last = loader.drop_last
        self._len_called = loader._len_called
        self._yielded = 0
        if loader._iterable:
            self._stream = iter(self._dataset)
            self._ended = False
            self._fetch = self._fetch_iterable
        else:
            self._fetch = self._fetch_map
            # the fast path of a plain TensorDataset with default collation; tensors that
            # require grad take the general path, whose graph (StackBackward0) is PyTorch's
            self._gather = (type(self._dataset) is TensorDataset and self._auto
                            and self._collate is default_collate
                            and not any(t.requires_grad for t in self._dataset.tensors))

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader._index_sampler)

    def _fetch_map(self, index):
        if not self._auto:
            return self._collate(self._dataset[index])
        if self._gather:
            # one gather per tensor instead of len(index) selects and a stack: the same
            # batch (values, dtypes, shapes; a list, as default_collate makes of tuples)
            return [t[list(index)] for t in self._dataset.tensors]
        getitems = getattr(self._dataset, "__getitems__", None)
        if getitems:
            samples = getitems(index)
        else:
            samples = [self._dataset[i] for i in index]
        return self._collate(samples)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto:
            return self._collate(next(self._stream))
        samples = []
        for _ in index:
            try:
                samples.append(next(self._stream))
            except StopIteration:
                self._ended = True
                break
        if not samples or (self._drop_last and len(samples) < len(index)):
            raise StopIteration
        return self._collate(samples)

    def __next__(self):
        data = self._fetch(next(self._indices))
        self._yielded += 1
        if (self._loader._iterable and self._len_called is not None
                and self._yielded > self._len_called):
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._len_called}(when accessing len(dataloader)), but "
                          f"{self._yielded} samples have been fetched. ", stacklevel=2)
        return data
