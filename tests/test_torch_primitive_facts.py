"""A primitive's facts live in its block: ``Primitive.reads`` and ``Primitive.torch_name``.

The PyTorch layer saves and version-checks exactly what a primitive's reverse
rule reads (``reads``) and names lone-primitive nodes by ``torch_name``; it
keeps no table keyed by primitive names and looks no primitive up by string.
"""
import ast
import pathlib

import numpy as np
import pytest

import tracegrad.torch as torch
from tracegrad.core import READS_ALL, Primitive, registry
from tracegrad.primitives import elementwise, structural
from tracegrad.torch._autograd import default_name

TORCH_DIR = pathlib.Path(torch.__file__).parent


def _valid_pair(pair, nargs=None):
    argnums, reads_output = pair
    assert isinstance(reads_output, bool)
    if argnums == "all":
        return
    assert isinstance(argnums, tuple) and all(isinstance(i, int) and i >= 0 for i in argnums)
    if nargs is not None:
        assert all(i < nargs for i in argnums)


@pytest.mark.parametrize("name", sorted(registry))
def test_reads_and_torch_name_are_well_formed(name):
    prim = registry[name]
    if callable(prim.reads):
        for has in ((True, True), (True, False), (False, True)):
            _valid_pair(prim.reads(has), nargs=2)
    else:
        _valid_pair(prim.reads)
    assert prim.torch_name is None or (
        isinstance(prim.torch_name, str) and prim.torch_name[-1].isdigit()
        and "Backward" in prim.torch_name)


def test_defaults_are_the_safe_ones():
    p = Primitive("test_facts_default_prim")
    try:
        assert p.reads == READS_ALL == ("all", True)
        assert p.torch_name is None
        assert default_name(p) == "TestFactsDefaultPrimBackward0"
    finally:
        del registry["test_facts_default_prim"]


def test_declared_facts_reach_the_torch_layer():
    assert elementwise.mul_p.torch_name == "MulBackward0"
    assert structural.reshape_p.torch_name == "ViewBackward0"
    assert elementwise.mul_p.reads((True, False)) == ((1,), False)  # x * c keeps c only
    assert elementwise.div_p.reads((False, True)) == ((1,), True)
    assert structural.reduce_sum_p.reads == ((), False)


def test_what_is_read_is_what_is_version_checked():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    # exp's rule reads its output: modifying the output in place must be caught
    y = torch.exp(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    # add's rules read nothing: modifying an operand afterwards is harmless
    a = x * 1.0
    b = a + 1.0
    a.mul_(3)
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    # mul by a constant tensor reads the constant only, not x
    x.grad = None
    c = x.detach().clone()
    z = c * x
    with torch.no_grad():
        x.mul_(2)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])


def _modules():
    return sorted(TORCH_DIR.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(TORCH_DIR)))
def test_torch_layer_has_no_string_lookup_of_primitives(path):
    tree = ast.parse(path.read_text())
    prim_names = set(registry)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and "primitives" in node.module:
            assert "registry" not in {a.name for a in node.names}, (
                f"{path.name}: import the primitive (or its ops wrapper), not the registry")
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            named = [k for k in keys if k in prim_names]
            assert len(named) < 3, (
                f"{path.name}:{node.lineno}: a table keyed by primitive names {named[:5]}; "
                "declare the fact as a field in the primitive's block")
