"""``tracegrad.torch.utils.data``: PyTorch's data-loading API.

Datasets (:class:`Dataset`, :class:`IterableDataset`, :class:`TensorDataset`,
:class:`Subset`, :class:`ConcatDataset`, :class:`ChainDataset`, :class:`StackDataset`,
:func:`random_split`), samplers (:class:`Sampler`, :class:`SequentialSampler`,
:class:`RandomSampler`, :class:`SubsetRandomSampler`, :class:`WeightedRandomSampler`,
:class:`BatchSampler`), :class:`DataLoader` with :func:`default_collate` /
:func:`default_convert`, and :func:`get_worker_info`. Loading happens in the calling
process (no worker processes; ``num_workers > 0`` loads there too). Random orders come
from :class:`tracegrad.torch.Generator`: reproducible with a seed, not PyTorch's numbers.
No DataPipes and no ``DistributedSampler``.
"""
from ._collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
    "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]
