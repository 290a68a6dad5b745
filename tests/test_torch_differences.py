"""The documented differences between tracegrad.torch and PyTorch.

Each test pins one item of the README's "PyTorch compatibility / Known
differences" list, with tracegrad's exact behaviour.
"""
import numpy as np
import pytest

import tracegrad.torch as torch


def test_cpu_only():
    for make in (lambda: torch.zeros(2, device="cuda"), lambda: torch.ones(2).to("cuda:0"),
                 lambda: torch.tensor([1.0], device="mps")):
        with pytest.raises(RuntimeError, match="runs on the CPU only; device '(cuda|cuda:0|mps)' "
                                               "is not available"):
            make()
    assert torch.zeros(2, device="cpu").device.type == "cpu"
    assert torch.zeros(2, device=torch.device("cpu")).tolist() == [0.0, 0.0]


def test_random_numbers_are_reproducible_but_numpys():
    torch.manual_seed(0)
    a = torch.randn(4)
    torch.manual_seed(0)
    b = torch.randn(4)
    assert a.tolist() == b.tolist()
    # the stream is NumPy's PCG64 seeded with the same seed
    expected = np.random.default_rng(0).standard_normal(4).astype(np.float32)
    np.testing.assert_array_equal(a.numpy(), expected)


def test_complex_tensors_cannot_require_grad():
    with pytest.raises(NotImplementedError, match="does not differentiate complex tensors"):
        torch.tensor([1 + 2j], requires_grad=True)
    t = torch.tensor([1 + 2j])
    with pytest.raises(NotImplementedError, match="does not differentiate complex tensors"):
        t.requires_grad_()
    with pytest.raises(NotImplementedError, match="does not differentiate complex tensors"):
        t.requires_grad = True
    assert not t.requires_grad
    assert (t * 2).tolist() == [2 + 4j]  # complex values still compute


@pytest.mark.parametrize("write", [
    lambda y: y[0].mul_(2),
    lambda y: y.t().add_(1),
    lambda y: y.view(4).zero_(),
])
def test_inplace_on_a_view_of_a_non_leaf_that_requires_grad(write):
    x = torch.ones(2, 2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="does not support in-place operations on a view of "
                                           "a tensor that requires grad"):
        write(y)
    assert y.tolist() == [[2.0, 2.0], [2.0, 2.0]]  # nothing was written
    y[0] = 5.0  # index assignment on the tensor itself works, as in PyTorch
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [2.0, 2.0]]


def test_inplace_on_a_view_under_no_grad_is_fine():
    x = torch.ones(2, 2, requires_grad=True)
    y = x * 2
    with torch.no_grad():
        y[0].mul_(2)
    assert y.tolist() == [[4.0, 4.0], [2.0, 2.0]]


def test_grad_fn_hooks_see_no_grad_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        (grad_inputs, [g.tolist() for g in grad_outputs])))
    y.sum().backward()
    assert seen == [((None, None), [[1.0, 1.0]])]  # one per next_functions entry
    with pytest.raises(NotImplementedError, match="calling a grad_fn directly is not supported"):
        y.grad_fn(torch.ones(2))


def test_grads_batched_needs_vmap():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="is_grads_batched=True needs vmap"):
        torch.autograd.grad(x * 2, x, torch.eye(2), is_grads_batched=True)


def test_numpy_shares_memory_and_is_refused_while_requiring_grad():
    t = torch.zeros(3)
    a = t.numpy()
    a[0] = 7.0
    assert t.tolist() == [7.0, 0.0, 0.0]
    x = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [0.0, 0.0, 0.0]
