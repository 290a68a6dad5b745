"""Custom autograd Functions beyond the basics of test_torch_autograd.py: ctx as the
grad_fn, gradient checks, returned inputs, mark_dirty, materialized gradients,
save_for_backward, setup_context defaults, the vjp alias, once_differentiable.
Each test runs on tracegrad.torch and on real PyTorch (skipped when absent)."""
import re
import warnings

import pytest

import tracegrad.torch as tt


@pytest.fixture(params=["tracegrad", "torch"])
def torch(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return tt


def raises(exc_type, message, prefix=False):
    pattern = re.escape(message) + ("" if prefix else r"\Z")
    return pytest.raises(exc_type, match="^" + pattern)


def leaf(torch, values=(1.0, 2.0, 3.0), **kw):
    return torch.tensor(list(values), requires_grad=True, **kw)


def _fn(torch, name, forward, backward):
    return type(name, (torch.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def test_custom_function_ctx_is_the_grad_fn(torch):
    seen = []

    class Sq(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.k = 7
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx)
            x, = ctx.saved_tensors
            return 2 * x * g

    a = leaf(torch)
    y = Sq.apply(a)
    fn = y.grad_fn
    assert type(fn).__name__ == "SqBackward" and fn.k == 7 and fn.needs_input_grad == (True,)
    assert isinstance(fn, torch.autograd.function.FunctionCtx)
    assert isinstance(fn, torch.autograd.function.BackwardCFunction)
    assert fn.saved_tensors[0] is a
    y.sum().backward()
    assert seen == [fn]
    assert fn.next_functions[0][0].variable is a  # the graph stays after freeing
    with raises(RuntimeError, "Trying to backward through the graph a second time",
                prefix=True):
        fn.saved_tensors


def test_custom_function_gradient_type_and_position_errors(torch):
    a = leaf(torch)
    ListGrad = _fn(torch, "ListGrad", lambda ctx, x: x * 2, lambda ctx, g: [g])
    FloatGrad = _fn(torch, "FloatGrad", lambda ctx, x, y: x * y, lambda ctx, g: (3.0, None))
    NonTensor = _fn(torch, "NonTensor", lambda ctx, x, k: x * k, lambda ctx, g: (g, g))
    with raises(RuntimeError, "expected Variable or None (got list)"):
        ListGrad.apply(a).sum().backward()
    with raises(RuntimeError, "expected Variable or None (got float)"):
        FloatGrad.apply(a, a).sum().backward()
    with raises(RuntimeError, "function NonTensorBackward returned a gradient different than "
                              "None at position 2, but the corresponding forward input was not "
                              "a Variable"):
        NonTensor.apply(a, 2.0).sum().backward()
    Empty = _fn(torch, "Empty", lambda ctx, x: x * 2, lambda ctx, g: ())
    with raises(RuntimeError, "function EmptyBackward returned an incorrect number of "
                              "gradients (expected 1, got 0)"):
        Empty.apply(a).sum().backward()


def test_custom_function_gradient_shape_and_dtype(torch):
    a = leaf(torch)
    Wide = _fn(torch, "Wide", lambda ctx, x: x * 2, lambda ctx, g: torch.ones(2, 3))
    Wide.apply(a).sum().backward()  # summed down to the input's shape
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    a.grad = None
    Long = _fn(torch, "Long", lambda ctx, x: x * 2, lambda ctx, g: torch.ones(3, dtype=torch.long))
    Long.apply(a).sum().backward()  # cast to the input's dtype
    assert a.grad.dtype == torch.float32 and a.grad.tolist() == [1.0, 1.0, 1.0]
    Col = _fn(torch, "Col", lambda ctx, x: x * 2, lambda ctx, g: torch.ones(3, 1))
    with raises(RuntimeError, "Function ColBackward returned an invalid gradient at index 0 - "
                              "got [3, 1] but expected shape compatible with [3]"):
        Col.apply(a).sum().backward()
    # the index counts tensor inputs only; inputs that need no grad are not checked
    Skip = _fn(torch, "Skip", lambda ctx, k, c, x: x * k,
               lambda ctx, g: (None, torch.ones(5), torch.ones(2)))
    with raises(RuntimeError, "Function SkipBackward returned an invalid gradient at index 1 - "
                              "got [2] but expected shape compatible with [3]"):
        Skip.apply(2.0, torch.ones(2), a).sum().backward()


def test_custom_function_returned_input_is_a_view(torch):
    Id = _fn(torch, "Id", lambda ctx, x: x, lambda ctx, g: g * 3)
    b = leaf(torch) * 1
    y = Id.apply(b)
    assert y is not b and y._base is b and y.grad_fn.name() == "IdBackward"
    b.add_(1)
    assert y._version == 1 and y.tolist() == [2.0, 3.0, 4.0]
    x = torch.ones(2)
    out = Id.apply(x)
    assert out is not x and not out.requires_grad


def test_custom_function_mark_dirty(torch):
    class AddOne(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = leaf(torch)
    with raises(RuntimeError, "a leaf Variable that requires grad has been used in an in-place "
                              "operation."):
        AddOne.apply(a)
    assert a.tolist() == [2.0, 3.0, 4.0]  # forward ran (the check comes after it)
    b = a * 1
    c = b * b
    y = AddOne.apply(b)
    assert y is b and b._version == 2 and b.grad_fn.name() == "AddOneBackward"
    assert b.tolist() == [3.0, 4.0, 5.0]
    y.sum().backward(retain_graph=True)
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    with raises(RuntimeError, "one of the variables needed for gradient computation has been "
                              "modified by an inplace operation: [torch.FloatTensor [3]], which "
                              "is output 0 of AddOne, is at version 2; expected version 0 "
                              "instead.", prefix=True):
        c.sum().backward()

    class NotReturned(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with raises(RuntimeError, "Some elements marked as dirty during the forward method were not "
                              "returned as output. The inputs that are modified inplace must all "
                              "be outputs of the Function."):
        NotReturned.apply(a * 1)


def test_custom_function_materialize_and_non_tensor_outputs(torch):
    seen = []

    def fwd(ctx, x):
        return x * 2, x.argmax(), 5

    def bwd(ctx, g1, g2, g3):
        seen.append((g1.tolist(), g2.tolist(), g3))
        return g1

    Three = _fn(torch, "Three", fwd, bwd)
    a = leaf(torch)
    u, i, five = Three.apply(a)
    assert five == 5 and not i.requires_grad and u.requires_grad
    u.sum().backward()
    assert seen == [([1.0, 1.0, 1.0], 0, None)]

    class Lazy(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1

    Lazy.apply(a)[0].sum().backward()
    assert seen[-1] is None


def test_custom_function_save_for_backward_checks(torch):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None, 3.0)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with raises(TypeError, "save_for_backward can only save variables, but argument 2 is of "
                           "type float"):
        Bad.apply(leaf(torch))
    assert Bad.apply(torch.ones(2)).tolist() == [2.0, 2.0]  # nothing recorded: not checked

    class Later(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            t = x * 5
            ctx.save_for_backward(t, None)
            t.add_(1)  # before apply returns: not a modification after saving
            return x * 2

        @staticmethod
        def backward(ctx, g):
            t, none = ctx.saved_tensors
            assert none is None
            return g * t

    a = leaf(torch)
    Later.apply(a).sum().backward()
    assert a.grad.tolist() == [6.0, 11.0, 16.0]

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r

    y = Exp.apply(a)
    y.mul_(2)
    with raises(RuntimeError, "one of the variables needed for gradient computation has been "
                              "modified by an inplace operation: [torch.FloatTensor [3]], which "
                              "is output 0 of Exp, is at version 1; expected version 0 instead.",
                prefix=True):
        y.sum().backward()


def test_custom_function_setup_context_gets_default_arguments(torch):
    seen = []

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append((len(inputs), inputs[1], torch.is_grad_enabled(), ctx.needs_input_grad))
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    a = leaf(torch)
    Scale.apply(a).sum().backward()
    Scale.apply(a, k=3.0).sum().backward()
    assert seen == [(2, 2.0, False, (True, False)), (2, 3.0, False, (True, False))]
    assert a.grad.tolist() == [5.0, 5.0, 5.0]


def test_custom_function_vjp_alias(torch):
    a = leaf(torch)

    class V(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    assert torch.autograd.grad(V.apply(a).sum(), a)[0].tolist() == [5.0, 5.0, 5.0]

    class Both(V):
        @staticmethod
        def backward(ctx, g):
            return g

    with raises(RuntimeError, "Implementing both 'backward' and 'vjp' for a custom Function is "
                              "not allowed. You should only implement one of them."):
        Both.apply(a).sum().backward()

    class NoBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with raises(NotImplementedError, "You must implement either the backward or vjp method for "
                                     "your custom autograd.Function to use it with backward "
                                     "mode AD."):
        NoBackward.apply(a).sum().backward()
    assert torch.autograd.Function.vjp is torch.autograd.Function.backward


def test_once_differentiable_refuses_double_backward(torch):
    once = torch.autograd.function.once_differentiable

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once
        def backward(ctx, g):
            assert not torch.is_grad_enabled()
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = leaf(torch)
    g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0] and not g.requires_grad  # grad_output needs no grad
    g, = torch.autograd.grad((Cube.apply(x) * x).sum(), x, create_graph=True)
    assert g.tolist() == [4.0, 32.0, 108.0]
    err = g.grad_fn.next_functions[1][0]
    assert err.name() == "torch::autograd::Error" and repr(err).startswith("<Error object at 0x")
    # autograd.grad never runs the error node (it leads to no input), as in PyTorch
    assert torch.autograd.grad(g.sum(), x, retain_graph=True)[0].tolist() == [3.0, 12.0, 27.0]
    with raises(RuntimeError, "trying to differentiate twice a function that was marked with "
                              "@once_differentiable"):
        g.sum().backward()


def test_inplace_on_a_returned_input_is_refused(torch):
    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    y = Id.apply(leaf(torch))
    with raises(RuntimeError, "Output 0 of Id is a view and is being modified inplace. This "
                              "view was created inside a custom Function", prefix=True):
        y.add_(1)


def test_tensor_hooks_run_before_grad_fn_prehooks(torch):
    a = leaf(torch)
    y = a.exp()
    order = []
    y.register_hook(lambda g: order.append("hook") or g * 2)
    y.grad_fn.register_prehook(lambda go: order.append(("pre", go[0].tolist())))
    y.sum().backward()
    assert order == ["hook", ("pre", [2.0, 2.0, 2.0])]


def test_numpy_under_no_grad(torch):
    a = leaf(torch)
    with torch.no_grad():
        assert a.numpy().tolist() == [1.0, 2.0, 3.0]

