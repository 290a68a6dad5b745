"""``torch.compile`` over :func:`tracegrad.jit`.

``compile(fn_or_module)`` stages the function (or the module's forward,
with its parameters and buffers as explicit inputs, through
``torch.func.functional_call``) into tracegrad's IR and runs it as one
compiled program.  When an input requires grad, the call is recorded as one
node of the autograd graph (``CompiledFunctionBackward``) whose backward
runs the compiled VJP of the same program (``tracegrad.vjp`` of the jitted
function: the forward and backward passes both run compiled).  Values and
gradients are eager's.

Graph breaks: Python that needs a concrete value of a staged tensor
(``if x.sum() > 0``, ``x.item()``, data-dependent shapes, in-place updates
of buffers) cannot be staged.  As PyTorch does, such a call falls back to
eager execution (the whole call: tracegrad has no partial graphs), and the
fallback is remembered for that input signature; ``fullgraph=True`` raises
the staging error instead.
"""
import functools

import numpy as np

from .. import tree_util as _tu
from ..errors import ConcretizationTypeError
from ..transforms import api as _api
from ..transforms import jit as _jit
import threading

from . import _creation, _grad_mode
from ._tensor import Tensor
from .autograd.function import Function
from .func import functional_call
from .nn.module import Module

__all__ = ["compile"]


def _key(leaves):
    """The input signature: shapes and dtypes of the tensors, other leaves by value."""
    out = []
    for x in leaves:
        if isinstance(x, Tensor):
            out.append(("T", tuple(x._data.shape), str(x._data.dtype), x.requires_grad))
        else:
            try:
                hash(x)
                out.append(("V", x))
            except TypeError:
                out.append(("O", id(x)))
    return tuple(out)


_current = threading.local()  # the program a CompiledFunction.apply call runs


class CompiledFunction(Function):
    """One call of a compiled program as one autograd node
    (``CompiledFunctionBackward``, PyTorch's name)."""

    @staticmethod
    def forward(ctx, *tensors):
        jitted = _current.program
        arrays = [t._data for t in tensors]
        outs, vjp_fun = _api.vjp(jitted, *arrays)
        ctx.vjp_fun = vjp_fun
        ctx.dtypes = [np.asarray(o).dtype for o in outs]
        ctx.shapes = [np.shape(o) for o in outs]
        return tuple(Tensor._wrap(np.asarray(o)) for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        if _grad_mode.is_grad_enabled():
            raise RuntimeError("torch.compile with aot_autograd does not currently support "
                               "double backward")
        cts = [np.zeros(s, d) if g is None else np.asarray(g._data, dtype=d)
               for g, s, d in zip(grads, ctx.shapes, ctx.dtypes)]
        in_cts = ctx.vjp_fun(cts)
        return tuple(
            None if c is None else Tensor._wrap(np.asarray(c)) for c in in_cts)


class _Compiled:
    """A compiled callable: ``fn`` staged once per input signature."""

    def __init__(self, fn, module, fullgraph):
        self._fn = fn
        self._module = module
        self._fullgraph = fullgraph
        self._eager = set()  # signatures that graph-broke: run eagerly
        self._programs = {}
        functools.update_wrapper(self, fn)

    def _state(self):
        """Names and tensors of the module's parameters, then its buffers, and the
        number of buffers."""
        if self._module is None:
            return [], [], 0
        names, tensors = [], []
        for name, p in self._module.named_parameters():
            names.append(name)
            tensors.append(p)
        n_buf = 0
        for name, b in self._module.named_buffers():
            names.append(name)
            tensors.append(b)
            n_buf += 1
        return names, tensors, n_buf

    def __call__(self, *args, **kwargs):
        names, state, n_buf = self._state()
        leaves, treedef = _tu.tree_flatten((args, kwargs),
                                           is_leaf=lambda x: isinstance(x, Tensor))
        modes = () if self._module is None else tuple(m.training for m in
                                                      self._module.modules())
        key = (treedef, _key(leaves), tuple(names), _key(state), modes,
               _grad_mode.is_grad_enabled())
        if key in self._eager:
            return self._fn(*args, **kwargs)
        tensor_pos = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        n_state = len(state)
        program = self._programs.get(key)
        if program is None:
            program = self._programs[key] = self._stage(names, leaves, tensor_pos, treedef,
                                                        n_state, n_buf)
        inputs = list(state) + [leaves[i] for i in tensor_pos]
        needs = _grad_mode.is_grad_enabled() and any(t.requires_grad for t in inputs)
        first = program.out_tree[0] is None
        rng = _creation.default_generator.get_state() if first else None
        try:
            if needs:
                _current.program = program.jitted
                try:
                    outs = CompiledFunction.apply(*inputs)
                finally:
                    _current.program = None
            else:
                outs = tuple(Tensor._wrap(np.asarray(o))
                             for o in program.jitted(*[t._data for t in inputs]))
            if first and not _same_state(rng, _creation.default_generator.get_state()):
                # random numbers drawn while tracing would be constants of the
                # program (the same "random" values on every call): a graph break
                _creation.default_generator.set_state(rng)
                raise _RandomInProgram("torch.compile: random numbers are drawn in the "
                                       "function; they cannot be staged (the values would "
                                       "repeat on every call)")
        except _STAGING_ERRORS if first else ():
            if self._fullgraph:
                raise
            # a graph break: this signature runs eagerly from now on
            self._eager.add(key)
            self._programs.pop(key, None)
            return self._fn(*args, **kwargs)
        outs = list(outs)
        mutated = program.mutated
        if mutated:
            # tensors updated in place by the function (BatchNorm's running
            # statistics, an input's mul_) come back as the last outputs: write
            # them into the caller's tensors
            written = outs[len(outs) - len(mutated):]
            outs = outs[:len(outs) - len(mutated)]
            with _grad_mode.no_grad():
                for i, new in zip(mutated, written):
                    inputs[i].copy_(new.detach())
        return _tu.tree_unflatten(program.out_tree[0], outs)

    def _stage(self, names, leaves, tensor_pos, treedef, n_state, n_buf):
        fn, module = self._fn, self._module
        program = _Program()

        def on_arrays(*arrays):
            wrappers = [Tensor._wrap(a) for a in arrays]
            state = wrappers[:n_state]
            args_leaves = list(leaves)
            for i, w in zip(tensor_pos, wrappers[n_state:]):
                args_leaves[i] = w
            args, kwargs = _tu.tree_unflatten(treedef, args_leaves)
            if module is not None:
                out = functional_call(module, dict(zip(names, state)), args, kwargs)
            else:
                out = fn(*args, **kwargs)
            out_leaves, out_tree = _tu.tree_flatten(out, is_leaf=lambda x: isinstance(x,
                                                                                       Tensor))
            if any(not isinstance(o, Tensor) for o in out_leaves):
                raise ConcretizationTypeError(
                    "torch.compile: the function returns a value that is not a tensor")
            program.out_tree[0] = out_tree
            # inputs written in place: their data is no longer the traced input
            program.mutated = [k for k, (w, a) in enumerate(zip(wrappers, arrays))
                               if w._data is not a]
            return [o._data for o in out_leaves] + [wrappers[k]._data for k in program.mutated]

        program.jitted = _jit(on_arrays)
        return program


class _Program:
    __slots__ = ("jitted", "out_tree", "mutated")

    def __init__(self):
        self.jitted = None
        self.out_tree = [None]
        self.mutated = []


class _RandomInProgram(ConcretizationTypeError):
    """Random numbers drawn while staging (a graph break)."""


def _same_state(a, b):
    return _tu.tree_structure(a) == _tu.tree_structure(b) and all(
        np.array_equal(x, y) for x, y in zip(_tu.tree_leaves(a), _tu.tree_leaves(b)))


#: what makes a first call a graph break: Python needing a staged value, random
#: numbers, an operation the staging cannot express (an in-place write into a
#: tensor from outside the function, a primitive without a staging rule)
_STAGING_ERRORS = (ConcretizationTypeError, RuntimeError, NotImplementedError)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """Compile a function or module with :func:`tracegrad.jit` (``torch.compile``).

    Parameters
    ----------
    model : callable or nn.Module, optional
        What to compile; without it, ``compile`` returns a decorator.
    fullgraph : bool, optional
        Raise the staging error (``tracegrad.errors.ConcretizationTypeError``)
        where a call cannot be staged, instead of running it eagerly.
    dynamic, backend, mode, options : optional
        Accepted and ignored (one backend: tracegrad's Numba code
        generation; every new input shape is a new compiled program).
    disable : bool, optional
        Return ``model`` unchanged.

    Returns
    -------
    callable
        Same arguments and results as ``model``; a module's parameters and
        buffers are inputs of the compiled program, so their ``.grad``s are
        filled by ``backward()``.  Modules keep their own ``state_dict`` and
        methods (the result forwards attribute access to the module).
    """
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph)
    return _Compiled(model, None, fullgraph)


class OptimizedModule(Module):
    """A module compiled by :func:`compile`: calls run the compiled forward.

    The original module is the child ``_orig_mod`` (so ``state_dict`` keys
    carry the ``_orig_mod.`` prefix, as PyTorch's); other attributes are read
    from it.
    """

    def __init__(self, mod, fullgraph):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled_call"] = _Compiled(mod.forward, mod, fullgraph)

    def forward(self, *args, **kwargs):
        """The compiled forward of ``_orig_mod``."""
        return self.__dict__["_compiled_call"](*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)
