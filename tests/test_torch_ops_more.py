"""tracegrad.torch's scatter/index/masked operations, sets, order statistics,
grids, bucketing, in-place random fills and ``torch.special`` against PyTorch 2.13.

Differential tests (fixture ``real``, skipped without PyTorch): the same
inputs (copied through NumPy) go to both libraries; values, dtypes,
``grad_fn`` names, named-tuple fields and the float64 gradients of every
differentiable input are compared, and errors by type and message.  The
random fills are checked by their distributions and their reproducibility
with a seed (the streams differ from PyTorch's by design).
"""
import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import tracegrad.torch as tt


def import_torch():
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


def raises(exc_type, message):
    return pytest.raises(exc_type, match="^" + re.escape(message) + r"\Z")


def _np(t):
    return t.detach().numpy()


def _make(lib, arrays, grad):
    out = []
    for i, a in enumerate(arrays):
        if isinstance(a, np.ndarray):
            t = lib.tensor(a)
            if i in grad:
                t.requires_grad_(True)
            out.append(t)
        else:
            out.append(a)
    return out


def diff(real, op, arrays, grad=(0,), name=True, rtol=1e-10, atol=1e-12):
    """Run ``op(lib, *tensors)`` on both libraries: compare the value(s), dtypes,
    grad_fn names and the gradients of the inputs ``grad``."""
    res = {}
    for lib in (tt, real):
        ins = _make(lib, arrays, grad)
        out = op(lib, *ins)
        outs = out if isinstance(out, tuple) else (out,)
        first = outs[0]
        grads = None
        if first.requires_grad:
            w = lib.tensor(np.random.default_rng(1).standard_normal(tuple(first.shape)))
            (first * w).sum().backward()
            grads = [None if ins[i].grad is None else _np(ins[i].grad) for i in grad]
        res[lib] = ([_np(o) for o in outs], [str(o.dtype) for o in outs],
                    first.grad_fn.name() if first.grad_fn is not None else None,
                    grads, out)
    (v1, d1, n1, g1, o1), (v2, d2, n2, g2, o2) = res[tt], res[real]
    assert d1 == d2
    for a, b in zip(v1, v2):
        assert a.shape == b.shape
        assert_allclose(a, b, rtol=rtol, atol=atol)
    if name:
        assert n1 == n2
    assert (g1 is None) == (g2 is None)
    if g1 is not None:
        for a, b in zip(g1, g2):
            assert (a is None) == (b is None)
            if a is not None:
                assert_allclose(a, b, rtol=rtol, atol=atol)
    return o1, o2


RNG = np.random.default_rng(0)
X34 = RNG.standard_normal((3, 4))
IDX = np.array([[0, 2, 1, 2], [1, 0, 2, 0]])
PERM = np.array([[0, 1, 2, 0], [2, 0, 1, 1]])  # unique (row, column) targets per column
SRC = RNG.standard_normal((2, 4))


# --------------------------------------------------------------------------
# scatter family


def test_scatter_src_and_value(real):
    diff(real, lambda L, x, s: L.scatter(x, 0, L.tensor(PERM), s), [X34, SRC], grad=(0, 1))
    diff(real, lambda L, x: L.scatter(x, 1, L.tensor([[1], [3], [0]]), 2.5), [X34])
    # a src larger than the index (PyTorch's own backward fails for its gradient)
    diff(real, lambda L, x, s: x.scatter(1, L.tensor([[3, 1], [0, 2], [2, 3]]), s),
         [X34, RNG.standard_normal((3, 3))], grad=(0,))
    diff(real, lambda L, x, s: x.scatter(1, L.tensor([[3, 1], [0, 2], [2, 3]]), s),
         [X34, RNG.standard_normal((3, 2))], grad=(0, 1))


def test_scatter_reduce_arg(real):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for red in ("add", "multiply"):
            diff(real, lambda L, x, s: L.scatter(x, 0, L.tensor(IDX), s, reduce=red),
                 [X34, SRC], grad=(), name=False)


def test_scatter_add(real):
    diff(real, lambda L, x, s: L.scatter_add(x, 0, L.tensor(IDX), s), [X34, SRC], grad=(0, 1))
    diff(real, lambda L, x, s: x.scatter_add(1, L.tensor([[3, 3], [0, 0], [1, 2]]), s),
         [X34, RNG.standard_normal((3, 2))], grad=(0, 1))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(real, reduce, include_self):
    diff(real, lambda L, x, s: L.scatter_reduce(x, 0, L.tensor(IDX), s, reduce,
                                                include_self=include_self),
         [X34, SRC], grad=(0, 1))


def test_scatter_reduce_int_mean(real):
    x = np.arange(12).reshape(3, 4)
    s = np.array([[5, 7, 9, 2], [4, 4, 4, 4]])
    diff(real, lambda L, x, s: L.scatter_reduce(x, 0, L.tensor(IDX), s, "mean"), [x, s],
         grad=())


def test_scatter_errors(real):
    for lib in (tt, real):
        x, s = lib.zeros(3, 4), lib.ones(2, 4)
        with raises(RuntimeError, "scatter(): Expected dtype int32/int64 for index"):
            lib.scatter(x, 0, lib.tensor(IDX, dtype=lib.int16), s)
        with raises(RuntimeError, "scatter(): Expected dtype int32/int64 for index"):
            lib.scatter_add(x, 0, lib.tensor(IDX, dtype=lib.float32), s)
        with raises(RuntimeError, "Expected index [3, 4] to be no larger than self [3, 4] "
                    "apart from dimension 0 and to be no larger size than src [2, 4]"):
            lib.scatter(x, 0, lib.zeros(3, 4, dtype=lib.int64), s)
        with raises(RuntimeError,
                    "Index tensor must have the same number of dimensions as src tensor"):
            lib.scatter(x, 0, lib.tensor(IDX), lib.ones(2, 4, 1))
        with raises(RuntimeError, "reduce argument must be either add or multiply."):
            lib.scatter(x, 0, lib.tensor(IDX), s, reduce="mean")
        with raises(RuntimeError,
                    "reduce argument must be either sum, prod, mean, amax or amin, got foo"):
            lib.scatter_reduce(x, 0, lib.tensor(IDX), s, "foo")
        assert_array_equal(_np(lib.scatter(x, 0, lib.tensor(IDX, dtype=lib.int32), s)),
                           _np(lib.scatter(x, 0, lib.tensor(IDX), s)))
        with raises(RuntimeError,
                    "Index tensor must have the same number of dimensions as self tensor"):
            lib.scatter_add(x, 0, lib.tensor([0, 1]), s)
        with raises(RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"):
            lib.scatter_add(x, 0, lib.tensor([[5, 0, 0, 0]]), s)
        with raises(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"):
            lib.scatter(x, 0, lib.tensor(IDX), s.double())


# --------------------------------------------------------------------------
# index_add / index_copy / index_fill


def test_index_add(real):
    diff(real, lambda L, x, s: L.index_add(x, 0, L.tensor([2, 0, 2]), s, alpha=2.0),
         [X34, RNG.standard_normal((3, 4))], grad=(0, 1))
    diff(real, lambda L, x, s: x.index_add(1, L.tensor([1, 3]), s),
         [X34, RNG.standard_normal((3, 2))], grad=(0, 1))


def test_index_copy_and_fill(real):
    diff(real, lambda L, x, s: L.index_copy(x, 1, L.tensor([3, 0]), s),
         [X34, RNG.standard_normal((3, 2))], grad=(0, 1))
    diff(real, lambda L, x: L.index_fill(x, 1, L.tensor([0, 2]), -1.5), [X34])
    diff(real, lambda L, x, v: x.index_fill(0, L.tensor([1]), v), [X34, np.array(0.7)],
         grad=(0, 1))


def test_index_errors(real):
    for lib in (tt, real):
        x, one = lib.zeros(3, 4), lib.ones(1, 4)
        with raises(RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"):
            lib.index_add(x, 0, lib.tensor([5]), one)
        with raises(RuntimeError, "index -1 is out of bounds for dimension 0 with size 3"):
            lib.index_add(x, 0, lib.tensor([-1]), one)
        with raises(RuntimeError, "index_add_(): Expected dtype int32/int64 for index but "
                    "got: Float"):
            lib.index_add(x, 0, lib.tensor([1.0]), one)
        with raises(IndexError, "index_add_(): Index is supposed to be a vector, but got "
                    "dim: 2 with type: Long and size: [1, 1]"):
            lib.index_add(x, 0, lib.tensor([[1]]), one)
        with raises(RuntimeError, "index_add_(): self (Float) and source (Double) must have "
                    "the same scalar type"):
            lib.index_add(x, 0, lib.tensor([1]), one.double())
        with raises(RuntimeError, "index_add_(): Number of indices (2) should be equal to "
                    "source.size(dim): (1), for dim: 0"):
            lib.index_add(x, 0, lib.tensor([1, 2]), one)
        with raises(RuntimeError, "source tensor shape must match self tensor shape, "
                    "excluding the specified dimension. Got self.shape = [3, 4] "
                    "source.shape = [2, 3]"):
            lib.index_add(x, 0, lib.tensor([0, 1]), lib.ones(2, 3))
        with raises(RuntimeError, "index_copy_(): Expected a long tensor for index, but got Int"):
            lib.index_copy(x, 0, lib.tensor([1], dtype=lib.int32), one)
        with raises(IndexError, "index_copy_(): index -1 is out of bounds for dimension 0 "
                    "with size 3"):
            lib.index_copy(x, 0, lib.tensor([-1]), one)
        with raises(RuntimeError, "index_copy_(): Source/destination tensor must have same "
                    "slice shapes. Destination slice shape: 4 5 at dimension 0 and source "
                    "slice shape: 3 5 at dimension 0."):
            lib.index_copy(lib.zeros(3, 4, 5), 0, lib.tensor([1]), lib.ones(1, 3, 5))
        with raises(IndexError, "index_copy_(): Number of indices (2) should be equal to "
                    "source.size(dim) (1)"):
            lib.index_copy(x, 0, lib.tensor([1, 2]), one)
        with raises(RuntimeError, "index_copy_(): self and source expected to have the same "
                    "dtype, but got (self) Float and (source) Double"):
            lib.index_copy(x, 0, lib.tensor([1]), one.double())
        with raises(IndexError, "index_fill_(): Expected dtype int64 for index."):
            lib.index_fill(x, 0, lib.tensor([1], dtype=lib.int32), 1.0)
        with raises(IndexError, "index 7 is out of bounds for dimension 0 with size 3"):
            lib.index_fill(x, 0, lib.tensor([7]), 1.0)
        with raises(RuntimeError, "Index has to be a vector/scalar"):
            lib.index_fill(x, 0, lib.tensor([[1]]), 1.0)
        with raises(RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, "
                    "but got tensor with 1 dimension(s)."):
            lib.index_fill(x, 0, lib.tensor([1]), lib.ones(2))
        assert_array_equal(_np(lib.index_fill(x, 0, lib.tensor([-1]), 2.0))[2], [2.0] * 4)


# --------------------------------------------------------------------------
# masked_select / masked_scatter / take_along_dim


MASK = np.array([[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]])


def test_masked_select_and_scatter(real):
    diff(real, lambda L, x: L.masked_select(x, L.tensor(MASK)), [X34])
    diff(real, lambda L, x: x.masked_select(L.tensor(MASK[0])), [X34])  # broadcast mask
    diff(real, lambda L, x, s: L.masked_scatter(x, L.tensor(MASK), s),
         [X34, RNG.standard_normal((3, 3))], grad=(0, 1))
    for lib in (tt, real):
        with pytest.raises(RuntimeError):
            lib.masked_select(lib.zeros(3), lib.tensor([1, 0, 1]))


def test_take_along_dim(real):
    idx = np.array([[0, 3], [2, 2], [1, 0]])
    diff(real, lambda L, x: L.take_along_dim(x, L.tensor(idx), dim=1), [X34])
    diff(real, lambda L, x: L.take_along_dim(x, L.tensor([0, 5, 11])), [X34])
    diff(real, lambda L, x: L.take_along_dim(x, L.tensor([[1, 0, 2, 2]]), dim=0), [X34])


# --------------------------------------------------------------------------
# in-place forms


def test_inplace_forms(real):
    def op(L, x, s):
        y = x * 1
        y.scatter_(0, L.tensor(PERM), s)
        y.index_add_(1, L.tensor([0]), y[:, 1:2] * 2)
        return y

    diff(real, op, [X34, SRC], grad=(0, 1), name=False)
    for name, args in [("scatter_add_", lambda L: (0, L.tensor(IDX), L.ones(2, 4).double())),
                       ("index_copy_", lambda L: (0, L.tensor([1]), L.ones(1, 4).double())),
                       ("index_fill_", lambda L: (1, L.tensor([2]), 3.0)),
                       ("masked_scatter_", lambda L: (L.tensor(MASK), L.arange(12.).double()))]:
        a, b = tt.tensor(X34), real.tensor(X34)
        ra = getattr(a, name)(*args(tt))
        rb = getattr(b, name)(*args(real))
        assert ra is a and rb is b
        assert_allclose(_np(a), _np(b), rtol=1e-12)
    for lib in (tt, real):
        leaf = lib.zeros(3, 4, requires_grad=True)
        with raises(RuntimeError,
                    "a leaf Variable that requires grad is being used in an in-place operation."):
            leaf.scatter_(0, lib.tensor(IDX), 1.0)


# --------------------------------------------------------------------------
# sets


def test_unique(real):
    a = np.array([[3, 1, 2, 1], [2, 3, 3, 0]])
    for kw in [{}, dict(return_inverse=True), dict(return_counts=True),
               dict(return_inverse=True, return_counts=True), dict(dim=1, return_inverse=True,
                                                                   return_counts=True),
               dict(dim=0)]:
        r1, r2 = tt.unique(tt.tensor(a), **kw), real.unique(real.tensor(a), **kw)
        r1 = r1 if isinstance(r1, tuple) else (r1,)
        r2 = r2 if isinstance(r2, tuple) else (r2,)
        assert len(r1) == len(r2)
        for u, v in zip(r1, r2):
            assert str(u.dtype) == str(v.dtype)
            assert_array_equal(_np(u), _np(v))
    b = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    r1 = tt.unique_consecutive(tt.tensor(b), return_inverse=True, return_counts=True)
    r2 = real.unique_consecutive(real.tensor(b), return_inverse=True, return_counts=True)
    for u, v in zip(r1, r2):
        assert_array_equal(_np(u), _np(v))
    m = np.array([[1, 2], [1, 2], [3, 4], [1, 2]])
    r1 = tt.tensor(m).unique_consecutive(dim=0, return_counts=True)
    r2 = real.tensor(m).unique_consecutive(dim=0, return_counts=True)
    for u, v in zip(r1, r2):
        assert_array_equal(_np(u), _np(v))


# --------------------------------------------------------------------------
# order statistics


X45 = RNG.standard_normal((4, 5))


def test_median(real):
    o1, o2 = diff(real, lambda L, x: L.median(x), [X45])
    x = X45.copy()
    x[1, 2] = x[1, 3] = 0.25  # ties in the global median: the gradient is split
    diff(real, lambda L, x: L.median(x), [np.array([0.25, 0.25, 1.0, -1.0, 0.25])])
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            o1, o2 = diff(real, lambda L, x: L.median(x, dim, keepdim), [X45])
            assert type(o1).__name__ == type(o2).__name__ == "median"
            assert_array_equal(_np(o1.indices), _np(o2.indices))
            assert repr(type(o1)).split("'")[1] == "torch.return_types.median"
    with_nan = X45.copy()
    with_nan[0, 1] = np.nan
    diff(real, lambda L, x: L.median(x, 1), [with_nan])
    diff(real, lambda L, x: L.nanmedian(x, 1), [with_nan])
    diff(real, lambda L, x: L.nanmedian(x), [with_nan])
    diff(real, lambda L, x: x.median(), [X45])


def test_kthvalue_mode(real):
    o1, o2 = diff(real, lambda L, x: L.kthvalue(x, 2, 1), [X45])
    assert_array_equal(_np(o1.indices), _np(o2.indices))
    o1, o2 = diff(real, lambda L, x: x.kthvalue(3, dim=0, keepdim=True), [X45])
    assert_array_equal(_np(o1.indices), _np(o2.indices))
    m = np.array([[1., 2., 2., 3., 3.], [5., 5., 1., 1., 0.]])
    o1, o2 = diff(real, lambda L, x: L.mode(x, 1), [m])
    assert_array_equal(_np(o1.indices), _np(o2.indices))
    for lib in (tt, real):
        with raises(RuntimeError, "kthvalue(): selected number k out of range for dimension 1"):
            lib.kthvalue(lib.zeros(2, 3), 4, 1)


def test_cummax_cummin_logcumsumexp_nanmean(real):
    x = np.array([[1., 3., 2., 5., 0.], [-1., -2., 4., 4., -3.]])
    for fn in ("cummax", "cummin"):
        o1, o2 = diff(real, lambda L, x: getattr(L, fn)(x, 1), [x], name=False)
        assert_array_equal(_np(o1.indices), _np(o2.indices))
    diff(real, lambda L, x: L.logcumsumexp(x, 1), [X45])
    diff(real, lambda L, x: x.logcumsumexp(0), [X45])
    wide = np.array([[-2000., 1., -900., 3.], [0., -1., 2., 1500.]])  # exp would underflow
    diff(real, lambda L, x: L.logcumsumexp(x, 1), [wide])
    diff(real, lambda L, x: L.logcumsumexp(x, 0), [wide.T.copy()])
    with_nan = X45.copy()
    with_nan[0, 1] = with_nan[2, 2] = np.nan
    diff(real, lambda L, x: L.nanmean(x), [with_nan], name=False)
    diff(real, lambda L, x: L.nanmean(x, 1, keepdim=True), [with_nan], name=False)


# --------------------------------------------------------------------------
# grids and bucketing


def test_meshgrid_cartesian_prod(real):
    a, b, c = np.array([1., 2., 3.]), np.array([4., 5.]), np.array([6., 7., 8., 9.])
    for indexing in ("ij", "xy"):
        r = {}
        for lib in (tt, real):
            ts = [lib.tensor(v, requires_grad=True) for v in (a, b, c)]
            gs = lib.meshgrid(*ts, indexing=indexing)
            sum(g * (k + 1) for k, g in enumerate(gs)).sum().backward()
            r[lib] = ([_np(g) for g in gs], [_np(t.grad) for t in ts])
        for u, v in zip(r[tt][0] + r[tt][1], r[real][0] + r[real][1]):
            assert_allclose(u, v)
    with pytest.warns(UserWarning, match="indexing argument"):
        tt.meshgrid(tt.tensor(a), tt.tensor(b))
    diff(real, lambda L, x, y: L.cartesian_prod(x, y), [a, b], grad=(0, 1), name=False)


def test_bucketize_searchsorted_histc(real):
    bounds = np.array([1., 3., 5., 7.])
    v = np.array([[0., 3., 6.], [7., 9., 1.]])
    for right in (False, True):
        diff(real, lambda L, x: L.bucketize(x, L.tensor(bounds), right=right), [v], grad=())
        diff(real, lambda L, x: L.searchsorted(L.tensor(bounds), x, right=right), [v],
             grad=())
    diff(real, lambda L, x: L.searchsorted(L.tensor(np.array([[1., 3., 5.], [2., 4., 6.]])),
                                           x, side="right", out_int32=True),
         [np.array([[3., 0.], [4., 7.]])], grad=())
    diff(real, lambda L, x: L.histc(x, bins=4), [X45], grad=())
    diff(real, lambda L, x: L.histc(x, bins=5, min=-1, max=1), [X45.astype(np.float32)],
         grad=())


# --------------------------------------------------------------------------
# torch.special


UNARY = ["erf", "erfc", "erfinv", "erfcx", "expit", "logit", "gammaln", "digamma", "psi",
         "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "sinc", "entr", "exp2",
         "expm1", "log1p", "bessel_j0", "bessel_j1"]


@pytest.mark.parametrize("name", UNARY)
def test_special_unary(real, name):
    x = np.array([0.1, 0.35, 0.6, 0.85])
    if name not in ("erfinv", "logit", "ndtri", "entr"):
        x = np.array([-1.3, 0.2, 0.7, 2.5]) if name not in ("gammaln", "digamma", "psi") \
            else np.array([0.3, 1.2, 2.5, 7.0])
    diff(real, lambda L, t: getattr(L.special, name)(t), [x], name=False, rtol=1e-8)
    assert getattr(tt.special, name)(tt.tensor([1, 2])).dtype == tt.float32


def test_special_binary_and_others(real):
    x, y = np.array([0.0, 0.5, 2.0]), np.array([1.5, 3.0, 0.25])
    diff(real, lambda L, a, b: L.special.xlogy(a, b), [x, y], grad=(0, 1), name=False)
    diff(real, lambda L, a, b: L.special.xlog1py(a, b), [x, y], grad=(0, 1), name=False)
    diff(real, lambda L, b: L.special.xlogy(2.0, b), [y], name=False)
    diff(real, lambda L, a, b: L.special.gammainc(a, b), [y, x + 0.1], grad=(1,), name=False,
         rtol=1e-8)
    diff(real, lambda L, a, b: L.special.gammaincc(a, b), [y, x + 0.1], grad=(1,), name=False,
         rtol=1e-8)
    diff(real, lambda L, a, b: L.special.zeta(a, b), [y + 1.5, x + 1.0], grad=(), rtol=1e-8)
    diff(real, lambda L, t: L.special.polygamma(2, t), [y], name=False, rtol=1e-8)
    diff(real, lambda L, t: L.special.multigammaln(t, 3), [y + 1.5], name=False)
    diff(real, lambda L, t: L.special.logit(t, eps=0.2), [np.array([0.1, 0.5, 0.95])],
         name=False)
    diff(real, lambda L, t: L.special.logsumexp(t, 1), [X45], name=False)
    diff(real, lambda L, t: L.special.softmax(t, 0), [X45], name=False)
    diff(real, lambda L, t: L.special.log_softmax(t, 1), [X45], name=False)
    diff(real, lambda L, t: L.special.round(t * 10), [X45], name=False)


# --------------------------------------------------------------------------
# in-place random fills


N = 20000


def _stats(method, *args, dtype=tt.float64, **kw):
    t = tt.empty(N, dtype=dtype)
    r = getattr(t, method)(*args, **kw)
    assert r is t
    return t.numpy()


def test_random_fill_distributions():
    tt.manual_seed(0)
    u = _stats("uniform_", -2, 3)
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.05
    n = _stats("normal_", 1.0, 2.0)
    assert abs(n.mean() - 1) < 0.06 and abs(n.std() - 2) < 0.06
    b = _stats("bernoulli_", 0.3)
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    e = _stats("exponential_", 4.0)
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.01
    g = _stats("geometric_", 0.25)
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4) < 0.15
    ln = _stats("log_normal_", 0.0, 0.5)
    assert abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    c = _stats("cauchy_", 1.0, 2.0)
    assert abs(np.median(c) - 1) < 0.1
    r = _stats("random_", 3, 7, dtype=tt.int64)
    assert set(np.unique(r)) == {3, 4, 5, 6}
    r = _stats("random_", 5, dtype=tt.int64)
    assert set(np.unique(r)) == {0, 1, 2, 3, 4}


def test_random_fill_reproducible_and_generator():
    tt.manual_seed(7)
    a = tt.empty(5).normal_()
    tt.manual_seed(7)
    b = tt.empty(5).normal_()
    assert_array_equal(a.numpy(), b.numpy())
    g1, g2 = tt.Generator().manual_seed(3), tt.Generator().manual_seed(3)
    assert_array_equal(tt.empty(4).uniform_(generator=g1).numpy(),
                       tt.empty(4).uniform_(generator=g2).numpy())
    assert tt.empty(3, dtype=tt.float32).uniform_().dtype == tt.float32


def test_random_fill_errors_and_graph(real):
    for lib in (tt, real):
        with raises(RuntimeError, "a leaf Variable that requires grad is being used in an "
                    "in-place operation."):
            lib.zeros(3, requires_grad=True).uniform_()
        with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
            lib.zeros(3).normal_(0, -1)
        y = lib.zeros(3, requires_grad=True) * 2
        y.uniform_()
        y.sum().backward()
    x = tt.zeros(3, requires_grad=True)
    y = x * 2
    y.normal_()
    y.sum().backward()
    assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_more_errors(real):
    for lib in (tt, real):
        x = lib.zeros(3, 4)
        with raises(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"):
            lib.scatter_add(x, 0, lib.tensor(IDX), lib.ones(2, 4).double())
        with raises(RuntimeError, "masked_select: expected BoolTensor for mask"):
            lib.masked_select(x, lib.ones(3, 4, dtype=lib.uint8))
        with raises(RuntimeError, "The size of tensor a (2) must match the size of tensor b "
                    "(3) at non-singleton dimension 0"):
            lib.masked_select(x, lib.ones(2, 4, dtype=lib.bool))
        with raises(RuntimeError, "Number of elements of source < number of ones in mask"):
            lib.masked_scatter(x, lib.ones(3, 4, dtype=lib.bool), lib.ones(5))
        with raises(RuntimeError, "masked_scatter_ only supports boolean masks, but got mask "
                    "with dtype Float"):
            lib.masked_scatter(x, lib.ones(3, 4), lib.ones(15))
        with raises(RuntimeError, "masked_scatter: expected self and source to have same "
                    "dtypes but gotFloat and Double"):
            lib.masked_scatter(x, lib.ones(3, 4, dtype=lib.bool), lib.ones(15).double())
        with raises(RuntimeError, "torch.take_along_dim(): dtype of indices should be Long "
                    "but got Float"):
            lib.take_along_dim(x, lib.tensor([[0.]]), 1)
        with raises(RuntimeError, "torch.take_along_dim(): input and indices should have the "
                    "same number of dimensions, but got 2 dimensions for input, and 1 "
                    "dimensions for indices"):
            lib.take_along_dim(x, lib.tensor([0]), 1)
        with pytest.raises(RuntimeError, match="^torch.meshgrid: Expected 0D or 1D tensor"):
            lib.meshgrid(x, indexing="ij")
        with raises(RuntimeError, "meshgrid expects all tensors to have the same dtype"):
            lib.meshgrid(lib.ones(2), lib.ones(2).double(), indexing="ij")
        with raises(RuntimeError, 'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                    "received: foo"):
            lib.meshgrid(lib.ones(2), indexing="foo")
        with raises(RuntimeError, "boundaries tensor must be 1 dimension, but got dim(2)"):
            lib.bucketize(lib.ones(2), lib.ones(2, 2))
        with raises(RuntimeError, "torch.searchsorted(): boundaries tensor should be 1 "
                    "dimension or the first N-1 dimensions of boundaries tensor and input "
                    "value tensor must match, but we got boundaries tensor [2, 3] and input "
                    "value tensor [3, 2]"):
            lib.searchsorted(lib.ones(2, 3), lib.ones(3, 2))
        with raises(RuntimeError, "torch.searchsorted(): side can only be 'left' or 'right' "
                    "but got mid"):
            lib.searchsorted(lib.ones(3), lib.ones(2), side="mid")
        with raises(NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'"):
            lib.histc(lib.ones(3, dtype=lib.int64))
        with raises(RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for "
                    "dimension 0"):
            lib.histc(lib.ones(3), bins=0)
        with raises(RuntimeError, "torch.histc: max must be larger than min"):
            lib.histc(lib.ones(3), min=2, max=1)
        with raises(RuntimeError, "nanmean(): expected input to have floating point or "
                    "complex dtype but got Long"):
            lib.nanmean(lib.ones(3, dtype=lib.int64))
        with raises(IndexError, "median(): Expected reduction dim 1 to have non-zero size."):
            lib.median(lib.zeros(2, 0), 1)
        with raises(RuntimeError, "polygamma(n, x) does not support negative n."):
            lib.special.polygamma(-1, lib.tensor([0.5]))
        for fill, args, msg in [
                ("normal_", (0, -1), "normal expects std >= 0.0, but found std -1"),
                ("bernoulli_", (1.5,), "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
                ("exponential_", (-1,), "exponential_ expects lambda > 0.0, but found lambda=-1"),
                ("geometric_", (1.5,), "geometric_ expects p to be in (0, 1), but got p=1.5"),
                ("log_normal_", (0, -1), "log_normal_ expects std > 0.0, but found std=-1"),
                ("cauchy_", (0, -1), "cauchy_ expects sigma > 0.0, but found sigma=-1"),
                ("random_", (5, 2), "random_ expects 'from' to be less than 'to', but got "
                 "from=5 >= to=2")]:
            with raises(RuntimeError, msg):
                getattr(lib.zeros(3), fill)(*args)
    assert np.isnan(tt.median(tt.zeros(0)).item())
    assert_array_equal(tt.histc(tt.tensor([2., 2.]), bins=4).numpy(), [0, 0, 2, 0])
    assert tt.bucketize(2.5, tt.tensor([1., 2., 3.])).item() == 2
    r = tt.special.multigammaln(tt.tensor([0.5, 1.5], dtype=tt.float64), 3)
    assert_allclose(r.numpy(), real.special.multigammaln(
        real.tensor([0.5, 1.5], dtype=real.float64), 3).numpy())
    assert not tt.special.bessel_j0(tt.ones(2, requires_grad=True)).requires_grad


def test_grad_fn_names(real):
    for lib in (tt, real):
        y = lib.zeros(3, 4, requires_grad=True) * 1
        names = []
        for fill, args in [("uniform_", ()), ("normal_", ()), ("bernoulli_", (0.5,)),
                           ("bernoulli_", (lib.full((3, 4), 0.5),)), ("exponential_", ()),
                           ("random_", (0, 5)), ("geometric_", (0.5,)), ("log_normal_", ()),
                           ("cauchy_", ())]:
            getattr(y, fill)(*args)
            names.append(y.grad_fn.name())
        assert names == ["UniformBackward0", "NormalBackward0", "BernoulliBackward2",
                         "BernoulliBackward1", "ExponentialBackward0", "RandomBackward0",
                         "GeometricBackward0", "LogNormalBackward0", "CauchyBackward0"]
        z = lib.tensor([0.3, 0.6], dtype=lib.float64, requires_grad=True)
        sp = lib.special
        got = [f(z).grad_fn.name() for f in (
            sp.erf, sp.erfc, sp.erfinv, sp.erfcx, sp.expit, sp.logit, sp.gammaln, sp.digamma,
            sp.psi, sp.i0, sp.i0e, sp.i1, sp.i1e, sp.ndtr, sp.ndtri, sp.log_ndtr, sp.sinc,
            sp.entr, sp.exp2, sp.expm1, sp.log1p, sp.round, lambda t: sp.polygamma(0, t),
            lambda t: sp.polygamma(2, t), lambda t: sp.multigammaln(t + 3, 3),
            lambda t: sp.xlogy(t, t), lambda t: sp.xlogy(2.0, t), lambda t: sp.xlogy(t, 2.0),
            lambda t: sp.xlog1py(t, t), lambda t: sp.xlog1py(2.0, t),
            lambda t: sp.xlog1py(t, 2.0), lambda t: sp.zeta(t + 2, t),
            lambda t: sp.gammainc(t.detach(), t), lambda t: sp.gammaincc(t.detach(), t))]
        assert got == [
            "ErfBackward0", "ErfcBackward0", "ErfinvBackward0", "SpecialErfcxBackward0",
            "SigmoidBackward0", "LogitBackward0", "LgammaBackward0", "DigammaBackward0",
            "DigammaBackward0", "I0Backward0", "SpecialI0EBackward0", "SpecialI1Backward0",
            "SpecialI1EBackward0", "MulBackward1", "SpecialNdtriBackward0",
            "SpecialLogNdtrBackward0", "SincBackward0", "SpecialEntrBackward0",
            "Exp2Backward0", "Expm1Backward0", "Log1PBackward0", "RoundBackward1",
            "PolygammaBackward0", "PolygammaBackward0", "MvlgammaBackward0", "XlogyBackward0",
            "XlogyBackward1", "XlogyBackward2", "SpecialXlog1PyBackward0",
            "SpecialXlog1PyBackward1", "SpecialXlog1PyBackward2", "SpecialZetaBackward0",
            "IgammaBackward0", "IgammacBackward0"]
        x = lib.randn(3, 4, dtype=lib.float64, requires_grad=True)
        got = [x.median().grad_fn.name(), x.median(1).values.grad_fn.name(),
               x.nanmedian().grad_fn.name(), x.nanmedian(1).values.grad_fn.name(),
               x.kthvalue(1, 1).values.grad_fn.name(), x.mode(1).values.grad_fn.name(),
               x.cummax(1).values.grad_fn.name(), x.cummin(1).values.grad_fn.name(),
               x.logcumsumexp(1).grad_fn.name(), x.nanmean().grad_fn.name(),
               lib.take_along_dim(x, lib.tensor([[0], [1], [2]]), 1).grad_fn.name(),
               lib.masked_select(x, x > 0).grad_fn.name(),
               lib.index_fill(x, 0, lib.tensor([0]), 1.0).grad_fn.name()]
        assert got == ["MedianBackward0", "MedianBackward1", "NanmedianBackward0",
                       "NanmedianBackward1", "KthvalueBackward0", "ModeBackward0",
                       "CummaxBackward0", "CumminBackward0", "LogcumsumexpBackward0",
                       "DivBackward0", "GatherBackward0", "MaskedSelectBackward0",
                       "IndexFillBackward0"]


def test_names_exist_in_pytorch(real):
    from tracegrad.torch import _ops_more
    for name in _ops_more.__all__:
        assert hasattr(real, name), name
    for name in [*_ops_more._OUT_OF_PLACE, *(n + "_" for n in _ops_more._IN_PLACE),
                 *_ops_more._RANDOM_METHODS]:
        assert hasattr(real.Tensor, name) and hasattr(tt.Tensor, name), name
    for name in tt.special.__all__:
        assert hasattr(real.special, name), name
    assert not hasattr(tt.Tensor, "bucketize") and not hasattr(real.Tensor, "bucketize")


def test_float32_and_3d(real):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    idx = np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]])
    s = RNG.standard_normal((2, 2, 2)).astype(np.float32)
    for op in (lambda L, x, s: L.scatter_add(x, 1, L.tensor(idx), s),
               lambda L, x, s: L.scatter_reduce(x, 2, L.tensor(idx), s, "prod",
                                                include_self=False),
               lambda L, x, s: L.index_add(x, 2, L.tensor([3, 3]), s[:, :1].expand(2, 3, 2)
                                           .contiguous())):
        diff(real, op, [x, s], grad=(0, 1), name=False, rtol=1e-5, atol=1e-6)
    diff(real, lambda L, x: L.median(x, 2), [x], rtol=0, atol=0)
    diff(real, lambda L, x: L.cummax(x, 0), [x], rtol=0, atol=0)
    diff(real, lambda L, x: L.masked_select(x, x > 0), [x], rtol=0, atol=0)


def test_repeated_positions_accumulate(real):
    # scatter_add / index_add sum every value at a repeated position, also in the gradient
    diff(real, lambda L, x, s: L.scatter_add(x, 0, L.tensor([1, 1, 1, 0]), s),
         [np.zeros(3), np.array([1., 2., 3., 4.])], grad=(0, 1))
    diff(real, lambda L, x, s: L.index_add(x, 0, L.tensor([2, 2]), s),
         [np.zeros((3, 2)), np.array([[1., 2.], [3., 4.]])], grad=(0, 1))
    diff(real, lambda L, x, s: L.scatter_reduce(x, 0, L.tensor([1, 1, 1, 0]), s, "prod"),
         [np.array([2., 3., 5.]), np.array([1.5, 2., -3., 4.])], grad=(0, 1))


def test_inside_torch_func(real):
    x = RNG.standard_normal((5, 3, 4))
    s = RNG.standard_normal((2, 4))
    cases = [
        lambda L, x: L.scatter_add(x, 0, L.tensor(IDX), L.tensor(s)),
        lambda L, x: L.scatter_reduce(x, 0, L.tensor(IDX), L.tensor(s), "amin",
                                      include_self=False),
        lambda L, x: L.index_fill(x, 1, L.tensor([0, 2]), 3.0),
        lambda L, x: L.special.i1e(x),
        lambda L, x: L.nanmean(x, 1),
        lambda L, x: L.logcumsumexp(x, 1),
    ]
    for f in cases:
        a = tt.func.vmap(lambda v: f(tt, v))(tt.tensor(x))
        b = real.func.vmap(lambda v: f(real, v))(real.tensor(x))
        assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
        ga = tt.func.grad(lambda v: (f(tt, v) ** 2).sum())(tt.tensor(x[0]))
        gb = real.func.grad(lambda v: (f(real, v) ** 2).sum())(real.tensor(x[0]))
        assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-10, atol=1e-12)


def test_documented_differences_pinned():
    # repeated scatter positions: the last value wins (PyTorch: unspecified)
    src = tt.tensor([1., 2., 3.], dtype=tt.float64, requires_grad=True)
    out = tt.scatter(tt.zeros(2, dtype=tt.float64), 0, tt.tensor([1, 1, 0]), src)
    assert_array_equal(out.detach().numpy(), [3., 2.])
    # scatter(..., reduce=) is differentiable; unique's values never require grad
    s = tt.tensor([[2., 3.]], dtype=tt.float64, requires_grad=True)
    tt.scatter(tt.ones(1, 2, dtype=tt.float64), 1, tt.tensor([[0, 0]]), s,
               reduce="multiply").sum().backward()
    assert_array_equal(s.grad.numpy(), [[3., 2.]])
    assert not tt.unique(tt.tensor([1., 1.], requires_grad=True)).requires_grad


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_split_evenly(real, reduce, include_self):
    x = np.array([3., 0., -3.])
    s = np.array([3., 3., 1., 3., -3., -3.])
    diff(real, lambda L, x, s: L.scatter_reduce(x, 0, L.tensor([0, 0, 1, 0, 2, 2]), s, reduce,
                                                include_self=include_self),
         [x, s], grad=(0, 1))


def test_repeated_positions_gradient_to_every_value(real):
    # the values written at a repeated position are PyTorch's choice (unspecified), the
    # gradients are not: every value gets its position's
    for op in (lambda L, x, s: L.scatter(x, 0, L.tensor([1, 1, 0, 1]), s),
               lambda L, x, s: L.index_copy(x.view(3, 1), 0, L.tensor([2, 2, 0, 2]),
                                            s.view(4, 1))):
        grads = []
        for lib in (tt, real):
            x = lib.tensor(np.zeros(3), requires_grad=True)
            s = lib.tensor(np.array([1., 2., 3., 4.]), requires_grad=True)
            out = op(lib, x, s)
            (out * lib.tensor(np.array([[5.], [6.], [7.]]).reshape(out.shape))).sum().backward()
            grads.append((x.grad.numpy(), s.grad.numpy()))
        for a, b in zip(*grads):
            assert_allclose(a, b)


def test_searchsorted_sorter_and_scalars(real):
    seq = np.array([5., 1., 3., 7.])
    order = np.argsort(seq)
    a = tt.searchsorted(tt.tensor(seq), tt.tensor([2., 6.]), sorter=tt.tensor(order))
    b = real.searchsorted(real.tensor(seq), real.tensor([2., 6.]), sorter=real.tensor(order))
    assert_array_equal(a.numpy(), b.numpy())
    a = tt.searchsorted(tt.tensor([1., 3., 5.]), 3.0, right=True)
    b = real.searchsorted(real.tensor([1., 3., 5.]), 3.0, right=True)
    assert a.shape == b.shape and a.item() == b.item() and str(a.dtype) == str(b.dtype)
    a = tt.bucketize(tt.tensor([0.5, 4.]), tt.tensor([1., 3., 5.]), out_int32=True)
    b = real.bucketize(real.tensor([0.5, 4.]), real.tensor([1., 3., 5.]), out_int32=True)
    assert str(a.dtype) == str(b.dtype) and a.tolist() == b.tolist()
