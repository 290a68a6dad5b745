"""``tracegrad.Array``: the NumPy array type that ``tracegrad.numpy`` returns.

An :class:`Array` is an ``np.ndarray`` (``isinstance(a, np.ndarray)`` holds,
and every NumPy function and method takes it) that also has JAX's ``a.at``
and accepts traced indices (``a[i]`` with ``i`` a tracer, inside ``vmap``,
``grad``, ``jvp`` and nestings of them).  Those two members are installed by
:mod:`tracegrad.numpy` when it is imported (they use its indexing); this
module, in the core layer, only declares the type, so that the transforms
can recognise an Array and hand it to the interpreters as a plain ndarray.

Keeping tracegrad's internals on plain ndarrays
-----------------------------------------------
A ufunc on a subclass of ndarray costs about twice as much on small arrays
as on a plain ndarray (NumPy wraps every result in the subclass).  So:

* the transforms (``grad``, ``vjp``, ``jvp``, ``jacfwd``, ``jacrev``,
  ``hessian``, ``vmap``) strip the subclass from their inputs, and
* ``__array_priority__`` is below ndarray's 0.0: NumPy then gives an
  operation that mixes an Array with a plain ndarray a plain ndarray (it
  keeps the subclass of the operand with the highest priority).  A constant
  Array closed over by a transformed function thus meets the traced values
  (plain ndarrays) and the results are plain again; only arithmetic among
  Arrays (and Arrays with scalars) stays an Array.
"""
import numpy as np

__all__ = ["Array"]


class Array(np.ndarray):
    """A NumPy ndarray with JAX's ``.at`` and traced indexing.

    What ``tracegrad.numpy`` functions return on concrete input (``tnp.zeros``,
    ``tnp.sin``, ``tnp.linalg.inv``, ...); ``tnp.asarray(x)`` views any array
    as one without copying.  It is mutable, as every NumPy array is
    (``a[i] = v`` writes in place); ``a.at[i].set(v)`` returns a new array.
    Pickling, copying, printing (as ``array(...)``) and every NumPy function
    behave as for a plain ndarray; ``np.asarray(a)`` is a plain ndarray view.
    """

    __slots__ = ()
    __module__ = "tracegrad"  # its public name (pickles refer to tracegrad.Array)
    __array_priority__ = -1.0

    def __repr__(self):
        return repr(self.view(np.ndarray))
