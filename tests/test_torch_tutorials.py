"""The PyTorch autograd tutorials, run on tracegrad.torch with only the import line changed.

Each snippet below is the code of a PyTorch tutorial or documentation
example (the "Autograd: Automatic Differentiation" 60-minute blitz, "A
Gentle Introduction to torch.autograd", "Automatic Differentiation with
torch.autograd", "The Fundamentals of Autograd", "Learning PyTorch with
Examples", the "Autograd mechanics" / "Extending PyTorch" notes and the
``torch.no_grad`` family's docstrings, and a widely used course's
``(x + w) * (w + 1)`` lessons) whose first line is
``import tracegrad.torch as torch`` (and whose ``from torch.autograd import
...`` reads ``from tracegrad.torch.autograd import ...``).  Nothing else is
changed; sections that
plot or load models are left out (each snippet is a contiguous run of the
tutorial's statements).

The snippets run as the tutorials' notebooks run them: statement by
statement, a bare expression printing its ``repr`` (Python's interactive
mode).  Three kinds of checks:

* ``test_<snippet>``: the values the tutorial states (``x.grad`` is 4.5
  everywhere, ``w.grad`` is 5, ...), and for the snippets without random
  numbers, the exact text PyTorch 2.13 prints (hard-coded, so these run
  without PyTorch);
* ``test_prints_what_pytorch_prints``: the same source with ``import torch``
  run by real PyTorch (random tensors replayed: every ``randn``/``rand`` of
  the PyTorch run returns the values tracegrad's run drew), then the printed
  text (object addresses masked), the raised exception, and every tensor left
  in the namespace (values, dtype, ``requires_grad``, ``is_leaf``,
  ``grad_fn`` name, ``.grad``) compared;
* ``test_warnings_match_pytorch``: the warnings both emit (category and
  message, less PyTorch's "Triggered internally at <C++ file>" suffix).
"""
import ast
import contextlib
import importlib
import importlib.util
import io
import pathlib
import re
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

import tracegrad.torch as tt


def _load_torch_programs():
    name = "_tracegrad_tests_torch_programs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, pathlib.Path(__file__).with_name("torch_programs.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


tp = _load_torch_programs()

IMPORT = "import tracegrad.torch as torch"

# ---------------------------------------------------------------------------
# the snippets


@dataclass
class Snippet:
    name: str
    source: str
    #: printed text of PyTorch 2.13 (None: random values are printed)
    expected: str = None
    #: the exception PyTorch raises at the end, as (type, message)
    raises: tuple = None
    #: compare printed numbers with this relative tolerance instead of exactly
    approx: float = None
    #: tolerance scale for namespace tensors
    scale: float = 1.0
    #: tracegrad.torch submodules the snippet needs (skipped until they exist)
    needs: tuple = ()
    #: namespace names not to compare (reassigned, or differ by design)
    skip_names: tuple = field(default_factory=tuple)
    #: run as a doctest / notebook cell: each top-level bare expression prints
    #: its repr (False: as a script)
    interactive: bool = False


SNIPPETS = {}


def snippet(name, source, **kw):
    assert source.startswith(IMPORT + "\n"), name
    for line in source.splitlines():
        if line.startswith(("import ", "from ")) and "torch" in line:
            assert line == IMPORT or line.startswith("from tracegrad.torch."), line
    SNIPPETS[name] = Snippet(name, source, **kw)
    return SNIPPETS[name]


# -- "Autograd: Automatic Differentiation" (the 60-minute blitz, PyTorch 1.x)

snippet("blitz_tensor_and_gradients", '''import tracegrad.torch as torch

x = torch.ones(2, 2, requires_grad=True)
print(x)

y = x + 2
print(y)

print(y.grad_fn)

z = y * y * 3
out = z.mean()

print(z, out)

a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

out.backward()

print(x.grad)
''', expected="""\
tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
tensor([[3., 3.],
        [3., 3.]], grad_fn=<AddBackward0>)
<AddBackward0 object at 0x?>
tensor([[27., 27.],
        [27., 27.]], grad_fn=<MulBackward0>) tensor(27., grad_fn=<MeanBackward0>)
False
True
<SumBackward0 object at 0x?>
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])
""")

snippet("blitz_vector_jacobian_product", '''import tracegrad.torch as torch

x = torch.randn(3, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)

print(x.grad)

print(x.requires_grad)
print((x ** 2).requires_grad)

with torch.no_grad():
    print((x ** 2).requires_grad)

print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())
''')

# -- "A Gentle Introduction to torch.autograd"

snippet("gentle_differentiation", '''import tracegrad.torch as torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)

Q = 3*a**3 - b**2

external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)

print(9*a**2 == a.grad)
print(-2*b == b.grad)
''', expected="tensor([True, True])\ntensor([True, True])\n")

snippet("gentle_exclusion_from_dag", '''import tracegrad.torch as torch

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
''', expected="Does `a` require gradients?: False\nDoes `b` require gradients?: True\n")

# -- "Automatic Differentiation with torch.autograd" (Learn the Basics)

snippet("basics_network", '''import tracegrad.torch as torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")

loss.backward()
print(w.grad)
print(b.grad)
''', needs=("nn", "nn.functional"))

snippet("basics_disabling_tracking", '''import tracegrad.torch as torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)

z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
''', expected="True\nFalse\nFalse\n")

snippet("basics_jacobian_products", '''import tracegrad.torch as torch

inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
''', expected="""\
First call
tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.]])

Second call
tensor([[8., 4., 4., 4., 4.],
        [4., 8., 4., 4., 4.],
        [4., 4., 8., 4., 4.],
        [4., 4., 4., 8., 4.]])

Call after zeroing gradients
tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.]])
""")

# -- "The Fundamentals of Autograd" (Introduction to PyTorch on YouTube)

snippet("fundamentals_graph_walk", '''import tracegrad.torch as torch
import math

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)

b = torch.sin(a)

print(b)

c = 2 * b
print(c)

d = c + 1
print(d)

out = d.sum()
print(out)

print('d:')
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print('\\nc:')
print(c.grad_fn)
print('\\nb:')
print(b.grad_fn)
print('\\na:')
print(a.grad_fn)

out.backward()
print(a.grad)
''', approx=1e-6,  # float32 sin near pi differs from PyTorch's SLEEF kernel by an ulp
expected="""\
tensor([0.0000, 0.2618, 0.5236, 0.7854, 1.0472, 1.3090, 1.5708, 1.8326, 2.0944,
        2.3562, 2.6180, 2.8798, 3.1416, 3.4034, 3.6652, 3.9270, 4.1888, 4.4506,
        4.7124, 4.9742, 5.2360, 5.4978, 5.7596, 6.0214, 6.2832],
       requires_grad=True)
tensor([ 0.0000e+00,  2.5882e-01,  5.0000e-01,  7.0711e-01,  8.6603e-01,
         9.6593e-01,  1.0000e+00,  9.6593e-01,  8.6603e-01,  7.0711e-01,
         5.0000e-01,  2.5882e-01, -8.7423e-08, -2.5882e-01, -5.0000e-01,
        -7.0711e-01, -8.6603e-01, -9.6593e-01, -1.0000e+00, -9.6593e-01,
        -8.6603e-01, -7.0711e-01, -5.0000e-01, -2.5882e-01,  1.7485e-07],
       grad_fn=<SinBackward0>)
tensor([ 0.0000e+00,  5.1764e-01,  1.0000e+00,  1.4142e+00,  1.7321e+00,
         1.9319e+00,  2.0000e+00,  1.9319e+00,  1.7321e+00,  1.4142e+00,
         1.0000e+00,  5.1764e-01, -1.7485e-07, -5.1764e-01, -1.0000e+00,
        -1.4142e+00, -1.7321e+00, -1.9319e+00, -2.0000e+00, -1.9319e+00,
        -1.7321e+00, -1.4142e+00, -1.0000e+00, -5.1764e-01,  3.4969e-07],
       grad_fn=<MulBackward0>)
tensor([ 1.0000e+00,  1.5176e+00,  2.0000e+00,  2.4142e+00,  2.7321e+00,
         2.9319e+00,  3.0000e+00,  2.9319e+00,  2.7321e+00,  2.4142e+00,
         2.0000e+00,  1.5176e+00,  1.0000e+00,  4.8236e-01, -3.5763e-07,
        -4.1421e-01, -7.3205e-01, -9.3185e-01, -1.0000e+00, -9.3185e-01,
        -7.3205e-01, -4.1421e-01,  4.7684e-07,  4.8236e-01,  1.0000e+00],
       grad_fn=<AddBackward0>)
tensor(25., grad_fn=<SumBackward0>)
d:
<AddBackward0 object at 0x?>
((<MulBackward0 object at 0x?>, 0), (None, 0))
((<SinBackward0 object at 0x?>, 0), (None, 0))
((<AccumulateGrad object at 0x?>, 0),)
()

c:
<MulBackward0 object at 0x?>

b:
<SinBackward0 object at 0x?>

a:
None
tensor([ 2.0000e+00,  1.9319e+00,  1.7321e+00,  1.4142e+00,  1.0000e+00,
         5.1764e-01, -8.7423e-08, -5.1764e-01, -1.0000e+00, -1.4142e+00,
        -1.7321e+00, -1.9319e+00, -2.0000e+00, -1.9319e+00, -1.7321e+00,
        -1.4142e+00, -1.0000e+00, -5.1764e-01,  2.3850e-08,  5.1764e-01,
         1.0000e+00,  1.4142e+00,  1.7321e+00,  1.9319e+00,  2.0000e+00])
""")

snippet("fundamentals_turning_autograd_off", '''import tracegrad.torch as torch

a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = a + b
print(c1)

with torch.no_grad():
    c2 = a + b

print(c2)

c3 = a * b
print(c3)
''', expected="""\
tensor([[5., 5., 5.],
        [5., 5., 5.]], grad_fn=<AddBackward0>)
tensor([[5., 5., 5.],
        [5., 5., 5.]])
tensor([[6., 6., 6.],
        [6., 6., 6.]], grad_fn=<MulBackward0>)
""")

snippet("fundamentals_no_grad_decorator", '''import tracegrad.torch as torch

def add_tensors1(x, y):
    return x + y

@torch.no_grad()
def add_tensors2(x, y):
    return x + y


a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = add_tensors1(a, b)
print(c1)

c2 = add_tensors2(a, b)
print(c2)
''', expected="""\
tensor([[5., 5., 5.],
        [5., 5., 5.]], grad_fn=<AddBackward0>)
tensor([[5., 5., 5.],
        [5., 5., 5.]])
""")

snippet("fundamentals_detach", '''import tracegrad.torch as torch

x = torch.rand(5, requires_grad=True)
y = x.detach()

print(x)
print(y)
''')

snippet("fundamentals_inplace_on_leaf", '''import tracegrad.torch as torch
import math

a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
torch.sin_(a)
''', expected="", raises=(RuntimeError,
                          "a leaf Variable that requires grad is being used in an in-place "
                          "operation."))

snippet("fundamentals_functional_api", '''import tracegrad.torch as torch

def exp_adder(x, y):
    return 2 * x.exp() + 3 * y

inputs = (torch.rand(1), torch.rand(1)) # arguments for the function
print(inputs)
torch.autograd.functional.jacobian(exp_adder, inputs)

inputs = (torch.rand(3), torch.rand(3)) # bigger inputs
print(inputs)
torch.autograd.functional.jacobian(exp_adder, inputs)

def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y

inputs = torch.randn(3)
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients)
''', interactive=True, needs=("autograd.functional",))

# -- "Learning PyTorch with Examples": the third-order polynomial fit of sin(x)

snippet("examples_tensors_manual_gradients", '''import tracegrad.torch as torch
import math


dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0") # Uncomment this to run on GPU

# Create random input and output data
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Randomly initialize weights
a = torch.randn((), device=device, dtype=dtype)
b = torch.randn((), device=device, dtype=dtype)
c = torch.randn((), device=device, dtype=dtype)
d = torch.randn((), device=device, dtype=dtype)

learning_rate = 1e-6
for t in range(2000):
    # Forward pass: compute predicted y
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, loss)

    # Backprop to compute gradients of a, b, c, d with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()

    # Update weights using gradient descent
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d


print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
''', approx=2e-3, scale=100.0)

snippet("examples_tensors_and_autograd", '''import tracegrad.torch as torch
import math

dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0")  # Uncomment this to run on GPU

# Create Tensors to hold input and outputs.
# By default, requires_grad=False, which indicates that we do not need to
# compute gradients with respect to these Tensors during the backward pass.
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Create random Tensors for weights. For a third order polynomial, we need
# 4 weights: y = a + b x + c x^2 + d x^3
# Setting requires_grad=True indicates that we want to compute gradients with
# respect to these Tensors during the backward pass.
a = torch.randn((), device=device, dtype=dtype, requires_grad=True)
b = torch.randn((), device=device, dtype=dtype, requires_grad=True)
c = torch.randn((), device=device, dtype=dtype, requires_grad=True)
d = torch.randn((), device=device, dtype=dtype, requires_grad=True)

learning_rate = 1e-6
for t in range(2000):
    # Forward pass: compute predicted y using operations on Tensors.
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # Compute and print loss using operations on Tensors.
    # Now loss is a Tensor of shape (1,)
    # loss.item() gets the scalar value held in the loss.
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())

    # Use autograd to compute the backward pass. This call will compute the
    # gradient of loss with respect to all Tensors with requires_grad=True.
    # After this call a.grad, b.grad. c.grad and d.grad will be Tensors holding
    # the gradient of the loss with respect to a, b, c, d respectively.
    loss.backward()

    # Manually update weights using gradient descent. Wrap in torch.no_grad()
    # because weights have requires_grad=True, but we don't need to track this
    # in autograd.
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
''', approx=2e-3, scale=100.0)

snippet("examples_new_autograd_function", '''import tracegrad.torch as torch
import math


class LegendrePolynomial3(torch.autograd.Function):
    """
    We can implement our own custom autograd Functions by subclassing
    torch.autograd.Function and implementing the forward and backward passes
    which operate on Tensors.
    """

    @staticmethod
    def forward(ctx, input):
        """
        In the forward pass we receive a Tensor containing the input and return
        a Tensor containing the output. ctx is a context object that can be used
        to stash information for backward computation. You can cache tensors for
        use in the backward pass using the ``ctx.save_for_backward`` method. Other
        objects can be stored directly as attributes on the ctx object, such as
        ``ctx.my_object = my_object``. Check out `Extending torch.autograd <https://docs.pytorch.org/docs/stable/notes/extending.html#extending-torch-autograd>`_
        for further details.
        """
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        """
        In the backward pass we receive a Tensor containing the gradient of the loss
        with respect to the output, and we need to compute the gradient of the loss
        with respect to the input.
        """
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0")  # Uncomment this to run on GPU

# Create Tensors to hold input and outputs.
# By default, requires_grad=False, which indicates that we do not need to
# compute gradients with respect to these Tensors during the backward pass.
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Create random Tensors for weights. For this example, we need
# 4 weights: y = a + b * P3(c + d * x), these weights need to be initialized
# not too far from the correct result to ensure convergence.
# Setting requires_grad=True indicates that we want to compute gradients with
# respect to these Tensors during the backward pass.
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    # To apply our Function, we use Function.apply method. We alias this as 'P3'.
    P3 = LegendrePolynomial3.apply

    # Forward pass: compute predicted y using operations; we compute
    # P3 using our custom autograd operation.
    y_pred = a + b * P3(c + d * x)

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())

    # Use autograd to compute the backward pass.
    loss.backward()

    # Update weights using gradient descent
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
''', approx=2e-3, scale=100.0)

# -- the (x + w) * (w + 1) lessons: computational graph, retain_graph,
#    grad_tensors, autograd.grad, zeroing, requires_grad, in-place on a leaf

snippet("graph_leaves_and_retain_grad", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
a.retain_grad()
b = torch.add(w, 1)
y = torch.mul(a, b)

y.backward()
print(w.grad)

print("is_leaf:\\n", w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)

print("gradient:\\n", w.grad, x.grad, a.grad, b.grad, y.grad)

print("grad_fn:\\n", w.grad_fn, x.grad_fn, a.grad_fn, b.grad_fn, y.grad_fn)
''', expected="""\
tensor([5.])
is_leaf:
 True True False False False
gradient:
 tensor([5.]) tensor([2.]) tensor([2.]) None None
grad_fn:
 None None <AddBackward0 object at 0x?> <AddBackward0 object at 0x?> <MulBackward0 object at 0x?>
""")

snippet("retain_graph_backward_twice", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)

y.backward(retain_graph=True)
print(w.grad)
y.backward()
''', expected="tensor([5.])\n")

snippet("backward_without_retain_graph", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)

y.backward()
print(w.grad)
y.backward()
''', expected="tensor([5.])\n", raises=(
    RuntimeError,
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."))

snippet("cat_with_grad_tensors", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
b = torch.add(w, 1)

y0 = torch.mul(a, b)    # y0 = (x+w) * (w+1)
y1 = torch.add(a, b)    # y1 = (x+w) + (w+1)    dy1/dw = 2

loss = torch.cat([y0, y1], dim=0)       # [y0, y1]
grad_tensors = torch.tensor([1., 2.])

loss.backward(gradient=grad_tensors)

print(w.grad)
''', expected="tensor([9.])\n")

snippet("autograd_grad_second_derivative", '''import tracegrad.torch as torch

x = torch.tensor([3.], requires_grad=True)
y = torch.pow(x, 2)     # y = x**2

grad_1 = torch.autograd.grad(y, x, create_graph=True)   # grad_1 = dy/dx = 2x = 2 * 3 = 6
print(grad_1)

grad_2 = torch.autograd.grad(grad_1[0], x)              # grad_2 = d(dy/dx)/dx = d(2x)/dx = 2
print(grad_2)
''', expected="(tensor([6.], grad_fn=<MulBackward0>),)\n(tensor([2.]),)\n")

snippet("autograd_grad_of_cube", '''import tracegrad.torch as torch

x = torch.tensor(3., requires_grad=True)
y = x ** 3
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)
d2y_dx2, = torch.autograd.grad(dy_dx, x)
print(d2y_dx2)
''', expected="tensor(27., grad_fn=<MulBackward0>)\ntensor(18.)\n")

snippet("gradients_accumulate_until_zeroed", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

for i in range(4):
    a = torch.add(w, x)
    b = torch.add(w, 1)
    y = torch.mul(a, b)

    y.backward()
    print(w.grad)

    w.grad.zero_()
''', expected="tensor([5.])\n" * 4)

snippet("gradients_accumulate_without_zeroing", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

for i in range(4):
    a = torch.add(w, x)
    b = torch.add(w, 1)
    y = torch.mul(a, b)

    y.backward()
    print(w.grad)
''', expected="tensor([5.])\ntensor([10.])\ntensor([15.])\ntensor([20.])\n")

snippet("requires_grad_propagates", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)

print(a.requires_grad, b.requires_grad, y.requires_grad)
''', expected="True True True\n")

snippet("inplace_add_on_leaf", '''import tracegrad.torch as torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)

a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)

w.add_(1)

y.backward()
''', expected="", raises=(RuntimeError, "a leaf Variable that requires grad is being used in an "
                                       "in-place operation."))

# -- the docstrings of the grad-mode context managers and of Tensor.register_hook

snippet("doc_no_grad", '''import tracegrad.torch as torch

x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    y = x * 2
y.requires_grad
@torch.no_grad()
def doubler(x):
    return x * 2
z = doubler(x)
z.requires_grad
@torch.no_grad()
def tripler(x):
    return x * 3
z = tripler(x)
z.requires_grad
''', interactive=True, expected="False\nFalse\nFalse\n")

snippet("doc_enable_grad", '''import tracegrad.torch as torch

x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
y.requires_grad
y.backward()
x.grad
@torch.enable_grad()
def doubler(x):
    return x * 2
with torch.no_grad():
    z = doubler(x)
z.requires_grad
@torch.enable_grad()
def tripler(x):
    return x * 3
with torch.no_grad():
    z = tripler(x)
z.requires_grad
''', interactive=True, expected="True\ntensor([2.])\nTrue\nTrue\n")

snippet("doc_set_grad_enabled", '''import tracegrad.torch as torch

x = torch.tensor([1.], requires_grad=True)
is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
y.requires_grad
_ = torch.set_grad_enabled(True)
y = x * 2
y.requires_grad
_ = torch.set_grad_enabled(False)
y = x * 2
y.requires_grad
''', interactive=True, expected="False\nTrue\nFalse\n")

snippet("doc_inference_mode", '''import tracegrad.torch as torch

x = torch.ones(1, 2, 3, requires_grad=True)
with torch.inference_mode():
    y = x * x
y.requires_grad
@torch.inference_mode()
def func(x):
    return x * x
out = func(x)
out.requires_grad
@torch.inference_mode
def doubler(x):
    return x * 2
out = doubler(x)
out.requires_grad
''', interactive=True, expected="False\nFalse\nFalse\n")

snippet("doc_register_hook", '''import tracegrad.torch as torch

v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
v.grad

h.remove()  # removes the hook
''', interactive=True, expected="tensor([2., 4., 6.])\n")

# -- "Autograd mechanics": multithreaded backward

snippet("mechanics_threads", '''import tracegrad.torch as torch
import threading

# Define a train function to be used in different threads
def train_fn():
    x = torch.ones(5, 5, requires_grad=True)
    # forward
    y = (x + 3) * (x + 4) * 0.5
    # backward
    y.sum().backward()
    # potential optimizer update


# User write their own threading code to drive the train_fn
threads = []
for _ in range(10):
    p = threading.Thread(target=train_fn, args=())
    p.start()
    threads.append(p)

for p in threads:
    p.join()
''', expected="")

# -- "Extending PyTorch": custom Functions (the docs' Exp, LinearFunction,
#    MulConstant and MyCube), followed by calls of them

snippet("extending_exp", '''import tracegrad.torch as torch
from tracegrad.torch.autograd import Function

class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

input = torch.tensor([0., 1., 2.], requires_grad=True)
output = Exp.apply(input)
output
output.sum().backward()
input.grad
''', interactive=True, expected="tensor([1.0000, 2.7183, 7.3891], grad_fn=<ExpBackward>)\n"
              "tensor([1.0000, 2.7183, 7.3891])\n")

snippet("extending_linear_function", '''import tracegrad.torch as torch
from tracegrad.torch.autograd import Function

# Inherit from Function
class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    # inputs is a Tuple of all of the inputs passed to forward.
    # output is the output of the forward().
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias

input = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=torch.double, requires_grad=True)
weight = torch.tensor([[0.5, -1.], [2., 0.25]], dtype=torch.double, requires_grad=True)
bias = torch.tensor([0.1, -0.2], dtype=torch.double, requires_grad=True)
out = LinearFunction.apply(input, weight, bias)
out
out.backward(torch.ones_like(out))
input.grad
weight.grad
bias.grad
''', interactive=True, expected="""\
tensor([[-1.4000,  2.3000],
        [-2.4000,  6.8000],
        [-3.4000, 11.3000]], dtype=torch.float64,
       grad_fn=<LinearFunctionBackward>)
tensor([[ 2.5000, -0.7500],
        [ 2.5000, -0.7500],
        [ 2.5000, -0.7500]], dtype=torch.float64)
tensor([[ 9., 12.],
        [ 9., 12.]], dtype=torch.float64)
tensor([3., 3.], dtype=torch.float64)
""")

snippet("extending_mul_constant", '''import tracegrad.torch as torch
from tracegrad.torch.autograd import Function

class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        # ctx is a context object that can be used to stash information
        # for backward computation
        tensor, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None

x = torch.tensor([1., 2., 3.], requires_grad=True)
y = MulConstant.apply(x, 2.5)
y
y.sum().backward()
x.grad
''', interactive=True, expected="tensor([2.5000, 5.0000, 7.5000], grad_fn=<MulConstantBackward>)\n"
              "tensor([2.5000, 2.5000, 2.5000])\n")

snippet("extending_double_backward_cube", '''import tracegrad.torch as torch

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result

# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result

x = torch.tensor([1., 2., 3.], dtype=torch.double, requires_grad=True)
y = my_cube(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g
gg, = torch.autograd.grad(g.sum(), x)
gg
''', interactive=True, expected="""\
tensor([ 3., 12., 27.], dtype=torch.float64, grad_fn=<AddBackward0>)
tensor([ 6., 12., 18.], dtype=torch.float64)
""")

snippet("double_backward_square", '''import tracegrad.torch as torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x

x = torch.tensor([[0.5, 1.], [2., -3.]], requires_grad=True, dtype=torch.double)
y = Square.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
g
gg, = torch.autograd.grad(g.sum(), x)
gg
''', interactive=True, expected="""\
tensor([[ 1.,  2.],
        [ 4., -6.]], dtype=torch.float64, grad_fn=<MulBackward0>)
tensor([[2., 2.],
        [2., 2.]], dtype=torch.float64)
""")


# ---------------------------------------------------------------------------
# running a snippet


@dataclass
class Run:
    stdout: str
    namespace: dict
    error: BaseException = None
    warnings: list = field(default_factory=list)


_RANDOM = ("rand", "randn", "randint", "rand_like", "randn_like", "randperm")


@contextlib.contextmanager
def _patched(module, replacements):
    saved = {name: getattr(module, name) for name in replacements}
    for name, fn in replacements.items():
        setattr(module, name, fn)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(module, name, fn)


def _recording(module, record):
    """Wrappers of ``module``'s random factories that append their results to ``record``."""
    def wrap(fn):
        def recorded(*args, **kwargs):
            out = fn(*args, **kwargs)
            record.append(np.array(out.detach().numpy()))
            return out
        return recorded
    return {name: wrap(getattr(module, name)) for name in _RANDOM}


def _replaying(module, record):
    """Wrappers of real torch's random factories that return the recorded values instead."""
    def wrap(fn):
        def replayed(*args, **kwargs):
            out = fn(*args, **kwargs)  # PyTorch's own result gives shape and dtype
            assert record, "PyTorch drew more random tensors than tracegrad"
            values = record.pop(0)
            assert tuple(out.shape) == values.shape and str(out.dtype) == f"torch.{values.dtype}", (
                f"random tensor: tracegrad drew {values.shape} {values.dtype}, PyTorch "
                f"{tuple(out.shape)} {out.dtype}")
            with module.no_grad():
                out.copy_(module.from_numpy(values))
            return out
        return replayed
    return {name: wrap(getattr(module, name)) for name in _RANDOM}


def run(snip, library="tracegrad", record=None):
    """Run a snippet as a script, or (``interactive``) statement by statement,
    printing the value of each top-level bare expression as a doctest shows it.

    ``library="torch"`` runs it with ``import torch`` (real PyTorch) instead
    of the first line.  ``record`` is the list of random tensors: filled by
    the tracegrad run, consumed by the PyTorch run.
    """
    source = snip.source
    if library == "torch":
        module = importlib.import_module("torch")
        source = source.replace(IMPORT, "import torch", 1).replace(
            "\nfrom tracegrad.torch.", "\nfrom torch.")
        patches = _replaying(module, record) if record is not None else {}
    else:
        module = tt
        patches = _recording(module, record) if record is not None else {}
    tree = ast.parse(source)
    ns = {"__name__": f"tutorial_{snip.name}"}
    out = io.StringIO()
    error = None
    with contextlib.ExitStack() as stack:
        stack.enter_context(_patched(module, patches))
        stack.enter_context(contextlib.redirect_stdout(out))
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        filename = f"<{snip.name}>"
        try:
            if not snip.interactive:
                exec(compile(tree, filename, "exec"), ns)
            for stmt in tree.body if snip.interactive else ():
                if isinstance(stmt, ast.Expr):
                    value = eval(compile(ast.Expression(stmt.value), filename, "eval"), ns)
                    if value is not None:
                        print(repr(value))
                else:
                    exec(compile(ast.Module([stmt], []), filename, "exec"), ns)
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            error = e
        finally:
            module.set_grad_enabled(True)
            module.set_default_dtype(module.float32)
    return Run(out.getvalue(), ns, error, list(caught))


def masked(text):
    """Object addresses (``at 0x7f...``) replaced by ``0x?``."""
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def assert_same_text(ours, theirs, approx=None):
    """Equal text; with ``approx``, numbers within that relative tolerance (and
    whitespace runs equal), since long float32 loops differ in the last bits."""
    if approx is None:
        assert masked(ours) == masked(theirs)
        return
    a, b = " ".join(masked(ours).split()), " ".join(masked(theirs).split())
    assert _NUMBER.sub("#", a) == _NUMBER.sub("#", b), f"{ours}\n!=\n{theirs}"
    for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
        assert float(x) == pytest.approx(float(y), rel=approx, abs=approx), f"{x} != {y}"


def _skip_if_missing(snip):
    for sub in snip.needs:
        try:
            importlib.import_module(f"tracegrad.torch.{sub}")
        except ImportError:
            pytest.skip(f"tracegrad.torch.{sub} does not exist yet")


def run_checked(name):
    """Run snippet ``name`` on tracegrad; check its printed text and exception."""
    snip = SNIPPETS[name]
    _skip_if_missing(snip)
    r = run(snip)
    if snip.raises is None:
        assert r.error is None, f"{name} raised {type(r.error).__name__}: {r.error}"
    else:
        etype, message = snip.raises
        assert isinstance(r.error, etype) and str(r.error) == message, (
            f"{name}: expected {etype.__name__}({message!r}), got {r.error!r}")
    if snip.expected is not None:
        assert_same_text(r.stdout, snip.expected, snip.approx)
    return r


# ---------------------------------------------------------------------------
# the stated values of each tutorial


def _values(t):
    return t.detach().numpy()


def test_blitz_tensor_and_gradients():
    r = run_checked("blitz_tensor_and_gradients")
    ns = r.namespace
    np.testing.assert_array_equal(_values(ns["x"].grad), np.full((2, 2), 4.5, np.float32))
    assert ns["out"].item() == 27.0 and ns["out"].grad_fn.name() == "MeanBackward0"
    assert ns["y"].grad_fn.name() == "AddBackward0" and not ns["y"].is_leaf
    assert ns["x"].is_leaf and ns["x"].grad_fn is None
    assert ns["a"].requires_grad and ns["a"].is_leaf  # requires_grad_ on a computed tensor


def test_blitz_vector_jacobian_product():
    r = run_checked("blitz_vector_jacobian_product")
    ns = r.namespace
    x, v = ns["x"], ns["v"]
    # y = 2**k * x, so x.grad = J^T v = 2**k * v
    ratio = _values(ns["y"]) / _values(x)  # y is x.detach() at the end: ratio 1
    np.testing.assert_allclose(ratio, 1.0)
    k = np.log2(_values(x.grad)[1] / _values(v)[1])
    assert k == int(k) and 2 ** k * np.linalg.norm(_values(x)) >= 1000
    np.testing.assert_allclose(_values(x.grad), 2 ** k * _values(v), rtol=1e-6)
    lines = r.stdout.splitlines()
    assert lines[-6:] == ["True", "True", "False", "True", "False", "tensor(True)"]
    assert "grad_fn=<MulBackward0>" in r.stdout


def test_gentle_differentiation():
    ns = run_checked("gentle_differentiation").namespace
    np.testing.assert_array_equal(_values(ns["a"].grad), [36.0, 81.0])
    np.testing.assert_array_equal(_values(ns["b"].grad), [-12.0, -8.0])
    assert ns["Q"].grad_fn.name() == "SubBackward0"


def test_gentle_exclusion_from_dag():
    ns = run_checked("gentle_exclusion_from_dag").namespace
    assert ns["b"].grad_fn.name() == "AddBackward0" and ns["a"].grad_fn is None


def test_basics_network():
    ns = run_checked("basics_network").namespace
    assert ns["w"].grad.shape == (5, 3) and ns["b"].grad.shape == (3,)


def test_basics_disabling_tracking():
    ns = run_checked("basics_disabling_tracking").namespace
    assert ns["z"].grad_fn.name() == "AddBackward0"
    assert ns["z_det"].grad_fn is None and not ns["z_det"].requires_grad


def test_basics_jacobian_products():
    ns = run_checked("basics_jacobian_products").namespace
    inp = ns["inp"]
    np.testing.assert_array_equal(_values(inp.grad), 2 * (np.eye(4, 5) + 1))
    assert ns["out"].grad_fn.name() == "TBackward0"


def test_fundamentals_graph_walk():
    ns = run_checked("fundamentals_graph_walk").namespace
    a = ns["a"]
    np.testing.assert_allclose(_values(a.grad), 2 * np.cos(_values(a)), atol=1e-6)
    acc = ns["d"].grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert acc.variable is a


def test_fundamentals_turning_autograd_off():
    ns = run_checked("fundamentals_turning_autograd_off").namespace
    assert ns["c2"].grad_fn is None and not ns["c2"].requires_grad


def test_fundamentals_no_grad_decorator():
    ns = run_checked("fundamentals_no_grad_decorator").namespace
    assert ns["c1"].requires_grad and not ns["c2"].requires_grad
    assert ns["add_tensors2"].__name__ == "add_tensors2"


def test_fundamentals_detach():
    ns = run_checked("fundamentals_detach").namespace
    x, y = ns["x"], ns["y"]
    assert not y.requires_grad and x.requires_grad
    assert np.shares_memory(y.numpy(), x.detach().numpy())
    lines = run(SNIPPETS["fundamentals_detach"]).stdout.splitlines()
    assert lines[0].endswith("requires_grad=True)") and lines[1].endswith("])")


def test_fundamentals_inplace_on_leaf():
    run_checked("fundamentals_inplace_on_leaf")


def test_fundamentals_functional_api():
    run_checked("fundamentals_functional_api")


@pytest.mark.parametrize("name", ["examples_tensors_manual_gradients",
                                  "examples_tensors_and_autograd"])
def test_examples_polynomial_fit(name):
    r = run_checked(name)
    ns = r.namespace
    lines = r.stdout.splitlines()
    assert [int(line.split()[0]) for line in lines[:-1]] == list(range(99, 2000, 100))
    losses = [float(line.split()[1]) for line in lines[:-1]]
    assert losses[-1] < losses[0] and losses[-1] < 50  # the tutorial reaches about 9
    assert lines[-1].startswith("Result: y = ")
    # the fit converges towards the Taylor-like cubic of sin: b ~ 0.85, d ~ -0.09
    assert 0.6 < ns["b"].item() < 1.0 and -0.15 < ns["d"].item() < -0.03
    if name == "examples_tensors_and_autograd":
        assert all(ns[k].grad is None and ns[k].is_leaf and ns[k].requires_grad for k in "abcd")
        assert ns["loss"].grad_fn.name() == "SumBackward0"


def test_examples_new_autograd_function():
    r = run_checked("examples_new_autograd_function")
    ns = r.namespace
    losses = [float(line.split()[1]) for line in r.stdout.splitlines()[:-1]]
    assert losses[-1] < losses[0] and losses[-1] < 50  # the tutorial reaches about 9
    assert ns["y_pred"].grad_fn.name() == "AddBackward0"
    p3_node = ns["y_pred"].grad_fn.next_functions[1][0].next_functions[1][0]
    assert p3_node.name() == "LegendrePolynomial3Backward"


def test_graph_leaves_and_retain_grad():
    ns = run_checked("graph_leaves_and_retain_grad").namespace
    assert ns["a"].retains_grad and not ns["b"].retains_grad


def test_retain_graph_backward_twice():
    ns = run_checked("retain_graph_backward_twice").namespace
    np.testing.assert_array_equal(_values(ns["w"].grad), [10.0])  # 5 + 5


def test_backward_without_retain_graph():
    ns = run_checked("backward_without_retain_graph").namespace
    np.testing.assert_array_equal(_values(ns["w"].grad), [5.0])  # the failed call added nothing


def test_cat_with_grad_tensors():
    ns = run_checked("cat_with_grad_tensors").namespace
    assert ns["loss"].grad_fn.name() == "CatBackward0"
    np.testing.assert_array_equal(_values(ns["x"].grad), [1.0 * 2 + 2.0 * 1])


def test_autograd_grad_second_derivative():
    ns = run_checked("autograd_grad_second_derivative").namespace
    assert ns["x"].grad is None  # autograd.grad leaves .grad alone


def test_autograd_grad_of_cube():
    ns = run_checked("autograd_grad_of_cube").namespace
    assert ns["dy_dx"].item() == 27.0 and ns["d2y_dx2"].item() == 18.0
    assert ns["dy_dx"].requires_grad and not ns["d2y_dx2"].requires_grad


@pytest.mark.parametrize("name", ["gradients_accumulate_until_zeroed",
                                  "gradients_accumulate_without_zeroing",
                                  "requires_grad_propagates", "inplace_add_on_leaf"])
def test_x_plus_w_lessons(name):
    ns = run_checked(name).namespace
    if name == "inplace_add_on_leaf":
        np.testing.assert_array_equal(_values(ns["w"]), [1.0])  # the refused write did nothing
        assert ns["w"]._version == 0


@pytest.mark.parametrize("name", ["doc_no_grad", "doc_enable_grad", "doc_set_grad_enabled",
                                  "doc_inference_mode", "doc_register_hook"])
def test_docstring_examples(name):
    run_checked(name)
    assert tt.is_grad_enabled()


def test_mechanics_threads():
    run_checked("mechanics_threads")


@pytest.mark.parametrize("name", ["extending_exp", "extending_linear_function",
                                  "extending_mul_constant", "extending_double_backward_cube",
                                  "double_backward_square"])
def test_extending_pytorch(name):
    run_checked(name)


def test_every_snippet_has_a_test():
    tested = set()
    for fn_name, fn in globals().items():
        if fn_name.startswith("test_") and callable(fn):
            src = fn.__code__.co_consts
            tested.update(c for c in src if isinstance(c, str))
            marks = getattr(fn, "pytestmark", [])
            for m in marks:
                if m.name == "parametrize":
                    tested.update(m.args[1])
    missing = set(SNIPPETS) - tested
    assert not missing, f"snippets without a test: {sorted(missing)}"


# ---------------------------------------------------------------------------
# the same source on real PyTorch


def _both(name):
    real = pytest.importorskip("torch")
    snip = SNIPPETS[name]
    _skip_if_missing(snip)
    record = []
    ours = run(snip, record=record)
    theirs = run(snip, "torch", record=record)
    return real, snip, ours, theirs


def _tensor_names(ns, real):
    for k, v in ns.items():
        if isinstance(v, real.Tensor):
            yield k, v


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_prints_what_pytorch_prints(name):
    real, snip, ours, theirs = _both(name)
    # the same exception (PyTorch's type or a subclass of it, and message), or none
    if theirs.error is None:
        assert ours.error is None, f"tracegrad raised {ours.error!r}, PyTorch nothing"
    else:
        assert isinstance(ours.error, type(theirs.error)), (ours.error, theirs.error)
        assert str(ours.error) == str(theirs.error)
    assert_same_text(ours.stdout, theirs.stdout, snip.approx)
    if snip.expected is not None:  # the hard-coded text is PyTorch's
        assert masked(theirs.stdout) == snip.expected
    # every tensor the tutorial leaves behind
    compared = 0
    for k, t in _tensor_names(theirs.namespace, real):
        if k in snip.skip_names:
            continue
        mine = ours.namespace.get(k)
        assert isinstance(mine, tt.Tensor), f"{k}: {mine!r}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tp.assert_same_tensor(mine, t, what=k, scale=snip.scale)
        compared += 1
    assert compared or snip.raises or name in ("mechanics_threads",) or theirs.namespace


def _warning_key(w):
    message = str(w.message).split(" (Triggered internally at")[0]
    return w.category.__name__, message


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_warnings_match_pytorch(name):
    _, _, ours, theirs = _both(name)
    assert [_warning_key(w) for w in ours.warnings] == [_warning_key(w) for w in theirs.warnings]
