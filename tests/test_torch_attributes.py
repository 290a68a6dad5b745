"""``tracegrad.torch.Tensor`` has PyTorch's names, and nothing of the NumPy layer.

``Tensor`` stands on the core's ``Tracer`` (what every traced value needs),
not on ``ArrayTracer``, the base of the functional transforms' tracers on
which ``tracegrad.numpy`` installs NumPy's methods.  These tests list the
tensor's attributes and check each against PyTorch's: against the installed
PyTorch when there is one, and always against the names of PyTorch 2.13's
``torch.Tensor`` kept below (so the check runs without PyTorch too), with a
short list of tracegrad extras, each justified.  The regression tests pin
the methods that used to arrive from the NumPy layer (``t.copy()`` returned
``t`` itself) on both libraries, and that the package namespaces answer
``hasattr`` for a missing name with False.
"""
import copy
import importlib
import pkgutil
import re

import numpy as np
import pytest

import tracegrad.numpy  # noqa: F401  (installs the NumPy-style methods on ArrayTracer)
import tracegrad.torch as tt
from tracegrad.core import ArrayTracer, Tracer

# dir(torch.Tensor) of PyTorch 2.13.0: the public names and the special
# (double-underscore) ones
PYTORCH_2_13 = frozenset("""
    H T __abs__ __add__ __and__ __annotations__ __array__ __array_priority__ __array_wrap__
    __bool__ __class__ __complex__ __contains__ __cuda_array_interface__ __deepcopy__
    __delattr__ __delitem__ __dict__ __dir__ __div__ __dlpack__ __dlpack_c_exchange_api__
    __dlpack_device__ __doc__ __eq__ __float__ __floordiv__ __format__ __ge__
    __getattribute__ __getitem__ __getstate__ __gt__ __hash__ __iadd__ __iand__ __idiv__
    __ifloordiv__ __ilshift__ __imod__ __imul__ __index__ __init__ __init_subclass__ __int__
    __invert__ __ior__ __ipow__ __irshift__ __isub__ __iter__ __itruediv__ __ixor__ __le__
    __len__ __long__ __lshift__ __lt__ __matmul__ __mod__ __module__ __mul__ __ne__ __neg__
    __new__ __nonzero__ __or__ __pos__ __pow__ __radd__ __rand__ __rdiv__ __reduce__
    __reduce_ex__ __repr__ __reversed__ __rfloordiv__ __rlshift__ __rmatmul__ __rmod__
    __rmul__ __ror__ __rpow__ __rrshift__ __rshift__ __rsub__ __rtruediv__ __rxor__
    __setattr__ __setitem__ __setstate__ __sizeof__ __str__ __sub__ __subclasshook__
    __torch_dispatch__ __torch_function__ __truediv__ __weakref__ __xor__ abs abs_ absolute
    absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_ addcmul
    addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax
    angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
    arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided
    as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2 atan2_
    atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
    bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_
    bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_
    bmm bool broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char
    cholesky cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_
    clamp_min clamp_min_ clip clip_ clone coalesce col_indices conj conj_physical
    conj_physical_ const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh
    cosh_ count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_
    cumsum cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_
    device diag diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim
    dim_order dist div div_ divide divide_ dot double dsplit dtype eig element_size eq eq_
    equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1
    expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float
    float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_
    frac frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device grad grad_dtype
    grad_fn greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor
    heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac
    igammac_ imag index index_add index_add_ index_copy index_copy_ index_fill index_fill_
    index_put index_put_ index_reduce index_reduce_ index_select indices inner int int_repr
    inverse ipu is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda is_distributed
    is_floating_point is_inference is_ipu is_leaf is_maia is_meta is_mkldnn is_mps is_mtia
    is_neg is_nested is_nonzero is_pinned is_quantized is_same_size is_set_to is_shared
    is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isclose isfinite isinf isnan
    isneginf isposinf isreal istft item itemsize kron kthvalue layout lcm lcm_ ldexp ldexp_
    le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_
    log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp
    logdet logical_and logical_and_ logical_not logical_not_ logical_or logical_or_
    logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve mH mT
    map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul
    matrix_exp matrix_power max maximum mean median min minimum mm mode module_load moveaxis
    movedim msort mtia mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ name
    nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy nbytes
    ndim ndimension ne ne_ neg neg_ negative negative_ nelement new new_empty
    new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero
    nonzero_static norm normal_ not_equal not_equal_ numel numpy orgqr ormqr outer output_nr
    permute pin_memory pinverse polygamma polygamma_ positive pow pow_ prelu prod put put_
    q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point
    qr qscheme quantile rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_
    record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
    remainder remainder_ renorm renorm_ repeat repeat_interleave requires_grad
    requires_grad_ reshape reshape_as resize resize_ resize_as resize_as_ resize_as_sparse_
    resolve_conj resolve_neg retain_grad retains_grad roll rot90 round round_ row_indices
    rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_
    select select_scatter set_ sgn sgn_ shape share_memory_ short sigmoid sigmoid_ sign
    sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse slice_scatter slogdet
    smm softmax solve sort sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_
    split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std stft
    storage storage_offset storage_type stride sub sub_ subtract subtract_ sum sum_to_size
    svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh
    tanh_ tensor_split tile to to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc
    to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace transpose
    transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc trunc_
    type type_as unbind unflatten unfold uniform_ unique unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage values var
    vdot view view_as volatile vsplit where xlogy xlogy_ xpu zero_
""".split())

# Public names of tracegrad.torch.Tensor that torch.Tensor does not have.
EXTRAS = {
    # The value one level down, the core's protocol for every traced value
    # (tracegrad.core.concrete_value follows it; a functional transform
    # inside torch.func finds the tensor's traced data there).
    "primal",
}

# Special names of tracegrad.torch.Tensor that torch.Tensor does not have.
SPECIAL_EXTRAS = {
    # Tensor (a Python class, PyTorch's is a C type) declares its fields as slots.
    "__slots__",
}


def _special(name):
    return name.startswith("__") and name.endswith("__")


def _public(cls):
    return {n for n in dir(cls) if not n.startswith("_")}


def _specials(cls):
    return {n for n in dir(cls) if _special(n)}


@pytest.fixture(params=["tracegrad", "torch"])
def torch(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return tt


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + r"\Z")


# --------------------------------------------------------------------------
# the names


def test_tensor_is_a_traced_value_but_not_a_functional_tracer():
    assert issubclass(tt.Tensor, Tracer)
    assert not issubclass(tt.Tensor, ArrayTracer)


def test_public_names_are_pytorch_2_13s():
    unknown = sorted(_public(tt.Tensor) - PYTORCH_2_13 - EXTRAS)
    assert not unknown, f"Tensor names that PyTorch 2.13's Tensor does not have: {unknown}"


def test_special_names_are_pytorch_2_13s():
    unknown = sorted(_specials(tt.Tensor) - PYTORCH_2_13 - SPECIAL_EXTRAS)
    assert not unknown, f"Tensor special names that PyTorch 2.13's Tensor lacks: {unknown}"


def test_names_against_the_installed_pytorch():
    torch = pytest.importorskip("torch")
    theirs = set(dir(torch.Tensor))
    assert not sorted(_public(tt.Tensor) - theirs - EXTRAS)
    assert not sorted(_specials(tt.Tensor) - theirs - SPECIAL_EXTRAS)


def test_the_kept_names_are_pytorch_2_13s():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13."):
        pytest.skip(f"PyTorch {torch.__version__} is installed, the list is 2.13's")
    assert PYTORCH_2_13 == {n for n in dir(torch.Tensor) if not n.startswith("_") or _special(n)}


def test_every_extra_is_needed():
    # the lists stay short and true: each extra is a tensor name PyTorch lacks
    assert EXTRAS <= _public(tt.Tensor) and not EXTRAS & PYTORCH_2_13
    assert SPECIAL_EXTRAS <= _specials(tt.Tensor) and not SPECIAL_EXTRAS & PYTORCH_2_13


def test_no_numpy_layer_method_reaches_tensor():
    reached = sorted(n for n, v in vars(ArrayTracer).items()
                     if n not in ("__doc__", "__module__", "__slots__")
                     and any(n in vars(k) and vars(k)[n] is v for k in tt.Tensor.__mro__))
    assert not reached


# --------------------------------------------------------------------------
# the methods that came from the NumPy layer, as PyTorch's


@pytest.mark.parametrize("name", ["copy", "astype", "at", "conjugate", "rsub"])
def test_numpy_only_methods_do_not_exist(torch, name):
    t = torch.tensor([1.0, 2.0])
    assert not hasattr(t, name)
    with pytest.raises(AttributeError):
        getattr(t, name)


def test_copy_is_not_there_and_clone_is_independent(torch):
    t = torch.tensor([1.0, 2.0])
    with raises(AttributeError, "'Tensor' object has no attribute 'copy'"):
        t.copy()
    c = t.clone()
    c.add_(1)
    assert t.tolist() == [1.0, 2.0] and c.tolist() == [2.0, 3.0]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert x.clone().grad_fn.name() == "CloneBackward0"


def test_copy_copy_is_a_new_tensor_on_the_same_data(torch):
    t = torch.tensor([1.0, 2.0])
    c = copy.copy(t)
    assert c is not t
    c.add_(1)  # as PyTorch: the copy shares the data (copy.deepcopy does not)
    assert t.tolist() == [2.0, 3.0]
    d = copy.deepcopy(t)
    d.add_(1)
    assert t.tolist() == [2.0, 3.0]
    y = torch.tensor([1.0, 2.0], requires_grad=True) * 2
    cy = copy.copy(y)
    assert cy.requires_grad and cy.is_leaf and cy.grad_fn is None


def test_ravel(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    r = x.ravel()
    assert r.tolist() == [1.0, 2.0, 3.0, 4.0] and r.grad_fn.name() == "ViewBackward0"
    assert r._base is x
    rt = x.t().ravel()  # not contiguous: a view of a contiguous copy
    assert rt.tolist() == [1.0, 3.0, 2.0, 4.0]
    assert rt.grad_fn.name() == "ViewBackward0"
    assert rt.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    (rt * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert torch.tensor(5.0).ravel().shape == (1,)


def test_contiguous_makes_a_c_contiguous_copy(torch):
    for x in (torch.ones(2, 3).t(), torch.ones(2, 3, requires_grad=True).t()):
        c = x.contiguous()
        assert not x.is_contiguous() and c.is_contiguous() and c.stride() == (2, 1)


def test_take(torch):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    out = x.take(torch.tensor([[0, 5], [-1, 0]]))
    assert out.tolist() == [[1.0, 6.0], [6.0, 1.0]]
    assert out.grad_fn.name() == "TakeBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
    assert x.take(torch.tensor(4)).item() == 5.0
    with raises(TypeError, "take(): argument 'index' (position 1) must be Tensor, not list"):
        x.take([1])
    with raises(RuntimeError, "take(): Expected a long tensor for index, but got Int"):
        x.take(torch.tensor([1], dtype=torch.int32))
    with raises(IndexError, "out of range: tried to access index 6 on a tensor of 6 elements."):
        x.take(torch.tensor([6]))


def test_conj_and_real(torch):
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    assert t.conj() is t and t.real is t
    z = torch.tensor([1 + 2j, 3 - 1j])
    assert z.conj().tolist() == [1 - 2j, 3 + 1j]
    assert z.real.tolist() == [1.0, 3.0]
    z.real.fill_(5.0)  # a view of the real parts
    assert z.tolist() == [5 + 2j, 5 - 1j]


def test_transposes(torch):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x.T.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    assert x.T.grad_fn.name() == "PermuteBackward0"
    assert x.mT.shape == (3, 2) and x.mT.grad_fn.name() == "TransposeBackward0"


def test_python_operators_pytorch_lacks(torch):
    t = torch.tensor(1.5)
    with raises(TypeError, "type Tensor doesn't define __round__ method"):
        round(t)
    with raises(TypeError, "unsupported operand type(s) for divmod(): 'Tensor' and 'int'"):
        divmod(t, 2)


def test_numpy_functions_on_tensors(torch):
    t = torch.tensor([1.0, -2.0])
    s = np.sin(t)
    assert type(s).__name__ == "Tensor" and np.allclose(s.tolist(), np.sin([1.0, -2.0]))
    g = np.greater(t, 0)
    assert type(g).__name__ == "Tensor" and g.dtype == torch.uint8 and g.tolist() == [1, 0]
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad. Use "
                              "tensor.detach().numpy() instead."):
        np.sin(torch.tensor([1.0], requires_grad=True))


def test_the_methods_inside_torch_func(torch):
    idx = torch.tensor([2, 0])

    def f(x):
        return (x.ravel().take(idx) * x.T.ravel()[:2]).sum()

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    g = torch.func.grad(f)(x)
    assert g.tolist() == [[6.0, 0.0], [2.0, 0.0]]
    batched = torch.func.vmap(lambda v: v.take(idx - 1))(x)
    assert batched.tolist() == [[2.0, 2.0], [4.0, 4.0]]


# --------------------------------------------------------------------------
# namespaces


def _torch_modules():
    yield tt
    for info in pkgutil.walk_packages(tt.__path__, tt.__name__ + "."):
        yield importlib.import_module(info.name)


@pytest.mark.parametrize("module", list(_torch_modules()), ids=lambda m: m.__name__)
def test_a_missing_name_is_an_attribute_error(module):
    assert not hasattr(module, "jit" if module is tt else "no_such_name")
    with pytest.raises(AttributeError):
        getattr(module, "no_such_name")
    missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert not missing, f"{module.__name__}.__all__ names what it lacks: {missing}"


def test_the_submodules_come_with_the_package():
    for name in ("autograd", "cuda", "func", "nn", "optim", "testing", "utils", "viz"):
        assert getattr(tt, name).__name__ == f"tracegrad.torch.{name}"
    assert tt.utils.data.__name__ == "tracegrad.torch.utils.data"
    assert tt.autograd.functional.__name__ == "tracegrad.torch.autograd.functional"
    assert callable(tt.autograd.gradcheck) and callable(tt.autograd.gradgradcheck)
