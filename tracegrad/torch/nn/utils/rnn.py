"""``nn.utils.rnn``: ``pad_sequence`` (PyTorch's signature, errors and ``CopySlices`` graph)."""
from collections.abc import Iterable

from ... import _creation

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length sequences into one tensor, padded to the longest.

    Parameters
    ----------
    sequences : iterable of Tensor
        Each of shape ``(L_i, *)`` with the same trailing dimensions (a
        tensor is split along its first dimension).
    batch_first : bool, optional
        Output ``(B, L, *)`` instead of ``(L, B, *)``.
    padding_value : float, optional
        Default 0.
    padding_side : {"right", "left"}, optional
        Where the padding goes.

    Returns
    -------
    Tensor
        Of the first sequence's dtype; differentiable with respect to every
        sequence (the values are written into a filled tensor by index
        assignment, so ``grad_fn`` is ``CopySlices`` when one requires grad).

    Raises
    ------
    RuntimeError
        For a non-iterable argument, no sequences, an unknown
        ``padding_side``, or trailing shapes that differ.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    for s in sequences[1:]:
        other = tuple(s.shape[1:])
        if other != trailing:
            for dim, (a, b) in enumerate(zip(trailing, other), start=1):
                if a != b:
                    raise RuntimeError(f"The size of tensor a ({a}) must match the size of "
                                       f"tensor b ({b}) at non-singleton dimension {dim}")
            raise RuntimeError("pad_sequence: the sequences' trailing dimensions differ: "
                               f"{trailing} and {other}")
    longest = max(s.shape[0] for s in sequences)
    n = len(sequences)
    shape = (n, longest) + trailing if batch_first else (longest, n) + trailing
    out = _creation.full(shape, padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        length = s.shape[0]
        rows = slice(0, length) if padding_side == "right" else slice(longest - length, longest)
        if batch_first:
            out[i, rows] = s
        else:
            out[rows, i] = s
    return out

