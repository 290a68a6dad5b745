"""``tracegrad.torch.save``/``load`` against PyTorch 2.13's file format.

Files written by tracegrad are read by real ``torch.load`` (``weights_only=True``,
PyTorch's default) and files written by real ``torch.save`` are read by
tracegrad: values, dtypes, shapes, strides, storage sharing and
``requires_grad`` are compared; a saved ``state_dict`` drives the real
PyTorch model to the same outputs; and the errors (``weights_only``
rejecting a class, a missing file, a file that is not a checkpoint, a CUDA
location) are checked.
"""
import collections
import io
import pickle
import struct
import zipfile

import numpy as np
import pytest

import tracegrad.torch as tt

DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]


def import_torch():
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture
def torch():
    return import_torch()


def values(dtype, shape=(2, 3)):
    rng = np.random.default_rng(0)
    a = rng.normal(size=shape) * 10
    if dtype == "bool":
        return a > 0
    if dtype.startswith("complex"):
        return (a + 1j * a[::-1]).astype(dtype)
    if dtype == "uint8":
        return np.abs(a).astype(dtype)
    return a.astype(dtype)


def tg_to_torch(obj, torch, **kw):
    buf = io.BytesIO()
    tt.save(obj, buf, **kw)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


def torch_to_tg(obj, torch, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    buf.seek(0)
    return tt.load(buf)


def assert_same_tensor(a, b):
    """A tracegrad tensor and a PyTorch tensor (either way round) agree in
    dtype, shape, strides, values and requires_grad."""
    assert str(a.dtype) == str(b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == tuple(b.stride())
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_both_ways(torch, dtype):
    a = values(dtype)
    t = tt.tensor(a)
    r = tg_to_torch(t, torch)
    assert type(r) is torch.Tensor
    assert_same_tensor(t, r)
    back = torch_to_tg(torch.from_numpy(a.copy()), torch)
    assert type(back) is tt.Tensor
    assert_same_tensor(back, r)


def test_views_share_storage_tracegrad_to_torch(torch):
    x = tt.arange(12.0).reshape(3, 4)
    obj = {"x": x, "t": x.t(), "row": x[1], "cols": x[:, 1::2], "e": x[:, None].expand(3, 2, 4)}
    r = tg_to_torch(obj, torch)
    for k in obj:
        assert_same_tensor(obj[k], r[k])
    ptr = r["x"].untyped_storage().data_ptr()
    assert all(r[k].untyped_storage().data_ptr() == ptr for k in obj)
    assert r["row"].storage_offset() == 4 and r["cols"].storage_offset() == 1
    r["x"][0, 0] = 100.0  # one storage: the views see the write
    assert r["t"][0, 0].item() == 100.0


def test_views_share_storage_torch_to_tracegrad(torch):
    x = torch.arange(12.0).reshape(3, 4)
    obj = {"x": x, "t": x.t(), "row": x[2], "cols": x[:, 1::2], "e": x[:, None].expand(3, 2, 4)}
    g = torch_to_tg(obj, torch)
    for k in obj:
        assert_same_tensor(g[k], obj[k])
    assert all(np.shares_memory(g["x"]._data, g[k]._data) for k in obj)
    # saved again by tracegrad, the sharing is still one storage in PyTorch
    r = tg_to_torch(g, torch)
    assert r["t"].untyped_storage().data_ptr() == r["x"].untyped_storage().data_ptr()
    assert r["row"].storage_offset() == 8


def test_zero_dim_empty_and_negative_strides(torch):
    flipped = tt.from_numpy(np.arange(5.0)[::-1])  # PyTorch has no negative strides: a copy
    obj = {"s": tt.tensor(3.5), "i": tt.tensor(7), "e": tt.zeros(0, 3), "e1": tt.ones(0),
           "f": flipped}
    r = tg_to_torch(obj, torch)
    for k in ("s", "i"):
        assert_same_tensor(obj[k], r[k])
    for k, ref in (("e", torch.zeros(0, 3)), ("e1", torch.ones(0))):
        # (tracegrad's own stride() of an empty tensor is NumPy's; the file has PyTorch's)
        assert r[k].shape == ref.shape and r[k].dtype == ref.dtype
        assert r[k].stride() == ref.stride()
    np.testing.assert_array_equal(r["f"].numpy(), [4.0, 3.0, 2.0, 1.0, 0.0])
    assert r["f"].stride() == (1,)
    back = torch_to_tg({"s": torch.tensor(2.5), "e": torch.zeros(0, 3, dtype=torch.int64)}, torch)
    assert back["s"].shape == () and back["s"].item() == 2.5
    assert back["e"].shape == (0, 3) and back["e"].dtype == tt.int64


def test_parameters_and_requires_grad(torch):
    p = tt.nn.Parameter(tt.tensor([1.0, 2.0]))
    frozen = tt.nn.Parameter(tt.tensor([3.0]), requires_grad=False)
    leaf = tt.tensor([1.0], requires_grad=True)
    r = tg_to_torch({"p": p, "frozen": frozen, "leaf": leaf, "also_p": p}, torch)
    assert type(r["p"]) is torch.nn.Parameter and r["p"].requires_grad
    assert type(r["frozen"]) is torch.nn.Parameter and not r["frozen"].requires_grad
    assert type(r["leaf"]) is torch.Tensor and r["leaf"].requires_grad
    assert r["also_p"] is r["p"]
    back = torch_to_tg(r, torch)
    assert type(back["p"]) is tt.nn.Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is tt.nn.Parameter and not back["frozen"].requires_grad
    assert type(back["leaf"]) is tt.Tensor and back["leaf"].requires_grad and back["leaf"].is_leaf
    assert back["also_p"] is back["p"]
    np.testing.assert_array_equal(back["p"].detach().numpy(), [1.0, 2.0])


def test_tensor_attributes(torch):
    model = tt.nn.Linear(2, 1)
    model(tt.ones(1, 2)).sum().backward()
    with tt.no_grad():
        model.weight[0].mul_(2)  # tracegrad's view bookkeeping is not saved
    model.weight.tag = "w"
    r = tg_to_torch({"w": model.weight, "b": model.bias}, torch)
    assert type(r["w"]) is torch.nn.Parameter and r["w"].tag == "w"
    assert not hasattr(r["b"], "tag")
    back = torch_to_tg(r, torch)
    assert type(back["w"]) is tt.nn.Parameter and back["w"].tag == "w"
    np.testing.assert_array_equal(back["w"].detach().numpy(), model.weight.detach().numpy())


def test_state_dict_loads_into_real_model(torch):
    tt.manual_seed(0)
    model = tt.nn.Sequential(tt.nn.Linear(4, 8), tt.nn.ReLU(), tt.nn.Linear(8, 3))
    sd = model.state_dict()
    r = tg_to_torch(sd, torch)
    assert type(r) is collections.OrderedDict
    assert list(r) == list(sd) and r._metadata == sd._metadata
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    ref.load_state_dict(r)
    x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    np.testing.assert_allclose(ref(torch.from_numpy(x)).detach().numpy(),
                               model(tt.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_real_state_dict_loads_into_tracegrad_model(torch):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    g = torch_to_tg(ref.state_dict(), torch)
    assert type(g) is collections.OrderedDict and list(g) == list(ref.state_dict())
    assert g._metadata == ref.state_dict()._metadata
    model = tt.nn.Sequential(tt.nn.Linear(4, 8), tt.nn.ReLU(), tt.nn.Linear(8, 3))
    result = model.load_state_dict(g)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    x = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    np.testing.assert_allclose(model(tt.from_numpy(x)).detach().numpy(),
                               ref(torch.from_numpy(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def _checkpoint(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    model(lib.ones(4, 3)).sum().backward()
    opt.step()
    return {"epoch": 3, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "loss": 0.25, "name": "run-1", "shape": lib.ones(2, 5).shape, "dtype": lib.float64,
            "history": [1.0, 0.5, (2, "x", None)], "flags": {True, False}, "raw": b"\x00\x01"}


def assert_same_checkpoint(a, b):
    assert a.keys() == b.keys()
    for k in a:
        va, vb = a[k], b[k]
        if hasattr(va, "keys"):
            assert_same_checkpoint(va, vb)
        elif hasattr(va, "stride"):
            assert_same_tensor(va, vb)
        elif isinstance(va, list) and va and hasattr(va[0], "keys"):
            for x, y in zip(va, vb):
                assert_same_checkpoint(x, y)
        else:
            assert str(va) == str(vb)  # Size, dtype, scalars, strings, containers


def test_checkpoint_both_ways(torch):
    ckpt = _checkpoint(tt)
    r = tg_to_torch(ckpt, torch)
    assert_same_checkpoint(ckpt, r)
    assert type(r["shape"]) is torch.Size and r["dtype"] is torch.float64
    # the optimizer state resumes in PyTorch
    ref = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    ref.load_state_dict(r["model"])
    torch.optim.Adam(ref.parameters(), lr=0.01).load_state_dict(r["optimizer"])

    real = _checkpoint(torch)
    g = torch_to_tg(real, torch)
    assert_same_checkpoint(g, real)
    assert type(g["shape"]) is tt.Size and g["dtype"] is tt.float64
    model = tt.nn.Sequential(tt.nn.Linear(3, 2), tt.nn.Tanh(), tt.nn.Linear(2, 1))
    model.load_state_dict(g["model"])
    tt.optim.Adam(model.parameters(), lr=0.01).load_state_dict(g["optimizer"])


def test_paths_protocols_and_legacy_format(torch, tmp_path):
    x = tt.arange(6.0).reshape(2, 3)
    obj = {"x": x, "v": x.t()[1]}
    for kw in ({}, {"pickle_protocol": 4}, {"_use_new_zipfile_serialization": False}):
        path = tmp_path / "ckpt.pt"
        tt.save(obj, path, **kw)
        # (PyTorch's weights-only unpickler lacks protocol 4's FRAME, for its own files too)
        r = torch.load(path, weights_only="pickle_protocol" not in kw)
        assert_same_tensor(obj["v"], r["v"])
        g = tt.load(str(path))
        assert_same_tensor(g["v"], r["v"])
    torch.save(obj_torch := {"x": torch.arange(6.0).reshape(2, 3)}, tmp_path / "legacy.pt",
               _use_new_zipfile_serialization=False)
    obj_torch["v"] = obj_torch["x"].t()
    g = tt.load(tmp_path / "legacy.pt")
    assert_same_tensor(g["x"], obj_torch["x"])


def test_zip_layout(tmp_path):
    tt.save({"w": tt.ones(3)}, tmp_path / "model.pt")
    with zipfile.ZipFile(tmp_path / "model.pt") as zf:
        names = zf.namelist()
        assert names == ["model/data.pkl", "model/.format_version", "model/.storage_alignment",
                         "model/byteorder", "model/data/0", "model/version",
                         "model/.data/serialization_id"]
        assert zf.read("model/version") == b"3\n"
        raw = (tmp_path / "model.pt").read_bytes()
        info = zf.getinfo("model/data/0")
        n, e = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
        assert (info.header_offset + 30 + n + e) % 64 == 0  # aligned as PyTorch aligns


def test_mmap_and_map_location(torch, tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.arange(4.0)}, path)
    for loc in (None, "cpu", tt.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage,
                lambda storage, loc: None):
        np.testing.assert_array_equal(tt.load(path, map_location=loc)["w"].numpy(), np.arange(4.0))
    w = tt.load(path, mmap=True)["w"]
    np.testing.assert_array_equal(w.numpy(), np.arange(4.0))
    w.add_(1)  # copy-on-write: the file is unchanged
    np.testing.assert_array_equal(torch.load(path)["w"].numpy(), np.arange(4.0))
    # saved again, a mapped tensor's storage is its own record, not the whole file
    tt.save({"w": w}, tmp_path / "again.pt")
    with zipfile.ZipFile(tmp_path / "again.pt") as zf:
        assert zf.getinfo("again/data/0").file_size == 4 * 4  # four float32
    with pytest.raises(ValueError, match="file path in order to use the mmap"):
        tt.load(io.BytesIO(path.read_bytes()), mmap=True)


def _on_cuda(path):
    """The file at ``path`` rewritten as if its storages had been saved on cuda:0."""
    with zipfile.ZipFile(path) as zf:
        records = [(i.filename, zf.read(i)) for i in zf.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in records:
            if name.endswith("data.pkl"):
                old, new = b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0"
                assert old in data
                data = data.replace(old, new)
            zf.writestr(name, data)
    out.seek(0)
    return out


def test_cuda_location_needs_map_location(tmp_path):
    tt.save({"w": tt.ones(2)}, tmp_path / "c.pt")
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        tt.load(_on_cuda(tmp_path / "c.pt"))
    with pytest.raises(RuntimeError, match="CPU only"):
        tt.load(tmp_path / "c.pt", map_location="cuda")
    for loc in ("cpu", {"cuda:0": "cpu"}, lambda storage, loc: storage.cpu()):
        np.testing.assert_array_equal(tt.load(_on_cuda(tmp_path / "c.pt"),
                                              map_location=loc)["w"].numpy(), [1.0, 1.0])


class Custom:
    def __init__(self, v):
        self.v = v


def test_weights_only_rejects_arbitrary_class(torch, tmp_path):
    path = tmp_path / "obj.pt"
    tt.save({"x": tt.ones(1), "c": Custom(5)}, path)
    with pytest.raises(pickle.UnpicklingError) as info:
        tt.load(path)
    msg = str(info.value)
    assert "Weights only load failed" in msg and "weights_only=False" in msg
    assert f"GLOBAL {__name__}.Custom" in msg
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)  # PyTorch rejects it too
    loaded = tt.load(path, weights_only=False)
    assert type(loaded["c"]) is Custom and loaded["c"].v == 5
    # the same for a file written by PyTorch
    buf = io.BytesIO()
    torch.save({"c": Custom(1)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        tt.load(buf)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        tt.load(buf, pickle_module=pickle)


class Payload:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_weights_only_runs_no_code(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    tt.save([Payload(str(marker))], path)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL io.open is not allowed"):
        tt.load(path)
    assert not marker.exists()
    tt.save([Payload(str(marker))], path, _use_new_zipfile_serialization=False)
    with pytest.raises(pickle.UnpicklingError, match="weights_only=False"):
        tt.load(path)
    assert not marker.exists()
    tt.load(path, weights_only=False)  # the full unpickler does run it
    assert marker.exists()


def test_weights_only_false_maps_torch_names(torch):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2), "size": torch.Size([2]), "dev": torch.device("cpu")}, buf)
    buf.seek(0)
    g = tt.load(buf, weights_only=False)
    assert type(g["w"]) is tt.Tensor and type(g["size"]) is tt.Size
    assert g["dev"] == tt.device("cpu")


def test_missing_and_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        tt.load(tmp_path / "missing.pt")
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"hello, this is not a checkpoint")
    with pytest.raises(pickle.UnpicklingError, match="not written by torch.save"):
        tt.load(junk)
    with pytest.raises(pickle.UnpicklingError, match="not written by torch.save"):
        tt.load(junk, weights_only=False)
    bad_zip = io.BytesIO()
    with zipfile.ZipFile(bad_zip, "w") as zf:
        zf.writestr("notes.txt", "hi")
    bad_zip.seek(0)
    with pytest.raises(RuntimeError, match="not written by torch.save"):
        tt.load(bad_zip)
    with pytest.raises(ValueError, match="standard pickle module"):
        tt.save(tt.ones(1), io.BytesIO(), pickle_module=collections)


def test_unsupported_dtype_is_a_clear_error(torch):
    buf = io.BytesIO()
    torch.save(torch.ones(2, dtype=torch.bfloat16), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="bfloat16"):
        tt.load(buf)
