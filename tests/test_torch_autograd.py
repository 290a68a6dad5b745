"""tracegrad.torch's autograd semantics, each pinned with PyTorch's behaviour and messages.

Every test takes the fixture ``torch``: it runs once with ``tracegrad.torch``
and once with real PyTorch (skipped when PyTorch is not installed).  The
expected values, exception types and messages are hard-coded from PyTorch
2.13, so the PyTorch run checks the test itself and the tracegrad run checks
tracegrad; a test that fails only for ``[tracegrad]`` is a difference from
PyTorch.  (An exception may be a subclass of PyTorch's type: ``except
RuntimeError`` must catch it.)
"""
import re
import threading
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


@pytest.fixture(params=["tracegrad", "torch"])
def torch(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return tt


def raises(exc_type, message, prefix=False):
    """``pytest.raises`` that also pins the whole message (or its beginning)."""
    pattern = re.escape(message) + ("" if prefix else r"\Z")
    return pytest.raises(exc_type, match="^" + pattern)


def leaf(torch, values=(1.0, 2.0, 3.0), **kw):
    return torch.tensor(list(values), requires_grad=True, **kw)


def warns_of(fn):
    """Run ``fn`` and return ``(result, [(category name, message)])``.

    The message loses PyTorch's "(Triggered internally at <C++ file>)" suffix.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [(w.category.__name__, str(w.message).split(" (Triggered internally at")[0])
                 for w in caught]


FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


def modified_message(kind, shape, op, now=1, then=0):
    """PyTorch's message for a saved value modified in place."""
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [torch.{kind} {shape}], which is output 0 of {op}, is at "
        f"version {now}; expected version {then} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


# ---------------------------------------------------------------------------
# requires_grad propagation, leaves


def test_results_require_grad_if_any_input_does(torch):
    a = leaf(torch)
    b = torch.tensor([1.0, 1.0, 1.0])
    assert (a * b).requires_grad and (b * a).requires_grad and (a + 1).requires_grad
    assert not (b * 2).requires_grad
    assert a.is_leaf and b.is_leaf and not (a * b).is_leaf and (b * 2).is_leaf
    assert a.grad_fn is None and (b * 2).grad_fn is None
    assert (a * b).grad_fn.name() == "MulBackward0"


def test_grad_mode_off_makes_leaves(torch):
    a = leaf(torch)
    with torch.no_grad():
        y = a * 2
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None


def test_requires_grad_setter_and_method(torch):
    t = torch.tensor([1.0, 2.0])
    assert t.requires_grad_() is t and t.requires_grad and t.is_leaf
    t.requires_grad = False
    assert not t.requires_grad
    t.requires_grad_(True)
    y = t * 2
    with raises(RuntimeError, "you can only change requires_grad flags of leaf variables. If "
                              "you want to use a computed variable in a subgraph that doesn't "
                              "require differentiation use var_no_grad = var.detach()."):
        y.requires_grad = False
    with raises(RuntimeError, "you can only change requires_grad flags of leaf variables. If "
                              "you want to use a computed variable in a subgraph that doesn't "
                              "require differentiation use var_no_grad = var.detach()."):
        y.requires_grad_(False)


def test_requires_grad_true_on_non_leaf_is_refused(torch):
    y = leaf(torch) * 2
    with raises(RuntimeError, "you can only change requires_grad flags of leaf variables."):
        y.requires_grad = True


def test_integer_and_bool_tensors_cannot_require_grad(torch):
    with raises(RuntimeError, "Only Tensors of floating point and complex dtype can require "
                              "gradients"):
        torch.tensor([1, 2], requires_grad=True)
    with raises(RuntimeError, "Only Tensors of floating point and complex dtype can require "
                              "gradients"):
        torch.zeros(2, dtype=torch.int64, requires_grad=True)
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        torch.tensor([1, 2]).requires_grad_()
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        torch.tensor([True]).requires_grad_()
    t = torch.tensor([1, 2], dtype=torch.int32)
    with raises(RuntimeError, "only Tensors of floating point and complex dtype can require "
                              "gradients"):
        t.requires_grad = True
    assert not t.requires_grad


def test_integer_results_of_tracked_tensors_do_not_require_grad(torch):
    a = leaf(torch)
    for r in (a > 1, a.argmax(), a.long(), a == a):
        assert not r.requires_grad and r.grad_fn is None


# ---------------------------------------------------------------------------
# backward: implicit gradient, shapes, vector-Jacobian products


def test_backward_of_a_scalar_needs_no_gradient(torch):
    a = leaf(torch)
    (a * a).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]
    b = torch.tensor([3.0], requires_grad=True)  # one element, not 0-d: also implicit
    (b * b).backward()
    assert b.grad.tolist() == [6.0]


def test_backward_of_a_leaf(torch):
    a = torch.tensor(2.0, requires_grad=True)
    a.backward()
    assert a.grad.item() == 1.0
    v = leaf(torch)
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert v.grad.tolist() == [1.0, 2.0, 3.0]


def test_implicit_gradient_only_for_scalar_outputs(torch):
    a = leaf(torch)
    with raises(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        (a * 2).backward()
    assert a.grad is None


@pytest.mark.parametrize("shape", [(2,), (3, 1), (1, 3)])
def test_gradient_of_the_wrong_shape_names_both_shapes(torch, shape):
    a = leaf(torch)
    with raises(RuntimeError, f"Mismatch in shape: grad_output[0] has a shape of "
                              f"torch.Size({list(shape)}) and output[0] has a shape of "
                              "torch.Size([3])."):
        (a * 2).backward(torch.ones(*shape))


def test_backward_of_a_tensor_that_does_not_require_grad(torch):
    with raises(RuntimeError, NO_GRAD_FN):
        torch.ones(2).sum().backward()


def test_backward_v_is_the_vector_jacobian_product(torch):
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    w = torch.tensor([[2.0, 1.0], [-1.0, 0.5]])
    z = (x @ w).tanh()
    v = torch.tensor([[1.0, 2.0], [-3.0, 0.25]])
    z.backward(v)
    # the gradient of sum(z * v)
    x2 = x.detach().clone().requires_grad_()
    ((x2 @ w).tanh() * v).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-6)
    # and J^T v from the explicit Jacobian
    # and J^T v from the explicit Jacobian: z[i, j] = tanh(sum_k x[i, k] w[k, j])
    xv, wv, vv = x.detach().numpy(), w.numpy(), v.numpy()
    dz = 1 - np.tanh(xv @ wv) ** 2
    jac = np.einsum("ij,il,kj->ijlk", dz, np.eye(2), wv)  # d z[i, j] / d x[l, k]
    np.testing.assert_allclose(x.grad.numpy(), np.einsum("ij,ijlk->lk", vv, jac), rtol=1e-5)


def test_gradient_dtype_is_converted_to_the_output_dtype(torch):
    a = leaf(torch)
    (a * 2).backward(torch.ones(3, dtype=torch.float64))
    assert a.grad.dtype == torch.float32 and a.grad.tolist() == [2.0, 2.0, 2.0]
    b = leaf(torch)
    (b * 2).backward(torch.ones(3, dtype=torch.int64))
    assert b.grad.dtype == torch.float32


def test_gradients_do_not_flow_into_tensors_that_do_not_require_grad(torch):
    a = leaf(torch)
    c = torch.tensor([4.0, 5.0, 6.0])
    (a * c).sum().backward()
    assert c.grad is None and a.grad.tolist() == [4.0, 5.0, 6.0]


# ---------------------------------------------------------------------------
# accumulation, zeroing, non-leaf .grad


def test_gradients_accumulate_in_place_until_zeroed(torch):
    a = leaf(torch)
    (a * 2).sum().backward()
    g = a.grad
    (a * 3).sum().backward()
    assert a.grad is g and g.tolist() == [5.0, 5.0, 5.0]  # accumulated into the same tensor
    a.grad.zero_()
    (a * a).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]
    a.grad = None
    (a * 3).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]
    assert not a.grad.requires_grad and a.grad.is_leaf


def test_grad_can_be_assigned_and_deleted(torch):
    a = leaf(torch)
    a.grad = torch.tensor([1.0, 1.0, 1.0])
    (a * 2).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]
    del a.grad
    assert a.grad is None


def test_assigning_a_wrong_grad(torch):
    a = leaf(torch)
    with raises(RuntimeError, "attempting to assign a gradient of size '[2]' to a tensor of "
                              "size '[3]'. Please ensure that the gradient and the tensor are "
                              "the same size"):
        a.grad = torch.ones(2)
    with raises(RuntimeError, "attempting to assign a gradient with dtype 'double' to a tensor "
                              "with grad_dtype 'Float'.", prefix=True):
        a.grad = torch.ones(3, dtype=torch.float64)
    with raises(TypeError, "assigned grad expected to be a Tensor or None but got grad of "
                           "type int"):
        a.grad = 3


def test_reading_grad_of_a_non_leaf_warns(torch):
    a = leaf(torch)
    b = a * 2
    b.sum().backward()
    out, caught = warns_of(lambda: b.grad)
    assert out is None
    assert caught == [("UserWarning", NON_LEAF_GRAD)]
    _, caught = warns_of(lambda: a.grad)  # leaves do not warn
    assert caught == []


def test_retain_grad_populates_a_non_leaf(torch):
    a = leaf(torch)
    b = a * 2
    assert not b.retains_grad
    b.retain_grad()
    assert b.retains_grad and not a.retains_grad
    (b * b).sum().backward()
    _, caught = warns_of(lambda: b.grad)
    assert caught == [] and b.grad.tolist() == [4.0, 8.0, 12.0]
    a.retain_grad()  # a no-op on leaves
    assert not a.retains_grad
    with raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"):
        torch.ones(2).retain_grad()


def test_retained_grad_accumulates(torch):
    a = leaf(torch)
    b = a * 2
    b.retain_grad()
    c = b * 3
    c.sum().backward(retain_graph=True)
    c.sum().backward()
    assert b.grad.tolist() == [6.0, 6.0, 6.0] and a.grad.tolist() == [12.0, 12.0, 12.0]


# ---------------------------------------------------------------------------
# retain_graph, freed graphs, create_graph


def test_second_backward_through_a_freed_graph(torch):
    a = leaf(torch)
    y = (a * a).sum()
    y.backward()
    with raises(RuntimeError, FREED):
        y.backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_retain_graph_allows_a_second_backward(torch):
    a = leaf(torch)
    y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    assert a.grad.tolist() == [6.0, 12.0, 18.0]
    with raises(RuntimeError, FREED):
        y.backward()


def test_graph_without_saved_values_can_be_walked_again(torch):
    a = leaf(torch)
    y = (a + 1).sum()
    y.backward()
    y.backward()  # nothing was saved, nothing to free: PyTorch allows it
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_freed_graph_keeps_its_structure(torch):
    a = leaf(torch)
    y = (a * a).sum()
    y.backward()
    mul = y.grad_fn.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    accs = mul.next_functions
    assert len(accs) == 2 and all(f.variable is a for f, _ in accs)


def test_create_graph_records_the_backward_pass(torch):
    x = torch.tensor(3.0, requires_grad=True)
    y = x ** 3
    dy, = torch.autograd.grad(y, x, create_graph=True)
    assert dy.item() == 27.0 and dy.requires_grad and dy.grad_fn.name() == "MulBackward0"
    d2y, = torch.autograd.grad(dy, x)
    assert d2y.item() == 18.0 and not d2y.requires_grad


def test_third_and_fourth_derivatives(torch):
    a = torch.tensor(2.0, requires_grad=True)
    y = a ** 4
    g1, = torch.autograd.grad(y, a, create_graph=True)
    g2, = torch.autograd.grad(g1, a, create_graph=True)
    g3, = torch.autograd.grad(g2, a, create_graph=True)
    g4, = torch.autograd.grad(g3, a)
    assert [g.item() for g in (g1, g2, g3, g4)] == [32.0, 48.0, 48.0, 24.0]
    assert [g.grad_fn.name() for g in (g1, g2, g3)] == ["MulBackward0"] * 3


def test_second_derivative_needs_create_graph(torch):
    a = torch.tensor(2.0, requires_grad=True)
    g1, = torch.autograd.grad(a ** 3, a)
    assert not g1.requires_grad
    with raises(RuntimeError, NO_GRAD_FN):
        torch.autograd.grad(g1, a)


def test_backward_create_graph_makes_grad_differentiable(torch):
    a = leaf(torch)
    (a ** 3).sum().backward(create_graph=True)
    g = a.grad
    assert g.requires_grad and g.tolist() == [3.0, 12.0, 27.0]
    a.grad = None
    g.sum().backward()
    assert a.grad.tolist() == [6.0, 12.0, 18.0]


def test_hessian_vector_product_by_double_backward(torch):
    x = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64, requires_grad=True)
    f = (x[0] * x[1] ** 2 + x[2].exp() * x[0])
    g, = torch.autograd.grad(f, x, create_graph=True)
    v = torch.tensor([1.0, 0.5, -2.0], dtype=torch.float64)
    hv, = torch.autograd.grad(g, x, grad_outputs=v)
    x0, x1, x2 = 1.0, 2.0, -1.0
    hess = np.array([[0, 2 * x1, np.exp(x2)], [2 * x1, 2 * x0, 0], [np.exp(x2), 0, x0 * np.exp(x2)]])
    np.testing.assert_allclose(hv.numpy(), hess @ np.array([1.0, 0.5, -2.0]), rtol=1e-12)


# ---------------------------------------------------------------------------
# torch.autograd.grad


def test_autograd_grad_basic(torch):
    a, b = leaf(torch), leaf(torch, (4.0, 5.0, 6.0))
    ga, gb = torch.autograd.grad((a * b).sum(), [a, b])
    assert ga.tolist() == [4.0, 5.0, 6.0] and gb.tolist() == [1.0, 2.0, 3.0]
    assert a.grad is None and b.grad is None  # .grad untouched
    g, = torch.autograd.grad((a * b).sum(), a)  # a single input: still a tuple
    assert g.tolist() == [4.0, 5.0, 6.0]


def test_autograd_grad_with_grad_outputs(torch):
    a = leaf(torch)
    y = a * a
    g, = torch.autograd.grad(y, a, grad_outputs=torch.tensor([1.0, 0.0, 2.0]))
    assert g.tolist() == [2.0, 0.0, 12.0]
    a2 = leaf(torch)
    outs = [a2 * 2, (a2 * a2).sum()]
    g, = torch.autograd.grad(outs, [a2], grad_outputs=[torch.ones(3), None])
    assert g.tolist() == [4.0, 6.0, 8.0]
    with raises(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        torch.autograd.grad(leaf(torch) * 2, a)
    with raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of "
                              "torch.Size([2]) and output[0] has a shape of torch.Size([3])."):
        torch.autograd.grad(a * 2, a, grad_outputs=torch.ones(2))


def test_autograd_grad_retain_graph(torch):
    a = leaf(torch)
    c = (a * a).sum()
    g1, = torch.autograd.grad(c, a, retain_graph=True)
    g2, = torch.autograd.grad(c, a)
    assert g1.tolist() == g2.tolist() == [2.0, 4.0, 6.0]
    with raises(RuntimeError, FREED):
        torch.autograd.grad(c, a)


def test_autograd_grad_unused_inputs(torch):
    a, b = leaf(torch), leaf(torch)
    with raises(RuntimeError, "The differentiated Tensor at index 1 appears to not have been "
                              "used in the graph. Set allow_unused=True if this is the desired "
                              "behavior."):
        torch.autograd.grad((a * 2).sum(), [a, b])
    ga, gb = torch.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
    assert ga.tolist() == [2.0, 2.0, 2.0] and gb is None
    ga, gb = torch.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
    assert gb.tolist() == [0.0, 0.0, 0.0]
    with raises(ValueError, "Expected allow_unused to be True or not passed when "
                            "materialize_grads=True, but got: allow_unused=False."):
        torch.autograd.grad((a * 2).sum(), [a, b], allow_unused=False, materialize_grads=True)


def test_autograd_grad_errors(torch):
    a = leaf(torch)
    with raises(RuntimeError, NO_GRAD_FN):
        torch.autograd.grad(torch.tensor([1.0]) * 2, a)
    with raises(RuntimeError, "One of the differentiated Tensors does not require grad"):
        torch.autograd.grad((a * 2).sum(), [a, torch.tensor([1.0])])
    with raises(RuntimeError, "got 2 tensors and 1 gradients"):
        torch.autograd.grad([(a * 2).sum(), a.sum()], [a], grad_outputs=[torch.tensor(1.0)])


def test_autograd_grad_of_non_leaf_inputs_and_leaf_outputs(torch):
    a = leaf(torch)
    b = a * 2
    g, = torch.autograd.grad((b * b).sum(), b)
    assert g.tolist() == [4.0, 8.0, 12.0]
    g, = torch.autograd.grad(a, a, torch.ones(3))
    assert g.tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------------------
# torch.autograd.backward, backward(inputs=...)


def test_autograd_backward(torch):
    a = leaf(torch)
    torch.autograd.backward((a * 2).sum())
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    a.grad = None
    torch.autograd.backward([a * 2, a * 3], grad_tensors=[torch.ones(3), torch.full((3,), 2.0)])
    assert a.grad.tolist() == [8.0, 8.0, 8.0]
    b = leaf(torch)
    c = leaf(torch)
    torch.autograd.backward([(b * c).sum()], inputs=[b])
    assert b.grad.tolist() == [1.0, 2.0, 3.0] and c.grad is None


def test_backward_inputs(torch):
    a, b = leaf(torch), leaf(torch, (4.0, 5.0, 6.0))
    (a * b).sum().backward(inputs=[b])
    assert a.grad is None and b.grad.tolist() == [1.0, 2.0, 3.0]
    (a * b).sum().backward(inputs=a)
    assert a.grad.tolist() == [4.0, 5.0, 6.0]
    mid = a * 2
    (mid * b).sum().backward(inputs=[mid])  # a non-leaf input gets a .grad
    _, caught = warns_of(lambda: mid.grad)
    assert mid.grad.tolist() == [4.0, 5.0, 6.0]
    unused = leaf(torch)
    (a * 2).sum().backward(inputs=[unused])
    assert unused.grad is None


def test_backward_inputs_errors(torch):
    a = leaf(torch)
    with raises(RuntimeError, "`inputs` argument to `backward()` cannot be empty."):
        (a * 2).sum().backward(inputs=[])
    with raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"):
        (a * torch.ones(3)).sum().backward(inputs=[torch.ones(3)])


# ---------------------------------------------------------------------------
# grad modes


def test_no_grad_enable_grad_nesting(torch):
    a = leaf(torch)
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            assert (a * 2).requires_grad
        assert not (a * 2).requires_grad
    assert torch.is_grad_enabled()


def test_grad_modes_as_decorators(torch):
    a = leaf(torch)

    @torch.no_grad()
    def off(x):
        return x * 2, torch.is_grad_enabled()

    @torch.enable_grad()
    def on(x):
        return x * 2, torch.is_grad_enabled()

    @torch.set_grad_enabled(False)
    def off2(x):
        return x * 2

    assert torch.is_grad_enabled()  # decorating does not change the mode
    y, mode = off(a)
    assert not y.requires_grad and not mode
    with torch.no_grad():
        y, mode = on(a)
    assert y.requires_grad and mode
    assert not off2(a).requires_grad
    assert off.__name__ == "off"


def test_set_grad_enabled_as_function_and_context(torch):
    a = leaf(torch)
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled() and not (a * 2).requires_grad
        with torch.set_grad_enabled(True):
            assert (a * 2).requires_grad
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_grad_mode_restored_after_exceptions(torch):
    with pytest.raises(ZeroDivisionError):
        with torch.no_grad():
            1 / 0
    assert torch.is_grad_enabled()


def test_no_grad_on_a_generator_function(torch):
    a = leaf(torch)

    @torch.no_grad()
    def gen():
        yield (a * 2).requires_grad
        yield torch.is_grad_enabled()

    assert list(gen()) == [False, False]
    assert torch.is_grad_enabled()


def test_inference_mode(torch):
    a = leaf(torch)
    with torch.inference_mode():
        y = a * 2
        assert not torch.is_grad_enabled() and torch.is_inference_mode_enabled()
    assert not y.requires_grad and torch.is_grad_enabled()
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode(False):
        assert (a * 2).requires_grad

    @torch.inference_mode()
    def f(x):
        return x * x

    @torch.inference_mode
    def g(x):
        return x * 2

    assert not f(a).requires_grad and not g(a).requires_grad


def test_inference_tensors(torch):
    with torch.inference_mode():
        y = torch.ones(2) * 2
    assert y.is_inference() and not torch.ones(2).is_inference()
    with raises(RuntimeError, "Inference tensors do not track version counter."):
        y._version
    with raises(RuntimeError, "Inference tensors cannot be saved for backward.", prefix=True):
        (leaf(torch, (1.0, 2.0)) * y).sum().backward()


def test_grad_mode_is_thread_local(torch):
    seen = {}

    def worker():
        a = leaf(torch)
        seen["enabled"] = torch.is_grad_enabled()
        seen["requires_grad"] = (a * 2).requires_grad
        with torch.no_grad():
            seen["inner"] = torch.is_grad_enabled()
            done.wait(5)

    done = threading.Event()
    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        assert not torch.is_grad_enabled()
    # the worker sits in its own no_grad: the main thread is not affected
    assert torch.is_grad_enabled() and (leaf(torch) * 2).requires_grad
    done.set()
    t.join()
    assert seen == {"enabled": True, "requires_grad": True, "inner": False}


def test_backward_in_threads(torch):
    grads = []

    def work(k):
        x = torch.ones(3, requires_grad=True)
        ((x + k) * (x + 1)).sum().backward()
        grads.append((k, x.grad.tolist()))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(grads) == [(k, [2.0 + 1.0 + k] * 3) for k in range(6)]


# ---------------------------------------------------------------------------
# in-place operations and version counters


def test_inplace_on_a_leaf_that_requires_grad(torch):
    a = leaf(torch)
    for op in (lambda: a.add_(1), lambda: a.mul_(2), lambda: a.zero_(), lambda: a.fill_(1.0),
               lambda: a.copy_(torch.ones(3)), lambda: a.clamp_(0, 1), lambda: a.exp_()):
        with raises(RuntimeError, LEAF_INPLACE):
            op()
    with raises(RuntimeError, LEAF_INPLACE):
        a += 1
    assert a.tolist() == [1.0, 2.0, 3.0] and a._version == 0


def test_inplace_on_a_view_of_a_leaf(torch):
    a = leaf(torch)
    with raises(RuntimeError, "a view of a leaf Variable that requires grad is being used in "
                              "an in-place operation."):
        a[0] = 5.0
    with raises(RuntimeError, "a view of a leaf Variable that requires grad is being used in "
                              "an in-place operation."):
        a[1:].mul_(2)


def test_inplace_on_a_leaf_under_no_grad(torch):
    a = leaf(torch)
    with torch.no_grad():
        a.add_(1)
        a[0] = 10.0
        a *= 2
    assert a.tolist() == [20.0, 6.0, 8.0] and a._version == 3
    assert a.requires_grad and a.is_leaf and a.grad_fn is None
    (a * a).sum().backward()
    assert a.grad.tolist() == [40.0, 12.0, 16.0]


def test_inplace_on_non_leaves_is_recorded(torch):
    a = leaf(torch)
    b = a * 2
    b.add_(1)
    assert b.grad_fn.name() == "AddBackward0" and not b.is_leaf
    b.mul_(torch.tensor([1.0, 2.0, 3.0]))
    assert b.grad_fn.name() == "MulBackward0"
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]  # d/da (2a + 1) * k
    c = a * 1
    c[1] = 0.0
    assert c.grad_fn.name() == "torch::autograd::CopySlices"
    c.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0, 7.0]


def test_inplace_on_a_tensor_that_does_not_require_grad_with_one_that_does(torch):
    a = leaf(torch)
    t = torch.zeros(3)
    t.add_(a)
    assert t.requires_grad and not t.is_leaf and t.grad_fn.name() == "AddBackward0"
    (t * t).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_version_counter(torch):
    a = torch.ones(3)
    assert a._version == 0
    a.add_(1)
    a[0] = 2.0
    a.mul_(3)
    b = a[1:]
    b.zero_()
    assert a._version == 4 and b._version == 4  # views share the counter
    c = a.view(3)
    c.fill_(1.0)
    assert a._version == 5 and a.tolist() == [1.0, 1.0, 1.0]
    d = a + 0  # a new tensor: its own counter
    d.add_(1)
    assert d._version == 1 and a._version == 5


@pytest.mark.parametrize("dtype, kind", [("float32", "FloatTensor"), ("float64", "DoubleTensor")])
def test_backward_through_a_modified_saved_input(torch, dtype, kind):
    a = torch.tensor([1.0, 2.0], dtype=getattr(torch, dtype), requires_grad=True)
    b = a * 1
    y = b.sin()
    b.mul_(2)
    with raises(RuntimeError, modified_message(kind, [2], "Mul")):
        y.sum().backward()


def test_backward_through_a_modified_saved_output(torch):
    a = leaf(torch)
    y = a.exp()
    y.add_(1)
    with raises(RuntimeError, modified_message("FloatTensor", [3], "Exp")):
        y.sum().backward()


def test_backward_through_a_twice_modified_value(torch):
    a = leaf(torch)
    b = a * 1
    y = b * b
    b.add_(1)
    b.add_(1)
    with raises(RuntimeError, modified_message("FloatTensor", [3], "Add", now=2, then=0)):
        y.sum().backward()


def test_modifying_a_value_the_backward_does_not_read_is_fine(torch):
    a = leaf(torch)
    b = a * 1
    y = b + 2
    b.mul_(2)
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


def test_detach_shares_storage_and_version_counter(torch):
    a = leaf(torch)
    d = a.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1)
    assert a.tolist() == [2.0, 3.0, 4.0] and a._version == d._version == 1
    out = a.sigmoid()
    c = out.detach()
    c.zero_()
    with raises(RuntimeError, modified_message("FloatTensor", [3], "Sigmoid")):
        out.sum().backward()


def test_data_is_untracked_and_hides_modifications(torch):
    # the documented hazard: .data changes go unnoticed by autograd
    a = leaf(torch)
    out = a.sigmoid()
    c = out.data
    assert not c.requires_grad and c.is_leaf
    c.zero_()
    assert out.tolist() == [0.0, 0.0, 0.0]
    assert out._version == 0 and c._version == 1
    out.sum().backward()  # no error: the gradient silently uses the zeros
    assert a.grad.tolist() == [0.0, 0.0, 0.0]


def test_data_assignment(torch):
    a = leaf(torch)
    a.data = torch.tensor([5.0, 6.0, 7.0])
    assert a.tolist() == [5.0, 6.0, 7.0] and a.requires_grad and a.is_leaf
    (a * a).sum().backward()
    assert a.grad.tolist() == [10.0, 12.0, 14.0]


def test_detach_(torch):
    a = leaf(torch)
    b = a * 2
    assert b.detach_() is b
    assert not b.requires_grad and b.is_leaf and b.grad_fn is None
    c = (a * 2)[:2]
    with raises(RuntimeError, "Can't detach views in-place. Use detach() instead.", prefix=True):
        c.detach_()


# ---------------------------------------------------------------------------
# Variable


def test_variable_is_a_legacy_alias(torch):
    v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert isinstance(v, torch.Tensor) and v.requires_grad and v.is_leaf
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    out, caught = warns_of(lambda: torch.autograd.Variable(torch.ones(2), volatile=True))
    assert caught == [("UserWarning", "volatile was removed and now has no effect. Use `with "
                                      "torch.no_grad():` instead.")]
    assert isinstance(out, torch.Tensor) and not out.requires_grad


# ---------------------------------------------------------------------------
# custom Functions


def _square(torch):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 2 * x

    return Square


def test_custom_function_forward_backward(torch):
    Square = _square(torch)
    a = leaf(torch)
    y = Square.apply(a)
    assert y.tolist() == [1.0, 4.0, 9.0] and y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "SquareBackward"
    assert repr(y) == "tensor([1., 4., 9.], grad_fn=<SquareBackward>)"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.SquareBackward object at 0x")
    assert y.grad_fn.next_functions[0][0].variable is a
    (y * torch.tensor([1.0, 0.5, 2.0])).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 12.0]


def test_custom_function_double_backward(torch):
    Square = _square(torch)
    x = torch.tensor([0.5, -3.0], dtype=torch.float64, requires_grad=True)
    y = Square.apply(x) * x  # x**3
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [0.75, 27.0] and g.requires_grad
    gg, = torch.autograd.grad(g.sum(), x)
    assert gg.tolist() == [3.0, -18.0]


def test_custom_function_without_grad_inputs(torch):
    Square = _square(torch)
    y = Square.apply(torch.tensor([2.0]))
    assert not y.requires_grad and y.grad_fn is None
    with torch.no_grad():
        y = Square.apply(leaf(torch))
    assert not y.requires_grad


def test_custom_function_needs_input_grad_and_non_tensor_arguments(torch):
    seen = []

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            ctx.k = k
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return None, g * ctx.k, None

    b = leaf(torch, (1.0, 2.0))
    Scale.apply(torch.ones(2), b, 3.0).sum().backward()
    assert seen == [(False, True, False), (False, True, False)]
    assert b.grad.tolist() == [3.0, 3.0]


def test_custom_function_mark_non_differentiable(torch):
    class MaxWithIndex(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            i = a.argmax()
            ctx.save_for_backward(a, i)
            ctx.mark_non_differentiable(i)
            return a.max(), i

        @staticmethod
        def backward(ctx, gv, gi):
            a, i = ctx.saved_tensors
            g = torch.zeros_like(a)
            g[i] = gv
            return g

    class SortAndDouble(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            w = a * 2
            ctx.mark_non_differentiable(w)
            return a.sort()[0], w

        @staticmethod
        def backward(ctx, gs, gw):
            return gs + gw

    a = leaf(torch, (1.0, 5.0, 2.0))
    v, i = MaxWithIndex.apply(a)
    assert v.requires_grad and not i.requires_grad and i.item() == 1
    v.backward()
    assert a.grad.tolist() == [0.0, 1.0, 0.0]
    s, w = SortAndDouble.apply(a)
    assert s.requires_grad and not w.requires_grad and w.grad_fn is None


def test_custom_function_returning_its_input(torch):
    class Identity3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return 3 * g

    a = leaf(torch)
    y = Identity3.apply(a)
    assert y is not a and not y.is_leaf and y.grad_fn.name() == "Identity3Backward"
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]


def test_custom_function_gradient_count_and_shape_errors(torch):
    class TooFew(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class ExtraNones(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    class BadShape(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(2)

    a = leaf(torch)
    with raises(RuntimeError, "function TooFewBackward returned an incorrect number of "
                              "gradients (expected 2, got 1)"):
        TooFew.apply(a, a).sum().backward()
    with raises(RuntimeError, "function TooManyBackward returned an incorrect number of "
                              "gradients (expected 1, got 2)"):
        TooMany.apply(a).sum().backward()
    ExtraNones.apply(a).sum().backward()  # trailing Nones are ignored
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    with raises(RuntimeError, "Function BadShapeBackward returned an invalid gradient at index "
                              "0 - got [2] but expected shape compatible with [3]"):
        BadShape.apply(a).sum().backward()


def test_custom_function_saved_tensors_freed_and_modified(torch):
    Square = _square(torch)
    a = leaf(torch)
    y = Square.apply(a).sum()
    y.backward()
    with raises(RuntimeError, FREED):
        y.backward()
    b = a * 1
    y = Square.apply(b).sum()
    b.add_(1)
    with raises(RuntimeError, modified_message("FloatTensor", [3], "Add")):
        y.backward()


def test_custom_function_with_setup_context(torch):
    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.constant = inputs[1]

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    a = leaf(torch)
    y = MulConstant.apply(a, 2.5)
    assert y.grad_fn.name() == "MulConstantBackward"
    y.sum().backward()
    assert a.grad.tolist() == [2.5, 2.5, 2.5]


def test_once_differentiable(torch):
    from importlib import import_module

    once = import_module(torch.__name__ + ".autograd.function").once_differentiable

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    a = leaf(torch)
    Cube.apply(a).sum().backward()
    assert a.grad.tolist() == [3.0, 12.0, 27.0]


# ---------------------------------------------------------------------------
# hooks


def test_hook_on_a_leaf_changes_what_is_accumulated(torch):
    a = leaf(torch)
    seen = []
    h = a.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (a * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]] and a.grad.tolist() == [20.0, 20.0, 20.0]
    h.remove()
    (a * 2).sum().backward()
    assert a.grad.tolist() == [22.0, 22.0, 22.0] and len(seen) == 1


def test_hook_on_a_non_leaf_changes_what_flows_on(torch):
    a = leaf(torch)
    b = a * 2
    seen = []
    b.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    b.sum().backward()
    assert seen == [[1.0, 1.0, 1.0]] and a.grad.tolist() == [20.0, 20.0, 20.0]


def test_hooks_run_in_registration_order(torch):
    a = leaf(torch)
    a.register_hook(lambda g: g + 1)
    a.register_hook(lambda g: g * 10)
    (a * 2).sum().backward()
    assert a.grad.tolist() == [30.0, 30.0, 30.0]


def test_hook_returning_none_keeps_the_gradient(torch):
    a = leaf(torch)
    seen = []
    a.register_hook(seen.append)
    (a * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and seen[0].tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("hook_first", [True, False])
def test_retain_grad_sees_the_hooked_gradient(torch, hook_first):
    a = leaf(torch)
    b = a * 2
    if hook_first:
        b.register_hook(lambda g: g * 10)
        b.retain_grad()
    else:
        b.retain_grad()
        b.register_hook(lambda g: g * 10)
    b.sum().backward()
    assert b.grad.tolist() == [10.0, 10.0, 10.0] and a.grad.tolist() == [20.0, 20.0, 20.0]


def test_hook_on_a_tensor_that_does_not_require_grad(torch):
    with raises(RuntimeError, "cannot register a hook on a tensor that doesn't require "
                              "gradient"):
        torch.ones(2).register_hook(lambda g: g)


# ---------------------------------------------------------------------------
# misc attributes


def test_numpy_is_refused_while_requiring_grad(torch):
    a = leaf(torch)
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad. Use "
                              "tensor.detach().numpy() instead."):
        a.numpy()
    assert a.detach().numpy().tolist() == [1.0, 2.0, 3.0]


def test_grad_fn_next_functions(torch):
    a = leaf(torch)
    c = torch.tensor([1.0, 1.0, 1.0])
    y = (a * c + 2).sum()
    add = y.grad_fn.next_functions[0][0]
    assert y.grad_fn.name() == "SumBackward0" and add.name() == "AddBackward0"
    assert [None if f is None else f.name() for f, _ in add.next_functions] == ["MulBackward0",
                                                                                None]
    mul = add.next_functions[0][0]
    names = [None if f is None else f.name() for f, _ in mul.next_functions]
    assert names == ["torch::autograd::AccumulateGrad", None]
    acc = mul.next_functions[0][0]
    assert acc.variable is a and acc.next_functions == ()
    assert a.grad_fn is None and y.grad_fn is y.grad_fn  # the same node object each time
