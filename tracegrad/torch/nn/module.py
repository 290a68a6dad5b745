"""``nn.Module``: the base class of layers and models (PyTorch's API).

A module owns three ordered registries, filled by attribute assignment:
parameters (:class:`~.parameter.Parameter` values), buffers (tensors
registered with :meth:`Module.register_buffer` or assigned as
``nn.Buffer``) and child modules.  Everything that walks a model
(``parameters()``, ``state_dict()``, ``zero_grad()``, ``train()``,
``to()``, ``repr``) walks those registries in registration order, children
depth first, with PyTorch's dotted names (``"0.weight"``, ``"encoder.1.bias"``).
"""
import collections
import itertools
from collections import OrderedDict

from .. import _dtype, _grad_mode
from .._tensor import Tensor, check_device
from .parameter import Buffer, Parameter

__all__ = ["Module", "typename"]


def typename(obj):
    """PyTorch's type name of ``obj``: ``'torch.FloatTensor'`` for tensors, else the class."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = getattr(cls, "__module__", "") or ""
    return cls.__qualname__ if module in ("", "builtins") else f"{module}.{cls.__qualname__}"


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys",
                                               ["missing_keys", "unexpected_keys"])):
    """What :meth:`Module.load_state_dict` returns: the keys that did not match."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods; ``remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, *registries):
        self.id = next(RemovableHandle._ids)
        self._registries = registries

    def remove(self):
        """Unregister the hook (a second call does nothing)."""
        for reg in self._registries:
            reg.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(text, spaces):
    """Indent every line of ``text`` but the first by ``spaces``."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _check_name(kind, name, module):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


class Module:
    """Base class of every layer and model.

    Subclasses call ``super().__init__()`` first, assign their parameters,
    buffers and submodules as attributes, and define ``forward``; calling
    the module runs ``forward`` (and any registered forward hooks).

    Attributes
    ----------
    training : bool
        True in training mode (the default), False after :meth:`eval`.
    """

    _version = 1
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments; "
                "Module.__init__ takes none (pass your own arguments to your subclass)."
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", {})

    # ------------------------------------------------------------------
    # calling

    def forward(self, *args, **kwargs):
        """The computation of the module; subclasses must define it.

        Raises
        ------
        NotImplementedError
            If the subclass does not define ``forward``.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"]):
            return self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        out = self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, out)
            else:
                res = hook(self, args, out)
            if res is not None:
                out = res
        return out

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each ``forward``.

        The hook may return new positional arguments (a tuple, or one value);
        with ``with_kwargs=True`` it is called as ``hook(module, args,
        kwargs)`` and may return ``(args, kwargs)``.

        Parameters
        ----------
        hook : callable
        prepend : bool, optional
            Run before the hooks already registered.
        with_kwargs : bool, optional

        Returns
        -------
        RemovableHandle
        """
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        _register_hook(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Call ``hook(module, args, output)`` after each ``forward``.

        A return value other than None replaces the output; with
        ``with_kwargs=True`` the hook is called as ``hook(module, args,
        kwargs, output)``.

        Parameters
        ----------
        hook : callable
        prepend : bool, optional
        with_kwargs : bool, optional
        always_call : bool, optional
            Accepted for compatibility (hooks do not run when ``forward``
            raises).

        Returns
        -------
        RemovableHandle
        """
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs)
        _register_hook(self._forward_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        return handle

    # ------------------------------------------------------------------
    # registration

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter, or None for an absent one) as ``name``.

        Parameters
        ----------
        name : str
        param : Parameter or None

        Raises
        ------
        AttributeError
            Before ``Module.__init__()`` has run.
        KeyError
            If ``name`` is empty, contains ``"."`` or is another attribute.
        TypeError
            If ``param`` is not a Parameter (or None), or is not a leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Register ``tensor`` as the buffer ``name`` (saved in ``state_dict`` if persistent).

        Parameters
        ----------
        name : str
        tensor : Tensor or None
        persistent : bool, optional

        Raises
        ------
        AttributeError
            Before ``Module.__init__()`` has run.
        KeyError
            If ``name`` is empty, contains ``"."`` or is another attribute.
        TypeError
            If ``tensor`` is neither a Tensor nor None.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Register ``module`` (or None) as the child ``name``.

        Parameters
        ----------
        name : str
        module : Module or None

        Raises
        ------
        TypeError
            If ``module`` is not a Module, or ``name`` not a string.
        KeyError
            If ``name`` is empty, contains ``"."`` or is another attribute.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name, keep="_buffers")
            persistent = getattr(value, "persistent", True)
            del value._is_buffer, value.persistent
            self.register_buffer(name, value, persistent)
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Remove ``name`` from every registry but ``keep`` (before re-registering it)."""
        d = self.__dict__
        d.pop(name, None)
        for reg in ("_parameters", "_buffers", "_modules"):
            if reg != keep:
                d[reg].pop(name, None)
        if keep != "_buffers":
            d["_non_persistent_buffers_set"].discard(name)

    def __getattr__(self, name):
        # only called when normal lookup fails: the registries
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            table = d.get(reg)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            if name in d.get(reg, ()):
                del d[reg][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(object.__dir__(self))
        for reg in ("_parameters", "_buffers", "_modules"):
            keys.update(self.__dict__.get(reg, ()))
        return sorted(k for k in keys if not k[:1].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------
    # walking the tree

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(dotted name, module)`` for this module and every descendant.

        Parameters
        ----------
        memo : set, optional
            Modules already yielded (skipped).
        prefix : str, optional
            Prepended to the names.
        remove_duplicate : bool, optional
            Yield a module shared by several parents once (default).

        Yields
        ------
        tuple of (str, Module)
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self, remove_duplicate=True):
        """Yield this module and every descendant (see :meth:`named_modules`).

        Yields
        ------
        Module
        """
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_children(self):
        """Yield ``(name, module)`` for the direct children (each module once).

        Yields
        ------
        tuple of (str, Module)
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        """Yield the direct child modules.

        Yields
        ------
        Module
        """
        for _, m in self.named_children():
            yield m

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        if recurse:
            mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            mods = [(prefix, self)]
        seen = set()
        for mod_prefix, mod in mods:
            for name, value in mod.__dict__[registry].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted name, parameter)`` pairs, in registration order.

        Parameters
        ----------
        prefix : str, optional
        recurse : bool, optional
            Include the descendants' parameters (default).
        remove_duplicate : bool, optional
            Yield a shared parameter once (default).

        Yields
        ------
        tuple of (str, Parameter)
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Yield the parameters (this module's, then its descendants').

        Parameters
        ----------
        recurse : bool, optional

        Yields
        ------
        Parameter
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted name, buffer)`` pairs.

        Parameters
        ----------
        prefix : str, optional
        recurse : bool, optional
        remove_duplicate : bool, optional

        Yields
        ------
        tuple of (str, Tensor)
        """
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Yield the buffers.

        Parameters
        ----------
        recurse : bool, optional

        Yields
        ------
        Tensor
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The descendant at the dotted path ``target`` (``""`` is ``self``).

        Parameters
        ----------
        target : str

        Returns
        -------
        Module

        Raises
        ------
        AttributeError
            If a component is missing or not a module.
        """
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            mod = _member(mod, item, Module)
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (``"0.weight"``).

        Parameters
        ----------
        target : str

        Returns
        -------
        Parameter

        Raises
        ------
        AttributeError
            If the path does not name a parameter.
        """
        mod_path, _, name = target.rpartition(".")
        return _member(self.get_submodule(mod_path), name, Parameter)

    def get_buffer(self, target):
        """The buffer at the dotted path ``target`` (``"block.running_mean"``).

        Parameters
        ----------
        target : str

        Returns
        -------
        Tensor

        Raises
        ------
        AttributeError
            If the path does not name a registered buffer.
        """
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        value = _member(mod, name, object)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return value

    # ------------------------------------------------------------------
    # modes and gradients

    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode on this module and its descendants.

        Parameters
        ----------
        mode : bool, optional

        Returns
        -------
        Module
            ``self``.

        Raises
        ------
        ValueError
            If ``mode`` is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Evaluation mode (``train(False)``): dropout off; returns ``self``.

        Returns
        -------
        Module
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter (False freezes them); returns ``self``.

        Parameters
        ----------
        requires_grad : bool, optional

        Returns
        -------
        Module
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the parameters' gradients.

        Parameters
        ----------
        set_to_none : bool, optional
            True (default): set ``.grad`` to None.  False: fill it with
            zeros in place (detached from any graph).
        """
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def apply(self, fn):
        """Call ``fn(module)`` on every descendant (children first), then on ``self``.

        Parameters
        ----------
        fn : callable

        Returns
        -------
        Module
            ``self``.
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------
    # dtype / device

    def _apply(self, fn):
        """Replace the data of every parameter, gradient and buffer by ``fn`` of it."""
        for m in self.children():
            m._apply(fn)
        with _grad_mode.no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    p.data = new
                if p._grad is not None:
                    g = fn(p._grad)
                    if g is not p._grad:
                        p._grad.data = g
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Convert the floating-point parameters and buffers to a dtype (``to(torch.float64)``).

        Accepts ``to(dtype)``, ``to(device)``, ``to(device, dtype)``,
        ``to(tensor)`` and the keywords ``dtype``, ``device`` and
        ``non_blocking``.  Only the CPU exists.  The parameters stay the same
        objects (their data is replaced), as in PyTorch.

        Returns
        -------
        Module
            ``self``.

        Raises
        ------
        TypeError
            For a non-floating dtype.
        RuntimeError
            For a device other than the CPU.
        """
        dtype = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None))
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (_dtype.dtype, type)) and not isinstance(a, str):
                dtype = a
            elif isinstance(a, bool):
                continue  # non_blocking
            else:
                check_device(a)
        if dtype is None:
            return self
        dtype = _dtype.as_dtype(dtype)
        if dtype.dtype.kind not in "fc":
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def _cast(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def double(self):
        """Convert floating-point parameters and buffers to float64; returns ``self``.

        Returns
        -------
        Module
        """
        return self._cast(_dtype.float64)

    def float(self):
        """Convert floating-point parameters and buffers to float32; returns ``self``.

        Returns
        -------
        Module
        """
        return self._cast(_dtype.float32)

    def half(self):
        """Convert floating-point parameters and buffers to float16; returns ``self``.

        Returns
        -------
        Module
        """
        return self._cast(_dtype.float16)

    def type(self, dst_type):
        """Convert every parameter and buffer to ``dst_type``; returns ``self``.

        Returns
        -------
        Module
        """
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        """``self`` (everything lives on the CPU).

        Returns
        -------
        Module
        """
        return self

    def cuda(self, device=None):
        """Refused: tracegrad runs on the CPU only.

        Raises
        ------
        RuntimeError
            Always.
        """
        check_device("cuda" if device is None else device)

    # ------------------------------------------------------------------
    # state dict

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The module's state: an OrderedDict from dotted names to tensors.

        Parameters (then persistent buffers) of each module, parents before
        children; the values are ``detach()``-ed (sharing storage) unless
        ``keep_vars``.  Like PyTorch's, the dict carries a ``_metadata``
        attribute with a version per module.

        Parameters
        ----------
        destination : dict, optional
            Filled and returned instead of a new OrderedDict.
        prefix : str, optional
            Prepended to every key.
        keep_vars : bool, optional
            Store the parameters themselves.

        Returns
        -------
        OrderedDict
        """
        if args:  # the legacy positional form (destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module.

        Parameters
        ----------
        state_dict : Mapping
            As returned by :meth:`state_dict`.
        strict : bool, optional
            Raise if keys are missing or unexpected (default True).
        assign : bool, optional
            Replace the tensors (keeping ``requires_grad``) instead of
            copying into them.

        Returns
        -------
        NamedTuple
            ``(missing_keys, unexpected_keys)``.

        Raises
        ------
        TypeError
            If ``state_dict`` is not a mapping.
        RuntimeError
            For missing or unexpected keys with ``strict``, and for shape
            mismatches always; the message lists every problem, as PyTorch's.
        """
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict)}."
            )
        missing, unexpected, errors = [], [], []
        for prefix, mod in self.named_modules(remove_duplicate=False):
            mod._load_from_state_dict(state_dict, prefix + "." if prefix else "", missing,
                                      unexpected, errors, assign)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        local = {k: v for k, v in self._parameters.items() if v is not None}
        local.update((k, v) for k, v in self._buffers.items()
                     if v is not None and k not in self._non_persistent_buffers_set)
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != current.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {current.shape}."
                )
                continue
            try:
                if assign:
                    self._assign(name, current, value)
                else:
                    with _grad_mode.no_grad():
                        current.copy_(value)
            except Exception as exc:  # noqa: BLE001 - reported like PyTorch, with the cause
                errors.append(
                    f'While copying the parameter named "{key}", whose dimensions in the '
                    f"model are {current.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {exc.args}."
                )
        for key in state_dict:
            if not key.startswith(prefix):
                continue
            head = key[len(prefix):].split(".", 1)
            if len(head) > 1:
                if head[0] not in self._modules:
                    unexpected.append(key)
            elif head[0] not in local:
                unexpected.append(key)

    def _assign(self, name, current, value):
        if name in self._parameters:
            new = value if isinstance(value, Parameter) else Parameter(value, current.requires_grad)
            new.requires_grad_(current.requires_grad)
            self._parameters[name] = new
        else:
            self._buffers[name] = value

    # ------------------------------------------------------------------
    # printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings shown inside its ``repr`` (override in subclasses).

        Returns
        -------
        str
        """
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(m), 2)
                       for name, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


def _member(mod, name, cls):
    """``mod.name``, which must be a ``cls`` (PyTorch's errors for paths of submodules)."""
    if not hasattr(mod, name):
        raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
    value = getattr(mod, name)
    if not isinstance(value, cls):
        raise AttributeError(f"`{name}` is not an nn.{cls.__name__}")
    return value


def _register_hook(table, hid, hook, prepend):
    table[hid] = hook
    if prepend:
        table.move_to_end(hid, last=False)


def _zero_grad(p, set_to_none):
    """PyTorch's per-tensor ``zero_grad``: drop ``.grad``, or zero it detached in place."""
    g = p._grad
    if g is None:
        return
    if set_to_none:
        p._grad = None
        return
    if g.grad_fn is not None:
        g.detach_()
    else:
        g.requires_grad_(False)
    with _grad_mode.no_grad():
        g.zero_()

