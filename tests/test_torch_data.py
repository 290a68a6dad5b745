"""tracegrad.torch.utils.data against PyTorch 2.13.

* differential (fixture ``real``, skipped without PyTorch): the same code runs on both
  libraries (``lib.utils.data``) and its results, made plain (tensors become
  ``(dtype, shape, values)``; containers keep their type), must be equal: the batches of
  sequential loaders over map-style and iterable-style datasets, ``default_collate`` and
  ``default_convert`` of nested structures, ``len()``, ``random_split``'s lengths, and
  the errors (type and message) for bad arguments;
* property tests for the random parts (the streams differ from PyTorch's by design):
  every shuffled pass is a permutation, with-replacement draws stay in range, weighted
  draws follow the weights, a seeded generator reproduces the order;
* an end-to-end training loop over a shuffled ``DataLoader``.
"""
import collections
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt
from tracegrad.torch.utils import data as tdata


def import_torch():
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


Point = collections.namedtuple("Point", ["x", "y"])


def plain(obj):
    """``obj`` with every tensor (of either library) as ``("tensor", dtype, shape, values)``;
    containers keep their type name so that a list and a tuple differ."""
    if type(obj).__name__ == "Tensor":
        return ("tensor", str(obj.dtype), tuple(obj.shape), obj.detach().numpy().tolist())
    if isinstance(obj, np.ndarray):
        return ("ndarray", str(obj.dtype), obj.tolist())
    if isinstance(obj, dict):
        return ("dict", {k: plain(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, tuple(plain(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [plain(v) for v in obj])
    return (type(obj).__name__, obj)


def both(real, fn):
    """``fn(lib, lib.utils.data)`` made plain, for tracegrad and PyTorch."""
    import torch.utils.data  # noqa: F401  (torch.utils.data is a lazy submodule)

    return plain(fn(tt, tdata)), plain(fn(real, real.utils.data))


def outcome(fn, *args, **kwargs):
    """``fn``'s plain result, or ``(exception type name, message)``."""
    try:
        return ("ok", plain(fn(*args, **kwargs)))
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


def same_outcome(real, fn):
    """``fn(lib, data)`` gives the same result or the same error on both libraries."""
    import torch.utils.data  # noqa: F401

    ours = outcome(fn, tt, tdata)
    theirs = outcome(fn, real, real.utils.data)
    assert ours == theirs
    return ours


def xy(lib, n=7):
    X = lib.from_numpy(np.arange(n * 3, dtype=np.float32).reshape(n, 3))
    y = lib.from_numpy(np.arange(n, dtype=np.int64) % 3)
    return X, y


# --------------------------------------------------------------------------
# sequential loaders over map-style datasets


@pytest.mark.parametrize("batch_size", [1, 2, 3, 7, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_batches_and_len(real, batch_size, drop_last):
    def run(lib, data):
        loader = data.DataLoader(data.TensorDataset(*xy(lib)), batch_size=batch_size,
                                 drop_last=drop_last)
        return len(loader), list(loader), list(loader)  # two passes: the loader is reusable

    ours, theirs = both(real, run)
    assert ours == theirs


def test_tensor_dataset_batches_requiring_grad_and_subclasses(real):
    def run(lib, data):
        X, y = xy(lib, 5)
        X.requires_grad_()
        batch = next(iter(data.DataLoader(data.TensorDataset(X, y), batch_size=2,
                                          sampler=[4, 1])))

        class Doubled(data.TensorDataset):
            def __getitem__(self, i):
                return tuple(2 * t for t in super().__getitem__(i))

        doubled = list(data.DataLoader(Doubled(y), batch_size=3))
        return batch, batch[0].grad_fn.name(), batch[1].grad_fn, doubled

    ours, theirs = both(real, run)
    assert ours == theirs
    assert ours[1][1] == ("str", "StackBackward0")


def test_batch_size_none_converts_each_sample(real):
    def run(lib, data):
        samples = [np.arange(3, dtype=np.int32), (np.float32(1.5), 2, "s")]
        return len(data.DataLoader(samples, batch_size=None)), list(
            data.DataLoader(samples, batch_size=None))

    ours, theirs = both(real, run)
    assert ours == theirs


def test_custom_sampler_batch_sampler_and_collate_fn(real):
    def run(lib, data):
        ds = data.TensorDataset(*xy(lib))
        by_sampler = list(data.DataLoader(ds, batch_size=2, sampler=[6, 0, 3]))
        batches = data.BatchSampler(data.SequentialSampler(ds), 3, drop_last=False)
        loader = data.DataLoader(ds, batch_sampler=batches)
        by_batch_sampler = (len(loader), loader.batch_size, list(loader))
        by_list = list(data.DataLoader(ds, batch_sampler=[[1, 2], [5]]))
        first = list(data.DataLoader(ds, batch_size=3, collate_fn=lambda b: [s[1] for s in b]))
        return by_sampler, by_batch_sampler, by_list, first

    ours, theirs = both(real, run)
    assert ours == theirs


def test_dataset_with_getitems_is_asked_per_batch(real):
    def run(lib, data):
        class Batched(data.Dataset):
            calls = []

            def __getitem__(self, i):
                raise AssertionError("not used")

            def __getitems__(self, indices):
                self.calls.append(list(indices))
                return [float(i) for i in indices]

            def __len__(self):
                return 5

        ds = Batched()
        return list(data.DataLoader(ds, batch_size=2)), ds.calls

    ours, theirs = both(real, run)
    assert ours == theirs


def test_dict_samples_and_stack_dataset(real):
    def run(lib, data):
        X, y = xy(lib, 5)
        stacked = data.StackDataset(data.TensorDataset(X), y)
        named = data.StackDataset(image=X, label=y)
        return (len(stacked), stacked[1], named[2], list(data.DataLoader(named, batch_size=2)),
                list(data.DataLoader(stacked, batch_size=4)))

    ours, theirs = both(real, run)
    assert ours == theirs


# --------------------------------------------------------------------------
# collate and convert


def nested_samples(lib):
    return [
        {"img": lib.from_numpy(np.full((2, 2), i, np.float32)), "label": i, "w": 0.5 * i,
         "name": f"n{i}", "raw": b"b", "flag": i % 2 == 0,
         "p": Point(np.array([i, i + 1], dtype=np.int32), np.float32(i)),
         "pair": (i, [i * 1.5, np.int16(i)]), "h": np.float16(i)}
        for i in range(3)
    ]


def test_default_collate_nested(real):
    ours, theirs = both(real, lambda lib, data: data.default_collate(nested_samples(lib)))
    assert ours == theirs
    # PyTorch's dtypes: float -> float64, int -> int64, bool -> bool, numpy dtypes kept
    d = dict(ours[1])
    assert d["w"][1] == "torch.float64" and d["label"][1] == "torch.int64"
    assert d["flag"][1] == "torch.bool" and d["h"][1] == "torch.float16"
    assert d["name"] == ("list", [("str", "n0"), ("str", "n1"), ("str", "n2")])


@pytest.mark.parametrize("batch", [
    [1, 2, 3], [1.0, 2.5], [True, False], ["a", "b"], [(1, 2.0), (3, 4.0)],
    [[1, 2], [3, 4]], [Point(1, 2), Point(3, 4)], [np.array([1.0, 2.0]), np.array([3.0, 4.0])],
    [np.int8(1), np.int8(2)], [np.bool_(True), np.bool_(False)], [np.array(5, np.uint8)],
    [{"a": [1, {"b": 2.0}]}, {"a": [3, {"b": 4.0}]}],
])
def test_default_collate_leaves(real, batch):
    ours, theirs = both(real, lambda lib, data: data.default_collate(batch))
    assert ours == theirs


@pytest.mark.parametrize("batch", [
    [object(), object()], [np.array(["a"]), np.array(["b"])], [[1, 2], [3]],
    [None, None],
])
def test_default_collate_errors(real, batch):
    ours = same_outcome(real, lambda lib, data: data.default_collate(batch))
    assert ours[0] in ("TypeError", "RuntimeError")


def test_default_collate_tensor_shapes_must_match(real):
    ours = same_outcome(real, lambda lib, data: data.default_collate(
        [lib.zeros(2), lib.zeros(3)]))
    assert ours[0] == "RuntimeError"


@pytest.mark.parametrize("sample", [
    0, 1.5, "s", np.array([1, 2], np.int32), np.float32(2.5), np.array(["x"]),
    (np.array(1.0), 2), [np.int64(3), "a"], {"k": np.zeros(2, np.float32), "j": 1},
    Point(np.array(0), 1),
])
def test_default_convert(real, sample):
    ours, theirs = both(real, lambda lib, data: data.default_convert(sample))
    assert ours == theirs


def test_default_convert_keeps_tensors():
    t = tt.ones(2)
    assert tdata.default_convert(t) is t
    assert tdata.default_convert([t])[0] is t


# --------------------------------------------------------------------------
# iterable-style datasets


def make_stream(data, n, with_len=True):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

    if with_len:
        Stream.__len__ = lambda self: n
    return Stream()


@pytest.mark.parametrize("batch_size", [None, 1, 3])
@pytest.mark.parametrize("drop_last", [False, True])
def test_iterable_dataset_loader(real, batch_size, drop_last):
    def run(lib, data):
        if batch_size is None and drop_last:
            return None
        loader = data.DataLoader(make_stream(data, 7), batch_size=batch_size,
                                 drop_last=drop_last)
        return len(loader), list(loader)

    ours, theirs = both(real, run)
    assert ours == theirs


def test_chain_dataset_and_plus(real):
    def run(lib, data):
        chain = make_stream(data, 3) + make_stream(data, 2)
        return (type(chain).__name__, len(chain), list(chain),
                list(data.DataLoader(data.ChainDataset([make_stream(data, 2)] * 2),
                                     batch_size=3)))

    ours, theirs = both(real, run)
    assert ours == theirs


def test_chain_dataset_rejects_map_style(real):
    same_outcome(real, lambda lib, data: list(data.ChainDataset([make_stream(data, 1), [1]])))
    same_outcome(real, lambda lib, data: len(data.ChainDataset([[1]])))


def test_iterable_dataset_is_abstract_and_len_optional(real):
    ours = same_outcome(real, lambda lib, data: data.IterableDataset())
    assert ours[0] == "TypeError"
    same_outcome(real, lambda lib, data: len(data.DataLoader(make_stream(data, 3, False))))


def test_iterable_dataset_longer_than_its_len_warns():
    class Liar(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(4))

        def __len__(self):
            return 2

    loader = tdata.DataLoader(Liar(), batch_size=1)
    assert len(loader) == 2
    with pytest.warns(UserWarning, match="was reported to be 2"):
        assert [b.item() for b in loader] == [0, 1, 2, 3]


def test_get_worker_info_is_none_inside_iteration(real):
    def run(lib, data):
        seen = []

        class Probe(data.IterableDataset):
            def __iter__(self):
                seen.append(data.get_worker_info())
                return iter([1])

        list(data.DataLoader(Probe()))
        return seen, data.get_worker_info()

    ours, theirs = both(real, run)
    assert ours == theirs


def test_num_workers_loads_in_process():
    """tracegrad's choice: num_workers > 0 gives the batches of num_workers=0 (no worker
    processes, worker_init_fn not called, an iterable dataset read once)."""
    called = []
    ds = tdata.TensorDataset(*xy(tt))
    loader = tdata.DataLoader(ds, batch_size=3, num_workers=2, worker_init_fn=called.append,
                              prefetch_factor=4, persistent_workers=True, pin_memory=True)
    assert plain(list(loader)) == plain(list(tdata.DataLoader(ds, batch_size=3)))
    assert loader.prefetch_factor == 4 and called == []
    stream = tdata.DataLoader(make_stream(tdata, 5), batch_size=2, num_workers=3)
    assert [b.tolist() for b in stream] == [[0, 1], [2, 3], [4]]
    assert tdata.DataLoader(ds, num_workers=1).prefetch_factor == 2


# --------------------------------------------------------------------------
# datasets


def test_tensor_concat_subset_datasets(real):
    def run(lib, data):
        X, y = xy(lib, 4)
        ds = data.TensorDataset(X, y)
        cat = data.ConcatDataset([ds, data.TensorDataset(X[:2], y[:2])])
        plus = ds + ds
        sub = data.Subset(cat, [5, 0, 2])
        return (len(ds), ds[1], len(cat), cat.cumulative_sizes, cat[4], cat[-1], cat[-6],
                type(plus).__name__, len(plus), len(sub), sub[0],
                list(data.DataLoader(sub, batch_size=2)))

    ours, theirs = both(real, run)
    assert ours == theirs


@pytest.mark.parametrize("case", ["mismatch", "concat_empty", "concat_iterable",
                                  "concat_index", "stack_both", "stack_none", "stack_len",
                                  "getitem"])
def test_dataset_errors(real, case):
    def run(lib, data):
        if case == "mismatch":
            return data.TensorDataset(lib.zeros(2), lib.zeros(3))
        if case == "concat_empty":
            return data.ConcatDataset([])
        if case == "concat_iterable":
            return data.ConcatDataset([make_stream(data, 2)])
        if case == "concat_index":
            return data.ConcatDataset([[1, 2], [3]])[-4]
        if case == "stack_both":
            return data.StackDataset([1], b=[2])
        if case == "stack_none":
            return data.StackDataset()
        if case == "stack_len":
            return data.StackDataset([1], [2, 3])
        return data.Dataset()[0]

    ours = same_outcome(real, run)
    assert ours[0] != "ok"


def test_subset_subclass_must_override_getitems(real):
    def run(lib, data):
        class Mine(data.Subset):
            def __getitem__(self, i):
                return 0

        return Mine([1, 2], [0])

    ours = same_outcome(real, run)
    assert ours[0] == "NotImplementedError"


# --------------------------------------------------------------------------
# random_split


@pytest.mark.parametrize("n, lengths", [
    (10, [3, 7]), (10, [0.3, 0.7]), (10, [0.3, 0.3, 0.4]), (5, [0.5, 0.5]), (3, [0.1, 0.9]),
    (10, [0.25, 0.25, 0.25, 0.25]), (7, [1 / 3, 1 / 3, 1 / 3]), (2, [0.1, 0.1, 0.8]),
    (4, [0, 4]), (10, [4, 4]), (10, [0.5, 0.6]), (3, [1.5, -0.5]),
    (0, [0, 0]),
])
def test_random_split_lengths_and_errors(real, n, lengths):
    def run(lib, data):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = data.random_split(range(n), lengths, generator=lib.Generator().manual_seed(0))
        return [len(p) for p in parts], [str(w.message) for w in caught]

    same_outcome(real, run)


def test_random_split_float_lengths_not_fractions(real):
    import torch.utils.data  # noqa: F401

    for lib, data in ((tt, tdata), (real, real.utils.data)):  # PyTorch's message is randperm's
        with pytest.raises(TypeError):
            data.random_split(range(10), [1, 9.0], generator=lib.Generator())


def test_random_split_is_a_reproducible_partition():
    ds = tdata.TensorDataset(tt.arange(30))
    parts = tdata.random_split(ds, [0.5, 0.2, 0.3], generator=tt.Generator().manual_seed(3))
    assert [len(p) for p in parts] == [15, 6, 9]
    assert all(isinstance(p, tdata.Subset) and p.dataset is ds for p in parts)
    indices = [i for p in parts for i in p.indices]
    assert sorted(indices) == list(range(30)) and indices != list(range(30))
    again = tdata.random_split(ds, [0.5, 0.2, 0.3], generator=tt.Generator().manual_seed(3))
    assert [p.indices for p in again] == [p.indices for p in parts]
    assert parts[1][0][0].item() == parts[1].indices[0]
    tt.manual_seed(5)
    a = [p.indices for p in tdata.random_split(range(20), [10, 10])]
    tt.manual_seed(5)
    assert [p.indices for p in tdata.random_split(range(20), [10, 10])] == a


# --------------------------------------------------------------------------
# argument errors


LOADER_ERRORS = [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
    dict(num_workers=1, prefetch_factor=-1), dict(persistent_workers=True),
    dict(shuffle=True, sampler=[0, 1]), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], sampler=[0]), dict(batch_size=None, drop_last=True),
    dict(batch_size=0), dict(batch_size=2.0), dict(drop_last=1),
    dict(multiprocessing_context="spawn"),
]


@pytest.mark.parametrize("kwargs", LOADER_ERRORS, ids=lambda k: ",".join(k))
def test_dataloader_argument_errors(real, kwargs):
    ours = same_outcome(real, lambda lib, data: data.DataLoader(range(3), **kwargs))
    assert ours[0] == "ValueError"


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]),
                                    dict(batch_sampler=[[0]])], ids=lambda k: ",".join(k))
def test_iterable_dataset_refuses_samplers(real, kwargs):
    def run(lib, data):
        opts = {k: (v if k == "shuffle" else "S") for k, v in kwargs.items()}
        return data.DataLoader(make_stream(data, 2), **opts)

    ours = same_outcome(real, run)
    assert ours[0] == "ValueError"


def test_shuffle_false_is_allowed_for_iterable_datasets(real):
    same_outcome(real, lambda lib, data: list(data.DataLoader(make_stream(data, 2),
                                                              shuffle=False)))


def test_timeout_without_workers_raises_on_iteration(real):
    ours = same_outcome(real, lambda lib, data: iter(data.DataLoader(range(2), timeout=1)))
    assert ours[0] == "AssertionError"


@pytest.mark.parametrize("name", ["batch_size", "sampler", "drop_last", "dataset",
                                  "batch_sampler", "persistent_workers"])
def test_loader_attributes_are_frozen(real, name):
    def run(lib, data):
        loader = data.DataLoader(range(3))
        setattr(loader, name, None)

    ours = same_outcome(real, run)
    assert ours[0] == "ValueError"


@pytest.mark.parametrize("make", [
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.RandomSampler(range(3), num_samples=2.0),
    lambda d: d.RandomSampler([]),
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), True, False),
    lambda d: d.BatchSampler(range(3), 2, 1),
    lambda d: d.WeightedRandomSampler([1.0], 0),
    lambda d: d.WeightedRandomSampler([1.0], True),
    lambda d: d.WeightedRandomSampler([1.0], 1, replacement=0),
    lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 1),
    lambda d: list(d.WeightedRandomSampler([1.0, -1.0, 2.0], 2)),
    lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 2)),
    lambda d: list(d.WeightedRandomSampler([1.0, float("nan")], 1)),
    lambda d: list(d.WeightedRandomSampler([1.0, float("inf")], 1)),
    lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([1.0, -1.0], 3, replacement=False)),
    lambda d: len(d.Sampler()),
    lambda d: iter(d.Sampler()),
])
def test_sampler_errors(real, make):
    ours = same_outcome(real, lambda lib, data: make(data))
    assert ours[0] != "ok"


def test_deterministic_samplers(real):
    def run(lib, data):
        seq = data.SequentialSampler(range(4))
        batches = data.BatchSampler(seq, 3, drop_last=False)
        dropped = data.BatchSampler(seq, 3, drop_last=True)
        return (list(seq), len(seq), list(batches), len(batches), list(dropped), len(dropped),
                len(data.RandomSampler(range(4))), len(data.RandomSampler(range(4), True, 9)),
                len(data.SubsetRandomSampler([3, 5])),
                len(data.WeightedRandomSampler([1.0, 2.0], 5)),
                list(data.WeightedRandomSampler([0.0, 1.0], 3)),
                list(data.WeightedRandomSampler([0.0, 0.0, 1.0], 1, replacement=False)))

    ours, theirs = both(real, run)
    assert ours == theirs


# --------------------------------------------------------------------------
# random parts: properties


def test_random_sampler_permutations_and_replacement():
    g = tt.Generator().manual_seed(0)
    s = tdata.RandomSampler(range(10), generator=g)
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(10)) and first != second
    long = list(tdata.RandomSampler(range(4), num_samples=10, generator=g))
    assert len(long) == 10 and sorted(long[:4]) == sorted(long[4:8]) == [0, 1, 2, 3]
    assert set(long[8:]) <= {0, 1, 2, 3} and len(set(long[8:])) == 2
    draws = list(tdata.RandomSampler(range(3), replacement=True, num_samples=300, generator=g))
    assert len(draws) == 300 and set(draws) == {0, 1, 2}
    assert list(tdata.RandomSampler(range(10), generator=tt.Generator().manual_seed(7))) == \
        list(tdata.RandomSampler(range(10), generator=tt.Generator().manual_seed(7)))
    tt.manual_seed(1)
    a = list(tdata.RandomSampler(range(10)))
    tt.manual_seed(1)
    assert list(tdata.RandomSampler(range(10))) == a


def test_subset_random_sampler():
    idx = [10, 20, 30, 40, 50]
    s = tdata.SubsetRandomSampler(idx, generator=tt.Generator().manual_seed(0))
    runs = [list(s) for _ in range(5)]
    assert all(sorted(r) == idx for r in runs) and len({tuple(r) for r in runs}) > 1


def test_weighted_random_sampler_follows_the_weights():
    w = [1.0, 0.0, 3.0, 6.0]
    s = tdata.WeightedRandomSampler(w, 20000, generator=tt.Generator().manual_seed(0))
    counts = np.bincount(list(s), minlength=4) / 20000
    np.testing.assert_allclose(counts, np.array(w) / 10, atol=0.015)
    assert counts[1] == 0
    assert str(s.weights.dtype) == "torch.float64"
    no_repl = tdata.WeightedRandomSampler(w, 4, replacement=False,
                                          generator=tt.Generator().manual_seed(1))
    for _ in range(20):
        keys = list(no_repl)
        assert sorted(keys) == [0, 1, 2, 3] and keys[-1] == 1  # zero weight comes last
    firsts = [list(tdata.WeightedRandomSampler([1.0, 9.0], 1, False,
                                               generator=tt.Generator().manual_seed(k)))[0]
              for k in range(400)]
    assert 0.84 < np.mean(firsts) < 0.96


def test_shuffled_loader_epochs():
    ds = tdata.TensorDataset(tt.arange(20))
    loader = tdata.DataLoader(ds, batch_size=6, shuffle=True,
                              generator=tt.Generator().manual_seed(0))
    assert len(loader) == 4
    epochs = [[v for (b,) in loader for v in b.tolist()] for _ in range(3)]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert len({tuple(e) for e in epochs}) == 3
    assert [len(b) for (b,) in loader] == [6, 6, 6, 2]
    again = tdata.DataLoader(ds, batch_size=6, shuffle=True,
                             generator=tt.Generator().manual_seed(0))
    assert [v for (b,) in again for v in b.tolist()] == epochs[0]
    dropped = tdata.DataLoader(ds, batch_size=6, shuffle=True, drop_last=True)
    assert len(dropped) == 3 and [len(b) for (b,) in dropped] == [6, 6, 6]


# --------------------------------------------------------------------------
# end to end


def test_training_loop_decreases_the_loss():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((128, 3)).astype(np.float32)
    y = (X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    tt.manual_seed(0)
    loader = tdata.DataLoader(tdata.TensorDataset(tt.from_numpy(X), tt.from_numpy(y)),
                              batch_size=16, shuffle=True)
    model = tt.nn.Linear(3, 1)
    opt = tt.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = tt.nn.MSELoss()

    def full_loss():
        with tt.no_grad():
            return loss_fn(model(tt.from_numpy(X)), tt.from_numpy(y)).item()

    before = full_loss()
    for _ in range(5):
        for xb, yb in loader:
            assert tuple(xb.shape) in ((16, 3),) and tuple(yb.shape) == (16, 1)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
    after = full_loss()
    assert after < 0.01 * before
