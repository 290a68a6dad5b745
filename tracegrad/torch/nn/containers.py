"""Container modules: ``Sequential``, ``ModuleList``, ``ModuleDict`` (PyTorch's API).

Their children are registered under the keys ``"0"``, ``"1"``, ... (or the
given names), so parameter names and ``state_dict`` keys are PyTorch's
(``"0.weight"``).  Deleting an entry of a ``Sequential`` or ``ModuleList``
renumbers the rest, as in PyTorch.
"""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .module import Module, _addindent, typename

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(idx, n):
    i = operator.index(idx)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i % n


class _Indexed(Module):
    """What Sequential and ModuleList share: integer-keyed children."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _renumber(self, modules):
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(modules)}

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return self._slice(idx)
        return mods[_index(idx, len(mods))]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        self.add_module(keys[_index(idx, len(keys))], module)

    def __delitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            del mods[idx]
        else:
            del mods[_index(idx, len(mods))]
        self._renumber(mods)

    def append(self, module):
        """Add ``module`` at the end; returns ``self``.

        Parameters
        ----------
        module : Module

        Returns
        -------
        Sequential or ModuleList
        """
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index``.

        Parameters
        ----------
        index : int
        module : Module

        Raises
        ------
        AssertionError
            If ``module`` is not a Module (PyTorch's exception type).
        IndexError
            If ``index`` is outside ``[-len, len]``.
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        mods = list(self._modules.values())
        if not -len(mods) <= index <= len(mods):
            raise IndexError(f"Index out of range: {index}")
        mods.insert(index, module)
        self._renumber(mods)
        return self

    def extend(self, modules):
        """Append every module of an iterable; returns ``self``.

        Parameters
        ----------
        modules : iterable of Module

        Returns
        -------
        Sequential or ModuleList

        Raises
        ------
        TypeError
            If ``modules`` is not iterable.
        """
        if not isinstance(modules, Iterable):
            raise TypeError(
                f"{type(self).__name__}.extend should be called with an iterable, but got "
                + typename(modules)
            )
        for m in modules:
            self.append(m)
        return self

    def pop(self, key):
        """Remove and return the module at position ``key``.

        Parameters
        ----------
        key : int

        Returns
        -------
        Module
        """
        m = self[key]
        del self[key]
        return m

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class Sequential(_Indexed):
    """Modules applied one after the other: ``Sequential(a, b)(x) == b(a(x))``.

    Parameters
    ----------
    *args : Module
        The layers, named ``"0"``, ``"1"``, ...; or one OrderedDict from
        names to modules.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _slice(self, idx):
        return type(self)(OrderedDict(list(self._modules.items())[idx]))

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        out = Sequential()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return self.extend(list(other))

    def forward(self, input):
        """Apply the layers in order.

        Parameters
        ----------
        input : Tensor

        Returns
        -------
        Tensor
        """
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_Indexed):
    """A list of modules, registered as children (it has no ``forward``).

    Parameters
    ----------
    modules : iterable of Module, optional
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _slice(self, idx):
        return type(self)(list(self._modules.values())[idx])

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def __repr__(self):
        # consecutive children that print alike are shown once, as PyTorch does:
        # "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        groups = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if groups and groups[-1][2] == r:
                groups[-1][1] = i
            else:
                groups.append([i, i, r])
        lines = []
        for first, last, r in groups:
            label = f"({first})" if first == last else f"({first}-{last})"
            count = "" if first == last else f"{last - first + 1} x "
            lines.append(_addindent(f"{label}: {count}{r}", 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys.

    Parameters
    ----------
    modules : Mapping or iterable of (str, Module) pairs, optional
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        """The keys, in insertion order."""
        return self._modules.keys()

    def items(self):
        """``(key, module)`` pairs."""
        return self._modules.items()

    def values(self):
        """The modules."""
        return self._modules.values()

    def clear(self):
        """Remove every module."""
        self._modules.clear()

    def pop(self, key):
        """Remove and return the module under ``key``."""
        m = self[key]
        del self[key]
        return m

    def update(self, modules):
        """Add the modules of a mapping or of an iterable of ``(key, module)`` pairs.

        Parameters
        ----------
        modules : Mapping or iterable of pairs

        Raises
        ------
        TypeError
            If ``modules`` is neither.
        """
        if isinstance(modules, Mapping):
            for k, m in modules.items():
                self[k] = m
            return
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(modules).__name__
            )
        for pair in modules:
            k, m = pair
            self[k] = m
