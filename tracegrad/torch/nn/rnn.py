"""Recurrent layers ``RNN``, ``LSTM``, ``GRU`` and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Constructor arguments, parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``,
``weight_hr_l0``), shapes, gate order (LSTM: input, forget, cell, output; GRU:
reset, update, new), initialization ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``
and the inputs and outputs of ``forward`` are PyTorch's.

How a layer runs: the input projection ``x @ W_ih^T + b_ih + b_hh`` of all time
steps is one matrix product; the steps then add only ``h @ W_hh^T`` and apply
the gates.  Every step is made of tracegrad primitives (``matmul``, ``add``,
``mul``, ``sigmoid``, ``tanh``), so the derivatives are the primitives' VJP
rules.  Three structural operations that the PyTorch layer has no single
primitive for are recorded here as one node each, so a step costs few nodes:
cutting the gate pre-activations into equal pieces (the cotangent is their
concatenation, PyTorch's ``SplitBackward0``), taking the time steps of the
projection apart (``UnbindBackward0``; the cotangent is their stack) and
stacking the steps' outputs (``StackBackward0``; each cotangent a slice).
Their rules are written with primitives, so higher derivatives work.  An
LSTM layer reorders its gate columns once per call (``W_ih^T``, ``W_hh^T`` and
the bias, to ``i, f, o, g``), so each step applies one ``sigmoid`` to the
three sigmoid gates side by side and one ``tanh`` to ``g``.
Inside ``torch.func`` transforms the layer uses the ordinary tensor
operations instead.

Formulas (PyTorch's documentation of ``nn.LSTM``, ``nn.GRU``, ``nn.RNN``)::

    RNN:  h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)            act = tanh or relu
    LSTM: i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)
          c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
          h' = sigmoid(o) * tanh(c')          (then h' W_hr^T with proj_size > 0)
    GRU:  r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z)
          n = tanh(x_n + r * h_n)   with x_* = x W_i*^T + b_i*, h_* = h W_h*^T + b_h*
          h' = (1 - z) * n + z * h
"""
import math
import numbers
import warnings

import numpy as np

from ...primitives import elementwise as _pel
from ...primitives import linalg as _pla
from ...primitives import nn as _pnn
from ...primitives import ops
from ...primitives import structural as _pst
from .. import _creation, _ops
from .._autograd import apply as _apply
from .._tensor import Tensor, check_device
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_add, _mul, _sub = _pel.add_p, _pel.mul_p, _pel.sub_p
_tanh, _sigmoid, _relu, _matmul = _pel.tanh_p, _pnn.sigmoid_p, _pnn.relu_p, _pla.matmul_p


# --------------------------------------------------------------------------
# structural helpers: pieces of a tensor as one recorded operation (the split
# primitive, whose cotangent is one concatenation), so a step's gates cost one
# node, not one slice each (each slice's cotangent is a zero-padded copy)


def _split(x, n):
    """``x.chunk(n, -1)``."""
    k = x._data.shape[-1] // n
    return _split_sizes(x, (k,) * n)


def _split_sizes(x, sizes, axis=-1):
    """``x.split(sizes, axis)`` as one node (``SplitWithSizesBackward0``)."""
    return _apply(_pst.split_p, "SplitWithSizesBackward0", (x,),
                  {"sizes": tuple(sizes), "axis": axis % x._data.ndim})


def _ifog(t, hidden):
    """The last axis of ``t``, in PyTorch's gate order ``i, f, g, o``, reordered to
    ``i, f, o, g`` (the three sigmoid gates side by side)."""
    if_, g, o = _split_sizes(t, (2 * hidden, hidden, hidden))
    return _ops.cat([if_, o, g], -1)


def _unbind(x):
    """``x.unbind(0)``: one split, then each piece without its leading axis."""
    rest = tuple(x._data.shape[1:])
    return [_apply(_pst.reshape_p, "SqueezeBackward1", (p,), {"shape": rest})
            for p in _split_sizes(x, (1,) * x._data.shape[0], 0)]


def _stack(ts):
    """``torch.stack(ts)``."""
    return _ops.stack(ts)


def _linear_nobias(x, w):
    return _apply(_matmul, "MmBackward0", (x, _ops.t(w)))


# --------------------------------------------------------------------------
# one layer, one direction: lists of per-step tensors in, out


def _rnn_steps(xs, h, w_hh, b_hh, act, reverse):
    """Elman steps: ``h = act(xp_t + h W_hh^T)`` (``b_hh`` folded into ``xs``)."""
    whT = _ops.t(w_hh)
    prim = _tanh if act == "tanh" else _relu
    name = "TanhBackward0" if act == "tanh" else "ReluBackward0"
    outs = []
    for xt in (reversed(xs) if reverse else xs):
        h = _apply(prim, name, (_apply(_add, "AddBackward0",
                                       (xt, _apply(_matmul, "MmBackward0", (h, whT)))),))
        outs.append(h)
    if reverse:
        outs.reverse()
    return outs, h


def _lstm_steps(xs, h, c, whT, w_hr, reverse):
    """LSTM steps from the projected inputs ``xs`` (biases folded in); ``xs`` and
    ``whT`` (``W_hh^T``) have their gate columns in the order ``i, f, o, g``."""
    hrT = None if w_hr is None else _ops.t(w_hr)
    hidden = whT._data.shape[1] // 4
    outs = []
    for xt in (reversed(xs) if reverse else xs):
        gates = _apply(_add, "AddBackward0", (xt, _apply(_matmul, "MmBackward0", (h, whT))))
        # the gate activations and the cell update: one fused operation
        h, c = _apply(_pnn.lstm_cell_p, "LstmCellBackward0", (gates, c))
        if hrT is not None:
            h = _apply(_matmul, "MmBackward0", (h, hrT))
        outs.append(h)
    if reverse:
        outs.reverse()
    return outs, h, c


def _gru_steps(xs, h, w_hh, b_hh, reverse):
    """GRU steps; ``xs`` are ``(x_r, x_z, x_n)`` per step (``b_ih`` folded in)."""
    whT = _ops.t(w_hh)
    outs = []
    for xr, xz, xn in (reversed(xs) if reverse else xs):
        hp = _apply(_matmul, "MmBackward0", (h, whT))
        if b_hh is not None:
            hp = _apply(_add, "AddBackward0", (hp, b_hh))
        hr, hz, hn = _split(hp, 3)
        r = _apply(_sigmoid, "SigmoidBackward0", (_apply(_add, "AddBackward0", (xr, hr)),))
        z = _apply(_sigmoid, "SigmoidBackward0", (_apply(_add, "AddBackward0", (xz, hz)),))
        n = _apply(_tanh, "TanhBackward0", (_apply(_add, "AddBackward0", (
            xn, _apply(_mul, "MulBackward0", (r, hn)))),))
        # (1 - z) * n + z * h, as n + z * (h - n)
        h = _apply(_add, "AddBackward0", (n, _apply(_mul, "MulBackward0", (
            z, _apply(_sub, "SubBackward0", (h, n))))))
        outs.append(h)
    if reverse:
        outs.reverse()
    return outs, h


def _project(x, w_ih, bias):
    """``x @ w_ih^T + bias`` for a ``(T, B, I)`` input, as ``(T, B, G)``."""
    return F.linear(x, w_ih, bias)


def _layer_direction(mode, x, hx, w, bias, reverse):
    """Run one direction of one layer on ``x`` (T, B, I): (per-step outputs, finals)."""
    w_ih, w_hh, rest = w[0], w[1], w[2:]
    b_ih = b_hh = None
    if bias:
        b_ih, b_hh, rest = rest[0], rest[1], rest[2:]
    w_hr = rest[0] if rest else None
    if mode == "GRU":
        xp = _project(x, w_ih, b_ih)
        parts = [_unbind(p) for p in _split(xp, 3)]
        xs = list(zip(*parts))
        outs, h = _gru_steps(xs, hx[0], w_hh, b_hh, reverse)
        return outs, (h,)
    bias = None
    if b_ih is not None:
        bias = _apply(_add, "AddBackward0", (b_ih, b_hh))
    if mode == "LSTM":
        hidden = w_hh._data.shape[0] // 4
        wihT = _ifog(_ops.t(w_ih), hidden)
        steps, batch, features = x._data.shape
        xp = _apply(_matmul, "MmBackward0", (_ops.reshape(x, steps * batch, features), wihT))
        if bias is not None:
            xp = _apply(_add, "AddBackward0", (xp, _ifog(bias, hidden)))
        xs = _unbind(_ops.reshape(xp, steps, batch, 4 * hidden))
        outs, h, c = _lstm_steps(xs, hx[0], hx[1], _ifog(_ops.t(w_hh), hidden), w_hr, reverse)
        return outs, (h, c)
    xs = _unbind(_project(x, w_ih, bias))
    outs, h = _rnn_steps(xs, hx[0], w_hh, b_hh, "tanh" if mode == "RNN_TANH" else "relu",
                         reverse)
    return outs, (h,)


# --------------------------------------------------------------------------
# the modules


def _check_int(name, value):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _dtype_name(t):
    return str(t.dtype)


class RNNBase(Module):
    """Base of :class:`RNN`, :class:`LSTM` and :class:`GRU`: parameters and checks.

    Parameters
    ----------
    mode : {'LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU'}
    input_size : int
        Features of the input ``x``.
    hidden_size : int
        Features of the hidden state ``h``.
    num_layers : int, optional
        Stacked recurrent layers (default 1).
    bias : bool, optional
        Use ``b_ih`` and ``b_hh`` (default True).
    batch_first : bool, optional
        Inputs and outputs are ``(batch, seq, feature)`` instead of
        ``(seq, batch, feature)`` (the hidden states are not affected).
    dropout : float, optional
        Dropout on the outputs of every layer but the last, in training mode.
    bidirectional : bool, optional
        Also run each layer backwards in time; outputs are concatenated.
    proj_size : int, optional
        LSTM only: project ``h`` to this size (``weight_hr_l{k}``).
    device : 'cpu' or None, optional
    dtype : dtype, optional

    Attributes
    ----------
    weight_ih_l{k}{suffix} : Parameter
        ``(G * hidden_size, input_size)`` for ``k = 0``, else
        ``(G * hidden_size, num_directions * real_hidden)``; ``G`` is 4 for
        LSTM, 3 for GRU, 1 for RNN, ``suffix`` ``''`` or ``'_reverse'``.
    weight_hh_l{k}{suffix} : Parameter
        ``(G * hidden_size, real_hidden)``, ``real_hidden`` = ``proj_size`` or
        ``hidden_size``.
    bias_ih_l{k}{suffix}, bias_hh_l{k}{suffix} : Parameter
        ``(G * hidden_size,)`` (with ``bias=True``).
    weight_hr_l{k}{suffix} : Parameter
        ``(proj_size, hidden_size)`` (LSTM with ``proj_size > 0``).

    All are drawn from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Raises
    ------
    TypeError
        For a non-integer ``input_size``, ``hidden_size`` or ``num_layers``.
    ValueError
        With PyTorch's messages: ``dropout`` outside ``[0, 1]``, a
        non-positive ``hidden_size`` or ``num_layers``, a negative or too
        large ``proj_size``, ``proj_size`` for a mode other than LSTM, an
        unknown ``mode``.
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        check_device(device)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}", UserWarning, stacklevel=3)
        _check_int("hidden_size", hidden_size)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + str(mode))
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        _check_int("input_size", input_size)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else real_hidden * num_directions
                shapes = [(gate_size, layer_in), (gate_size, real_hidden)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for n, s in zip(names, shapes):
                    setattr(self, n, Parameter(_creation.empty(*s, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Does nothing (PyTorch compacts the weights for cuDNN)."""

    def reset_parameters(self):
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward -----------------------------------------------------------

    @staticmethod
    def _check_hidden(hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _prepare(self, input):
        """The input as a (T, B, I) tensor, with PyTorch's checks."""
        if not isinstance(input, Tensor):
            if type(input).__name__ == "PackedSequence":
                raise NotImplementedError("PackedSequence inputs are not supported")
            input = _ops._tensor_arg(input)
        name = type(self).__name__
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             "instead")
        w = self.weight_ih_l0
        if input._data.dtype != w._data.dtype:
            raise ValueError(
                f"RNN input dtype ({_dtype_name(input)}) does not match weight dtype "
                f"({_dtype_name(w)}). Convert input: input.to({_dtype_name(w)}), or convert "
                f"model: model.to({_dtype_name(input)})")
        self._batched = input.dim() == 3
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        return input

    def _run(self, x, states):
        """All layers on ``x`` (T, B, I) from ``states`` (per state kind, (L*D, B, H))."""
        dirs = 2 if self.bidirectional else 1
        per = [_unbind(s) for s in states]  # per state kind: L*D tensors (B, H)
        finals = [[] for _ in states]
        weights = self.all_weights
        layer_in = x
        for layer in range(self.num_layers):
            outs_dir = []
            for d in range(dirs):
                k = layer * dirs + d
                outs, fin = _layer_direction(self.mode, layer_in, [p[k] for p in per],
                                             weights[k], self.bias, d == 1)
                outs_dir.append(outs)
                for lst, f in zip(finals, fin):
                    lst.append(f)
            if dirs == 1:
                layer_out = _stack(outs_dir[0])
            else:
                layer_out = _ops.cat([_stack(outs_dir[0]), _stack(outs_dir[1])], 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_out = F.dropout(layer_out, self.dropout, True)
            layer_in = layer_out
        return layer_in, [_stack(f) for f in finals]

    def _zeros(self, shape, like):
        return Tensor._wrap(np.zeros(shape, like._data.dtype))


def _sequence_first(input, batch_first, batched):
    if not batched:
        return _ops.unsqueeze(input, 1)
    return _ops.transpose(input, 0, 1) if batch_first else input


def _restore(output, batch_first, batched):
    if not batched:
        return _ops.squeeze(output, 1)
    return _ops.transpose(output, 0, 1) if batch_first else output


def _no_projection(name, kwargs):
    """PyTorch's errors for extra keywords of ``RNN``/``GRU`` (``proj_size`` is LSTM's)."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")


class RNN(RNNBase):
    """Elman recurrent network: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Parameters
    ----------
    input_size, hidden_size : int
    num_layers : int, optional
    nonlinearity : {'tanh', 'relu'}, optional
    bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.

    Raises
    ------
    ValueError
        For another ``nonlinearity`` (PyTorch's message), and as
        :class:`RNNBase`.
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None,
                 dtype=None, **kwargs):
        _no_projection(type(self).__name__, kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """Run the network over a sequence.

        Parameters
        ----------
        input : Tensor
            ``(L, N, input_size)`` (``(N, L, input_size)`` with
            ``batch_first``) or unbatched ``(L, input_size)``.
        hx : Tensor, optional
            Initial hidden state ``(D * num_layers, N, hidden_size)`` (or
            ``(D * num_layers, hidden_size)`` unbatched); zeros if omitted.

        Returns
        -------
        output : Tensor
            ``(L, N, D * hidden_size)``: the last layer's ``h`` at every step.
        h_n : Tensor
            ``(D * num_layers, N, hidden_size)``: every layer's final ``h``.

        Raises
        ------
        ValueError
            For an input that is not 2-D or 3-D, or of another dtype than the
            weights.
        RuntimeError
            For a wrong feature size or hidden state shape (PyTorch's messages).
        """
        return _single_state_forward(self, input, hx)


def _single_state_forward(self, input, hx):
    input = self._prepare(input)
    batched = self._batched
    if hx is not None:
        hx = _ops._tensor_arg(hx)
        if batched and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.dim()}-D tensor")
        if not batched:
            hx = _ops.unsqueeze(hx, 1)
    x = _sequence_first(input, self.batch_first, batched)
    expected = (self.num_layers * (2 if self.bidirectional else 1), x.shape[1],
                self.hidden_size)
    if hx is None:
        hx = self._zeros(expected, x)
    self._check_hidden(hx, expected)
    out, (h_n,) = self._run(x, [hx])
    out = _restore(out, self.batch_first, batched)
    if not batched:
        h_n = _ops.squeeze(h_n, 1)
    return out, h_n


class GRU(RNNBase):
    """Gated recurrent unit network (Cho et al. 2014), PyTorch's formulation.

    ``r = sigmoid(x_r + h_r)``, ``z = sigmoid(x_z + h_z)``,
    ``n = tanh(x_n + r * (h W_hn^T + b_hn))``, ``h' = (1 - z) * n + z * h``;
    ``b_hn`` sits inside the product with ``r``, as in PyTorch (and cuDNN).

    Parameters
    ----------
    input_size, hidden_size : int
    num_layers, bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _no_projection(type(self).__name__, kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)

    def forward(self, input, hx=None):
        """As :meth:`RNN.forward`: returns ``(output, h_n)``."""
        return _single_state_forward(self, input, hx)


class LSTM(RNNBase):
    """Long short-term memory network (Hochreiter and Schmidhuber 1997), PyTorch's form.

    Gates in PyTorch's order ``i, f, g, o`` (rows of ``weight_ih``):
    ``c' = sigmoid(f) * c + sigmoid(i) * tanh(g)``, ``h' = sigmoid(o) *
    tanh(c')``; with ``proj_size > 0``, ``h'`` is then multiplied by
    ``weight_hr^T`` (Sak et al. 2014).

    Parameters
    ----------
    input_size, hidden_size : int
    num_layers, bias, batch_first, dropout, bidirectional, device, dtype
        As for :class:`RNNBase`.
    proj_size : int, optional
        Size of the projected ``h`` (0: no projection).
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        """Run the network over a sequence.

        Parameters
        ----------
        input : Tensor
            ``(L, N, input_size)``, ``(N, L, input_size)`` with
            ``batch_first``, or unbatched ``(L, input_size)``.
        hx : tuple of Tensor, optional
            ``(h_0, c_0)``: ``(D * num_layers, N, H_out)`` and ``(D *
            num_layers, N, hidden_size)`` (2-D unbatched); zeros if omitted.
            ``H_out`` is ``proj_size`` if set, else ``hidden_size``.

        Returns
        -------
        output : Tensor
            ``(L, N, D * H_out)``.
        (h_n, c_n) : tuple of Tensor
            Final states of every layer and direction.

        Raises
        ------
        ValueError
            For an input that is not 2-D or 3-D or of another dtype than the
            weights.
        RuntimeError
            For a wrong feature size, or states of the wrong rank or shape
            (PyTorch's messages).
        """
        input = self._prepare(input)
        batched = self._batched
        x = _sequence_first(input, self.batch_first, batched)
        exp_h = (self.num_layers * (2 if self.bidirectional else 1), x.shape[1],
                 self.proj_size or self.hidden_size)
        exp_c = exp_h[:2] + (self.hidden_size,)
        if hx is None:
            h0, c0 = self._zeros(exp_h, x), self._zeros(exp_c, x)
        else:
            h0, c0 = (_ops._tensor_arg(t) for t in hx)
            if batched and (h0.dim() != 3 or c0.dim() != 3):
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but "
                                   f"got ({h0.dim()}-D, {c0.dim()}-D) tensors")
            if not batched and (h0.dim() != 2 or c0.dim() != 2):
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but "
                                   f"got ({h0.dim()}-D, {c0.dim()}-D) tensors")
            if not batched:
                h0, c0 = _ops.unsqueeze(h0, 1), _ops.unsqueeze(c0, 1)
        self._check_hidden(h0, exp_h, "Expected hidden[0] size {}, got {}")
        self._check_hidden(c0, exp_c, "Expected hidden[1] size {}, got {}")
        out, (h_n, c_n) = self._run(x, [h0, c0])
        out = _restore(out, self.batch_first, batched)
        if not batched:
            h_n, c_n = _ops.squeeze(h_n, 1), _ops.squeeze(c_n, 1)
        return out, (h_n, c_n)


# --------------------------------------------------------------------------
# cells


class RNNCellBase(Module):
    """Base of the cells: ``weight_ih`` ``(G * hidden_size, input_size)``,
    ``weight_hh`` ``(G * hidden_size, hidden_size)``, ``bias_ih``/``bias_hh``
    ``(G * hidden_size,)``, all from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Parameters
    ----------
    input_size, hidden_size : int
    bias : bool
    num_chunks : int
        ``G``: 1 (RNN), 3 (GRU) or 4 (LSTM).
    device : 'cpu' or None, optional
    dtype : dtype, optional
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        check_device(device)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_creation.empty(num_chunks * hidden_size, input_size,
                                                   dtype=dtype))
        self.weight_hh = Parameter(_creation.empty(num_chunks * hidden_size, hidden_size,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s

    def _prepare(self, input, states):
        """``input`` and ``states`` as 2-D tensors, with PyTorch's checks."""
        input = _ops._tensor_arg(input)
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        batched = input.dim() == 2
        if not batched:
            input = _ops.unsqueeze(input, 0)
        out = []
        for k, s in enumerate(states):
            if s is None:
                s = Tensor._wrap(np.zeros((input.shape[0], self.hidden_size),
                                          input._data.dtype))
            else:
                s = _ops._tensor_arg(s)
                if not batched:
                    s = _ops.unsqueeze(s, 0)
            out.append(s)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        for k, s in enumerate(out):
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match "
                                   f"hidden{k} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got "
                                   f"{s.shape[1]}, expected {self.hidden_size}")
        return input, out, batched

    def _gates(self, input, h):
        """``(x W_ih^T + b_ih, h W_hh^T + b_hh)``."""
        return (F.linear(input, self.weight_ih, self.bias_ih),
                F.linear(h, self.weight_hh, self.bias_hh))


def _unbatch(t, batched):
    return t if batched else _ops.squeeze(t, 0)


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Parameters
    ----------
    input_size, hidden_size : int
    bias : bool, optional
    nonlinearity : {'tanh', 'relu'}, optional
    device, dtype : optional
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """``h'`` from ``input`` ``(N, input_size)`` or ``(input_size,)`` and ``hx``.

        Returns
        -------
        Tensor
            ``(N, hidden_size)`` (``(hidden_size,)`` unbatched).

        Raises
        ------
        ValueError
            For an input that is not 1-D or 2-D.
        RuntimeError
            For inconsistent sizes (PyTorch's messages) or an unknown
            nonlinearity.
        """
        input, (h,), batched = self._prepare(input, [hx])
        a, b = self._gates(input, h)
        pre = _ops.add(a, b)
        if self.nonlinearity == "tanh":
            out = _ops.tanh(pre)
        elif self.nonlinearity == "relu":
            out = _ops.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return _unbatch(out, batched)


class LSTMCell(RNNCellBase):
    """One LSTM step (gates ``i, f, g, o``): returns ``(h', c')``.

    Parameters
    ----------
    input_size, hidden_size : int
    bias : bool, optional
    device, dtype : optional
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        """``(h', c')`` from ``input`` and ``hx = (h, c)`` (zeros if omitted).

        Returns
        -------
        tuple of Tensor
            Each ``(N, hidden_size)`` (``(hidden_size,)`` unbatched).

        Raises
        ------
        ValueError, RuntimeError
            As :meth:`RNNCell.forward`.
        """
        states = [None, None] if hx is None else list(hx)
        input, (h, c), batched = self._prepare(input, states)
        a, b = self._gates(input, h)
        i, f, g, o = _split(_ops.add(a, b), 4)
        c = _ops.add(_ops.mul(_ops.sigmoid(f), c), _ops.mul(_ops.sigmoid(i), _ops.tanh(g)))
        h = _ops.mul(_ops.sigmoid(o), _ops.tanh(c))
        return _unbatch(h, batched), _unbatch(c, batched)


class GRUCell(RNNCellBase):
    """One GRU step (gates ``r, z, n``; ``b_hn`` inside ``r * (...)``): returns ``h'``.

    Parameters
    ----------
    input_size, hidden_size : int
    bias : bool, optional
    device, dtype : optional
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        """``h'`` from ``input`` and ``hx`` (zeros if omitted).

        Returns
        -------
        Tensor
            ``(N, hidden_size)`` (``(hidden_size,)`` unbatched).

        Raises
        ------
        ValueError, RuntimeError
            As :meth:`RNNCell.forward`.
        """
        input, (h,), batched = self._prepare(input, [hx])
        a, b = self._gates(input, h)
        xr, xz, xn = _split(a, 3)
        hr, hz, hn = _split(b, 3)
        r = _ops.sigmoid(_ops.add(xr, hr))
        z = _ops.sigmoid(_ops.add(xz, hz))
        n = _ops.tanh(_ops.add(xn, _ops.mul(r, hn)))
        h = _ops.add(n, _ops.mul(z, _ops.sub(h, n)))
        return _unbatch(h, batched)
