"""Coverage of ``tracegrad.numpy`` and ``tracegrad.scipy`` against JAX's and autograd's namespaces.

    python benchmarks/api_coverage.py               # percentages and the missing names
    python benchmarks/api_coverage.py --markdown    # the same as Markdown, for the README
    python benchmarks/api_coverage.py --verbose     # also the error of every failed call

Introspects the installed libraries (nothing is hard-coded but the argument
table below):

* ``jax.numpy``, ``jax.numpy.linalg`` and ``jax.numpy.fft``: every public
  callable that is not a class (dtypes such as ``jnp.float32`` and classes
  such as ``jnp.ndarray`` are left out);
* HIPS autograd's VJP registry (``autograd.core.primitive_vjps``, filled by
  ``defvjp``): every public name of ``autograd.numpy``, ``autograd.numpy.linalg``
  and ``autograd.numpy.fft`` that is a registered primitive or a thin wrapper
  of one of the same name (``mean``, ``var``, ``std``, ``where``), and that
  NumPy's namespace of the same path also has (autograd's own helpers such
  as ``array_from_args`` or ``truncate_pad`` are left out).

* ``jax.scipy.special``, ``jax.scipy.linalg``, ``jax.scipy.signal`` and
  ``jax.scipy.integrate``: every public callable that is not a class;
  ``jax.scipy.stats``: every method of every distribution module, named
  ``dist.method`` (``norm.logpdf``), plus the module-level functions and
  classes (``gaussian_kde``, ``mode``, ``rankdata``, ``sem``);
* HIPS autograd's scipy registry: the names of ``autograd.scipy.special``,
  ``.linalg``, ``.signal``, ``.integrate`` and of the ``autograd.scipy.stats``
  distribution modules (``norm.cdf``) that are registered primitives (the
  special functions the stats modules import, such as ``gamma`` in
  ``autograd.scipy.stats.gamma``, are left out; autograd 1.9 has no
  ``autograd.scipy.misc``: its ``logsumexp`` is in ``special``).

For each name it reports whether the matching tracegrad namespace
(``tracegrad.numpy``, ``.linalg``, ``.fft``, ``tracegrad.scipy.special``, ...;
``tracegrad.scipy.stats.norm`` for ``norm.logpdf``) has it, and whether calling it
once on a tracer works: the call runs inside ``tracegrad.vjp`` with a small
float64 input and the pullback is applied to a cotangent of ones.  The input
is a 1-D float vector ``x`` of length 4 (values in (0, 1)); names for which
it does not fit have an entry in ``ARGS`` (for example a matrix for
``linalg``, integer sizes for the creation functions).  Names with no entry
are tried as ``f(x)``, then ``f(x, x)`` (for the scipy namespaces up to
``f(x, x, x, x)``, so that shape parameters in (0, 1) fill the
distributions' and special functions' arguments; matrices for ``linalg``).

The script reports; it does not fail.  ``--markdown`` prints the tables the
README quotes.
"""
import argparse
import importlib
import pkgutil
import sys
import warnings

import numpy as np

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.core import Tracer
from tracegrad.tree_util import tree_leaves, tree_map

X0 = np.array([0.3, 0.5, 0.7, 0.9])


def _mat(x):
    """A 2x2 symmetric positive definite matrix from the traced vector."""
    m = tnp.reshape(x, (2, 2))
    return m @ tnp.transpose(m) + tnp.eye(2)


def _ints(x):
    """An int64 tracer from the traced vector (values 3, 5, 7, 9)."""
    return tnp.astype(x * 10.0, np.int64)


def _mat3(x):
    """A 2x2x2 stack of such matrices (batched linalg)."""
    return tnp.stack([_mat(x), 2.0 * _mat(x)])


# name -> call(f, x): how to call ``f`` on the traced vector ``x``.  Each entry
# uses the input the way the function's users do; the result must depend on
# ``x`` wherever the function is differentiable.
ARGS = {
    # creation: concrete sizes (the tracer is added so the result is traced)
    "arange": lambda f, x: f(4) + x,
    "zeros": lambda f, x: f(4) + x, "ones": lambda f, x: f(4) + x,
    "empty": lambda f, x: f(4) * 0.0 + x, "full": lambda f, x: f(4, x[0]),
    "eye": lambda f, x: f(2) @ tnp.reshape(x, (2, 2)),
    "identity": lambda f, x: f(2) @ tnp.reshape(x, (2, 2)),
    "linspace": lambda f, x: f(x[0], x[1], 4), "logspace": lambda f, x: f(x[0], x[1], 4),
    "geomspace": lambda f, x: f(x[0], x[1], 4),
    "tri": lambda f, x: f(2) @ tnp.reshape(x, (2, 2)),
    "indices": lambda f, x: f((2, 2)), "diag_indices": lambda f, x: f(2),
    "tril_indices": lambda f, x: f(3), "triu_indices": lambda f, x: f(3),
    "mask_indices": lambda f, x: f(3, tnp.triu),
    "hanning": lambda f, x: f(4) * x, "hamming": lambda f, x: f(4) * x,
    "blackman": lambda f, x: f(4) * x, "bartlett": lambda f, x: f(4) * x,
    "kaiser": lambda f, x: f(4, 5.0) * x,
    "fftfreq": lambda f, x: f(4) * x, "rfftfreq": lambda f, x: f(6) * x,
    "fromfunction": lambda f, x: f(lambda i: i * 1.0, (4,)) * x,
    "fromiter": lambda f, x: f(iter([1.0, 2.0, 3.0, 4.0]), float) * x,
    "frombuffer": lambda f, x: f(np.arange(4.0).tobytes()) * x,
    "fromstring": lambda f, x: f("1 2 3 4", sep=" ") * x,
    # shapes and axes
    "reshape": lambda f, x: f(x, (2, 2)), "resize": lambda f, x: f(x, (3, 2)),
    "broadcast_to": lambda f, x: f(x, (2, 4)), "tile": lambda f, x: f(x, 2),
    "repeat": lambda f, x: f(x, 2), "expand_dims": lambda f, x: f(x, 0),
    "squeeze": lambda f, x: f(tnp.reshape(x, (1, 4))),
    "swapaxes": lambda f, x: f(tnp.reshape(x, (2, 2)), 0, 1),
    "moveaxis": lambda f, x: f(tnp.reshape(x, (2, 2)), 0, 1),
    "rollaxis": lambda f, x: f(tnp.reshape(x, (2, 2)), 1),
    "permute_dims": lambda f, x: f(tnp.reshape(x, (2, 2)), (1, 0)),
    "matrix_transpose": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "transpose": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "rot90": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "fliplr": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "flipud": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "roll": lambda f, x: f(x, 1), "take": lambda f, x: f(x, np.array([0, 2])),
    "take_along_axis": lambda f, x: f(x, np.array([1, 0]), axis=0),
    "put": lambda f, x: f(x, np.array([0]), x[1], inplace=False),
    "put_along_axis": lambda f, x: f(x, np.array([0]), x[1], axis=0, inplace=False),
    "place": lambda f, x: f(x, x > 0.4, x[:1], inplace=False),
    "pad": lambda f, x: f(x, 1),
    "split": lambda f, x: f(x, 2), "array_split": lambda f, x: f(x, 3),
    "hsplit": lambda f, x: f(x, 2), "vsplit": lambda f, x: f(tnp.reshape(x, (2, 2)), 2),
    "dsplit": lambda f, x: f(tnp.reshape(x, (1, 2, 2)), 2),
    "insert": lambda f, x: f(x, 1, x[0]), "delete": lambda f, x: f(x, 1),
    "append": lambda f, x: f(x, x), "unstack": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "diagonal": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "trace": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "diag_indices_from": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "tril_indices_from": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "triu_indices_from": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "fill_diagonal": lambda f, x: f(tnp.reshape(x, (2, 2)), x[0], inplace=False),
    "tril": lambda f, x: f(tnp.reshape(x, (2, 2))), "triu": lambda f, x: f(tnp.reshape(x, (2, 2))),
    # joining: sequences of arrays
    "concatenate": lambda f, x: f([x, x]), "concat": lambda f, x: f([x, x]),
    "stack": lambda f, x: f([x, x]), "hstack": lambda f, x: f([x, x]),
    "vstack": lambda f, x: f([x, x]), "dstack": lambda f, x: f([x, x]),
    "column_stack": lambda f, x: f([x, x]), "block": lambda f, x: f([x, x]),
    "broadcast_arrays": lambda f, x: f(x, tnp.reshape(x, (4, 1))),
    "meshgrid": lambda f, x: f(x, x), "ix_": lambda f, x: f(np.array([0, 1]), np.array([1])),
    "einsum": lambda f, x: f("i,i->", x, x), "einsum_path": lambda f, x: f("i,i->", x, x),
    "matmul": lambda f, x: f(tnp.reshape(x, (2, 2)), x[:2]),
    "matvec": lambda f, x: f(tnp.reshape(x, (2, 2)), x[:2]),
    "vecmat": lambda f, x: f(x[:2], tnp.reshape(x, (2, 2))),
    "tensordot": lambda f, x: f(x, x, 1), "cross": lambda f, x: f(x[:3], x[1:]),
    "kron": lambda f, x: f(x[:2], x), "polyval": lambda f, x: f(x, 0.5),
    "polyfit": lambda f, x: f(np.array([0.0, 1.0, 2.0, 3.0]), x, 1),
    "roots": lambda f, x: f(tnp.concatenate([np.ones(1), x[:2]])),
    "piecewise": lambda f, x: f(x, [x < 0.5], [lambda v: v * 2.0, lambda v: v]),
    "select": lambda f, x: f([x < 0.5], [x * 2.0], 0.0),
    "choose": lambda f, x: f(np.array([0, 1, 0, 1]), [x, 2.0 * x]),
    "compress": lambda f, x: f(np.array([True, False, True, True]), x),
    "extract": lambda f, x: f(np.array([True, False, True, True]), x),
    "where": lambda f, x: f(x > 0.5, x, 0.0),
    "clip": lambda f, x: f(x, 0.4, 0.8),
    "searchsorted": lambda f, x: f(x, 0.6), "digitize": lambda f, x: f(x, np.array([0.5])),
    "histogram": lambda f, x: f(x, bins=2), "histogram_bin_edges": lambda f, x: f(x, bins=2),
    "histogram2d": lambda f, x: f(x, x, bins=2),
    "histogramdd": lambda f, x: f(tnp.reshape(x, (2, 2)), bins=2),
    "bincount": lambda f, x: f(np.array([0, 1, 1, 3]), weights=x),
    "interp": lambda f, x: f(x, np.array([0.0, 1.0]), np.array([1.0, 3.0])),
    "apply_along_axis": lambda f, x: f(tnp.sum, 0, tnp.reshape(x, (2, 2))),
    "apply_over_axes": lambda f, x: f(tnp.sum, tnp.reshape(x, (2, 2)), [0]),
    "vectorize": lambda f, x: f(lambda v: v * v)(x),
    "frompyfunc": lambda f, x: f(lambda v: v * v, 1, 1)(x),
    "partition": lambda f, x: f(x, 1), "argpartition": lambda f, x: f(x, 1),
    "lexsort": lambda f, x: f([x, x]),
    "unravel_index": lambda f, x: f(np.array([3]), (2, 2)),
    "ravel_multi_index": lambda f, x: f((np.array([1]), np.array([1])), (2, 2)),
    "isin": lambda f, x: f(x, x[:2]), "in1d": lambda f, x: f(x, x[:2]),
    "quantile": lambda f, x: f(x, 0.3), "nanquantile": lambda f, x: f(x, 0.3),
    "percentile": lambda f, x: f(x, 30.0), "nanpercentile": lambda f, x: f(x, 30.0),
    "astype": lambda f, x: f(x, np.float32),
    "round": lambda f, x: f(x, 1), "around": lambda f, x: f(x, 1),
    "ldexp": lambda f, x: f(x, np.array([1, 2, 0, -1])),
    "left_shift": lambda f, x: f(np.array([1, 2]), 1), "right_shift": lambda f, x: f(np.array([4]), 1),
    "bitwise_left_shift": lambda f, x: f(np.array([1, 2]), 1),
    "bitwise_right_shift": lambda f, x: f(np.array([4]), 1),
    "gcd": lambda f, x: f(np.array([4, 6]), 4), "lcm": lambda f, x: f(np.array([4, 6]), 4),
    "packbits": lambda f, x: f(x > 0.5), "unpackbits": lambda f, x: f(np.array([3], np.uint8)),
    "bitwise_count": lambda f, x: f(np.array([3])),
    # integer functions: an integer tracer, cast from the traced vector
    "bitwise_and": lambda f, x: f(_ints(x), 3), "bitwise_or": lambda f, x: f(_ints(x), 3),
    "bitwise_xor": lambda f, x: f(_ints(x), 3), "bitwise_not": lambda f, x: f(_ints(x)),
    "bitwise_invert": lambda f, x: f(_ints(x)), "invert": lambda f, x: f(_ints(x)),
    "result_type": lambda f, x: f(x, 1.0), "broadcast_shapes": lambda f, x: f((2, 1), (1, 3)), "promote_types": lambda f, x: f(np.float32, np.float64),
    "can_cast": lambda f, x: f(np.float32, np.float64),
    "isdtype": lambda f, x: f(np.float64, "real floating"),
    "issubdtype": lambda f, x: f(np.float64, np.floating),
    "iterable": lambda f, x: f(x), "trim_zeros": lambda f, x: f(x),
    "vander": lambda f, x: f(x, 3), "tensorsolve": lambda f, x: f(_mat(x), x[:2]),
    "gradient": lambda f, x: f(x), "trapezoid": lambda f, x: f(x),
    "unwrap": lambda f, x: f(x * 10.0),
    # linalg
    "cholesky": lambda f, x: f(_mat(x)), "det": lambda f, x: f(_mat(x)),
    "eig": lambda f, x: f(_mat(x)), "eigh": lambda f, x: f(_mat(x)),
    "eigvals": lambda f, x: f(_mat(x)), "eigvalsh": lambda f, x: f(_mat(x)),
    "inv": lambda f, x: f(_mat(x)), "pinv": lambda f, x: f(_mat(x)),
    "lstsq": lambda f, x: f(_mat(x), x[:2]), "solve": lambda f, x: f(_mat(x), x[:2]),
    "matrix_norm": lambda f, x: f(_mat(x)), "matrix_power": lambda f, x: f(_mat(x), 2),
    "matrix_rank": lambda f, x: f(_mat(x)), "multi_dot": lambda f, x: f([_mat(x), _mat(x), x[:2]]),
    "qr": lambda f, x: f(_mat(x)), "slogdet": lambda f, x: f(_mat(x)),
    "svd": lambda f, x: f(_mat(x) + tnp.diag(x[:2])), "svdvals": lambda f, x: f(_mat(x)),
    "cond": lambda f, x: f(_mat(x)), "tensorinv": lambda f, x: f(_mat(x), ind=1),
    "norm": lambda f, x: f(x), "vector_norm": lambda f, x: f(x),
    # fft
    "fft2": lambda f, x: f(tnp.reshape(x, (2, 2))), "ifft2": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "rfft2": lambda f, x: f(tnp.reshape(x, (2, 2))), "irfft2": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "fftn": lambda f, x: f(tnp.reshape(x, (2, 2))), "ifftn": lambda f, x: f(tnp.reshape(x, (2, 2))),
    "rfftn": lambda f, x: f(tnp.reshape(x, (2, 2))), "irfftn": lambda f, x: f(tnp.reshape(x, (2, 2))),
}
LINALG_ARGS = {"cross": lambda f, x: f(x[:3], x[1:]), "diagonal": ARGS["diagonal"],
               "outer": lambda f, x: f(x, x), "trace": ARGS["trace"],
               "matmul": ARGS["matmul"], "tensordot": ARGS["tensordot"],
               "vecdot": lambda f, x: f(x, x), "matrix_transpose": ARGS["matrix_transpose"],
               "det": lambda f, x: f(_mat3(x))}



def _tri(x):
    """An upper triangular 2x2 matrix from the traced vector."""
    return tnp.triu(_mat(x))


# scipy namespaces: "module.name" -> call(f, x) (module as in tracegrad.scipy)
SCIPY_ARGS = {
    "special.bernoulli": lambda f, x: f(4)[:4] * x, "special.expn": lambda f, x: f(2, x),
    "special.multigammaln": lambda f, x: f(x + 2.0, 2), "special.polygamma": lambda f, x: f(1, x),
    "special.zeta": lambda f, x: f(3.0, x),  # (differentiable in q, as in JAX)
    # differentiable in x only: the shape parameters are constants
    "special.gammainc": lambda f, x: f(2.5, x), "special.gammaincc": lambda f, x: f(2.5, x),
    "special.betainc": lambda f, x: f(2.0, 3.0, x),
    "special.iv": lambda f, x: f(1.5, x), "special.ive": lambda f, x: f(1.5, x),
    "special.jv": lambda f, x: f(1.5, x), "special.yv": lambda f, x: f(1.5, x),
    **{f"stats.{d}.{m}": (lambda f, x, _p=p: f(x, *_p))
       for d, p in (("gamma", (2.0,)), ("chi2", (3.0,)), ("beta", (2.0, 3.0)), ("t", (4.0,)),
                    ("gennorm", (1.5,)))
       for m in ("cdf", "sf", "logcdf", "logsf")}, "special.comb": lambda f, x: f(10.0 * x, 2.0),
    "special.sph_harm_y": lambda f, x: f(2, 1, x, x), "special.jn": lambda f, x: f(2, x),
    "special.yn": lambda f, x: f(2, x), "special.bessel_jn": lambda f, x: f(x, v=2),
    "special.factorial": lambda f, x: f(10.0 * x), "special.poch": lambda f, x: f(x, 2.0),
    "stats.multivariate_normal.logpdf": lambda f, x: f(x[:2], x[2:], _mat(x)),
    "stats.multivariate_normal.pdf": lambda f, x: f(x[:2], x[2:], _mat(x)),
    "stats.multivariate_normal.entropy": lambda f, x: f(x[:2], _mat(x)),
    "stats.dirichlet.logpdf": lambda f, x: f(x[:3] / tnp.sum(x[:3]), x[:3] + 1.0),
    "stats.dirichlet.pdf": lambda f, x: f(x[:3] / tnp.sum(x[:3]), x[:3] + 1.0),
    "stats.multinomial.logpmf": lambda f, x: f(np.array([1.0, 2.0]), 3, x[:2] / tnp.sum(x[:2])),
    "stats.multinomial.pmf": lambda f, x: f(np.array([1.0, 2.0]), 3, x[:2] / tnp.sum(x[:2])),
    "stats.gaussian_kde": lambda f, x: f(x).logpdf(x),
    "linalg.cho_solve": lambda f, x: f((tnp.linalg.cholesky(_mat(x)), True), x[:2]),
    "linalg.lu_solve": lambda f, x: f(_lu_factor(x), x[:2]),
    "linalg.solve": lambda f, x: f(_mat(x), x[:2]),
    "linalg.solve_triangular": lambda f, x: f(_tri(x), x[:2]),
    "linalg.solve_sylvester": lambda f, x: f(_mat(x), _mat(x), _mat(x)),
    "linalg.solve_banded": lambda f, x: f((1, 1), tnp.stack([x[:3], x[1:], x[:3]]), x[:3]),
    "linalg.expm_frechet": lambda f, x: f(_mat(x), _mat(x)),
    "linalg.block_diag": lambda f, x: f(_mat(x), _mat(x)),
    "linalg.circulant": lambda f, x: f(x), "linalg.companion": lambda f, x: f(x),
    "linalg.convolution_matrix": lambda f, x: f(x, 3), "linalg.fiedler": lambda f, x: f(x),
    "linalg.fiedler_companion": lambda f, x: f(x), "linalg.hankel": lambda f, x: f(x),
    "linalg.toeplitz": lambda f, x: f(x), "linalg.leslie": lambda f, x: f(x, x[:3]),
    "linalg.dft": lambda f, x: f(4) @ x, "linalg.hadamard": lambda f, x: f(4) @ x,
    "linalg.helmert": lambda f, x: f(4) @ x, "linalg.hilbert": lambda f, x: f(4) @ x,
    "linalg.invhilbert": lambda f, x: f(4) @ x, "linalg.pascal": lambda f, x: f(4) @ x,
    "linalg.invpascal": lambda f, x: f(4) @ x,
    "linalg.eigh_tridiagonal": lambda f, x: f(x, x[:3]),
    "linalg.funm": lambda f, x: f(_mat(x), tnp.exp),
    "linalg.qr_multiply": lambda f, x: f(_mat(x), _mat(x)),
    "linalg.rsf2csf": lambda f, x: f(_tri(x), tnp.eye(2) + 0.0 * _mat(x)),
    "signal.istft": lambda f, x: f(tnp.reshape(x, (2, 2)) + 0j, nperseg=2),
    "signal.stft": lambda f, x: f(x, nperseg=2), "signal.welch": lambda f, x: f(x, nperseg=2),
    "signal.csd": lambda f, x: f(x, x, nperseg=2),
    "signal.convolve2d": lambda f, x: f(tnp.reshape(x, (2, 2)), tnp.reshape(x, (2, 2))),
    "signal.correlate2d": lambda f, x: f(tnp.reshape(x, (2, 2)), tnp.reshape(x, (2, 2))),
    "integrate.odeint": lambda f, x: f(lambda y, t: -y, x, np.array([0.0, 0.5])),
}


def _lu_factor(x):
    lin = importlib.import_module("tracegrad.scipy.linalg")  # lazy: the table is built first
    return lin.lu_factor(_mat(x))

def _default_call(f, x):
    try:
        return f(x)
    except TypeError as e:
        if "argument" not in str(e):
            raise
        return f(x, x)


def _scipy_default_call(f, x, first=None):
    """``f(x)``, ``f(x, x)``, ... up to four arguments (``first`` in place of
    the first ``x``: a matrix for linalg)."""
    arg0 = x if first is None else first
    for k in range(4):
        try:
            return f(arg0, *([x] * k))
        except TypeError as e:
            if "argument" not in str(e) or k == 3:
                raise
    raise AssertionError("unreachable")


def _ones(v):
    v = np.asarray(v)
    return np.ones(v.shape, v.dtype) if v.dtype.kind in "fc" else np.zeros(v.shape, float)


def try_call(fn, call):
    """``None`` if ``call(fn, tracer)`` works under ``tg.vjp``, else the error."""
    def f(x):
        out = call(fn, x)
        if callable(out) and not hasattr(out, "shape"):
            raise TypeError(f"returned a callable {out!r}")
        # keep the array leaves (a dtype or a shape tuple is a result too)
        leaves = [v for v in tree_leaves(out) if isinstance(v, (Tracer, np.ndarray, np.generic))]
        return leaves + [x]

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, pullback = tg.vjp(f, X0)
            pullback(tree_map(_ones, out))
    except Exception as e:  # noqa: BLE001 - the report names every failure
        return f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
    return None


def _public(mod):
    return sorted(
        n for n in dir(mod)
        if not n.startswith("_") and callable(getattr(mod, n))
        and not isinstance(getattr(mod, n), type)
    )


def jax_namespaces():
    """``{label: (names, tracegrad module name)}`` from the installed JAX."""
    jnp = importlib.import_module("jax.numpy")  # lazy: optional, heavy
    skip = {"linalg", "fft"}
    return {
        "jax.numpy": ([n for n in _public(jnp) if n not in skip], "tracegrad.numpy"),
        "jax.numpy.linalg": (_public(jnp.linalg), "tracegrad.numpy.linalg"),
        "jax.numpy.fft": (_public(jnp.fft), "tracegrad.numpy.fft"),
    }


def jax_scipy_namespaces():
    """``{label: (names, tracegrad module name)}`` for ``jax.scipy``; stats
    names are ``dist.method`` or module-level functions."""
    out = {}
    for sub in ("special", "linalg", "signal", "integrate"):
        mod = importlib.import_module(f"jax.scipy.{sub}")  # lazy: optional, heavy
        out[f"jax.scipy.{sub}"] = (_public(mod), f"tracegrad.scipy.{sub}")
    st = importlib.import_module("jax.scipy.stats")  # lazy: optional, heavy
    names = []
    for n in dir(st):
        obj = getattr(st, n)
        if n.startswith("_"):
            continue
        if isinstance(obj, type(st)):
            names += [f"{n}.{m}" for m in _public(obj)]
        elif callable(obj):
            names.append(n)  # gaussian_kde (a class), mode, rankdata, sem
    out["jax.scipy.stats"] = (sorted(names), "tracegrad.scipy.stats")
    return out


def autograd_scipy_namespaces():
    """Names of ``autograd.scipy``'s modules that are registered primitives."""
    core = importlib.import_module("autograd.core")  # lazy: optional oracle
    subs = ("special", "linalg", "signal", "integrate")
    mods = {sub: importlib.import_module(f"autograd.scipy.{sub}")  # lazy: optional oracle
            for sub in subs}
    stats = importlib.import_module("autograd.scipy.stats")  # lazy: optional oracle
    dists = {}
    for info in pkgutil.iter_modules(stats.__path__):
        name = f"autograd.scipy.stats.{info.name}"
        dists[info.name] = importlib.import_module(name)  # lazy: optional oracle
    # the registry is filled as those modules import (defvjp)
    ids = {id(p) for p in core.primitive_vjps}
    special = mods["special"]
    special_ids = {id(getattr(special, n)) for n in dir(special)}
    out = {}
    for sub, mod in mods.items():
        got = [n for n in dir(mod) if not n.startswith("_") and id(getattr(mod, n)) in ids]
        out[f"autograd.scipy.{sub}"] = (sorted(got), f"tracegrad.scipy.{sub}")
    names = []
    for dist, mod in dists.items():
        names += [f"{dist}.{n}" for n in dir(mod) if not n.startswith("_")
                  and id(getattr(mod, n)) in ids and id(getattr(mod, n)) not in special_ids]
    out["autograd.scipy.stats"] = (sorted(names), "tracegrad.scipy.stats")
    return out


def autograd_namespaces():
    """Names of autograd's numpy/linalg/fft namespaces with a registered VJP."""
    core = importlib.import_module("autograd.core")  # lazy: optional oracle
    registry = core.primitive_vjps
    ids = {id(p) for p in registry}
    names = {getattr(p, "__name__", "") for p in registry}
    out = {}
    for label, modname, tgname in [
        ("autograd.numpy", "autograd.numpy", "tracegrad.numpy"),
        ("autograd.numpy.linalg", "autograd.numpy.linalg", "tracegrad.numpy.linalg"),
        ("autograd.numpy.fft", "autograd.numpy.fft", "tracegrad.numpy.fft"),
    ]:
        mod = importlib.import_module(modname)
        npmod = importlib.import_module(modname.replace("autograd.", "", 1))
        got = []
        for n in dir(mod):
            obj = getattr(mod, n)
            if (n.startswith("_") or not callable(obj) or isinstance(obj, type)
                    or not hasattr(npmod, n)):
                continue
            if id(obj) in ids or (getattr(obj, "__name__", None) == n and n in names
                                  and getattr(obj, "__module__", "").startswith("autograd.numpy")):
                got.append(n)
        out[label] = (sorted(got), tgname)
    return out


def measure(label, names, tgname):
    try:
        tgmod = importlib.import_module(tgname)
    except ImportError:
        tgmod = None
    rows = []
    scipy_sub = tgname.split(".")[2] if tgname.startswith("tracegrad.scipy.") else None
    for n in names:
        fn = tgmod
        for part in n.split("."):
            fn = getattr(fn, part, None) if fn is not None else None
        has = fn is not None and callable(fn)
        if not has:
            rows.append((n, has, "missing"))
            continue
        if scipy_sub is None:
            table = LINALG_ARGS if tgname.endswith("linalg") else {}
            call = table.get(n, ARGS.get(n, _default_call))
        else:
            call = SCIPY_ARGS.get(f"{scipy_sub}.{n}")
            if call is None and scipy_sub == "linalg":
                call = lambda f, x: _scipy_default_call(f, x, first=_mat(x))  # noqa: E731
            call = call or _scipy_default_call
        rows.append((n, has, try_call(fn, call)))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    p.add_argument("--verbose", action="store_true", help="print every failed call's error")
    args = p.parse_args(argv)
    namespaces = {}
    for source in (jax_namespaces, autograd_namespaces, jax_scipy_namespaces,
                   autograd_scipy_namespaces):
        try:
            namespaces.update(source())
        except ImportError as e:
            print(f"skipped {source.__name__}: {e}", file=sys.stderr)
    results = {label: measure(label, names, tg_) for label, (names, tg_) in namespaces.items()}
    groups = {"jax.numpy": ["jax.numpy"], "jax.numpy.linalg": ["jax.numpy.linalg"],
              "jax.numpy.fft": ["jax.numpy.fft"],
              "autograd numpy+linalg+fft registry": ["autograd.numpy", "autograd.numpy.linalg",
                                                     "autograd.numpy.fft"],
              "jax.scipy.special": ["jax.scipy.special"], "jax.scipy.linalg": ["jax.scipy.linalg"],
              "jax.scipy.stats (dist.method, functions)": ["jax.scipy.stats"],
              "jax.scipy.signal": ["jax.scipy.signal"],
              "jax.scipy.integrate": ["jax.scipy.integrate"],
              "autograd scipy registry": [
                  f"autograd.scipy.{m}" for m in ("special", "stats", "linalg", "signal",
                                                  "integrate")]}
    if args.markdown:
        print("| namespace | names | present in tracegrad | works on a tracer |")
        print("|---|---:|---:|---:|")
    for g, labels in groups.items():
        rows = [r for lab in labels if lab in results for r in results[lab]]
        if not rows:
            continue
        n = len(rows)
        has = sum(r[1] for r in rows)
        ok = sum(r[2] is None for r in rows)
        if args.markdown:
            print(f"| {g} | {n} | {has} ({100 * has / n:.1f}%) | {ok} ({100 * ok / n:.1f}%) |")
        else:
            print(f"{g}: {n} names, {has} present ({100 * has / n:.1f}%), "
                  f"{ok} work on a tracer ({100 * ok / n:.1f}%)")
    print()
    for label, rows in results.items():
        missing = [r[0] for r in rows if not r[1]]
        failing = [(r[0], r[2]) for r in rows if r[1] and r[2] is not None]
        if args.markdown:
            print(f"**{label}**, missing ({len(missing)}): " + (", ".join(f"`{m}`" for m in missing) or "none"))
            print()
            if failing:
                print(f"**{label}**, present but failing on a tracer ({len(failing)}): "
                      + ", ".join(f"`{m}`" for m, _ in failing))
                print()
        else:
            print(f"{label} missing ({len(missing)}): {' '.join(missing) or 'none'}")
            if failing:
                print(f"{label} present, failing on a tracer ({len(failing)}): "
                      f"{' '.join(m for m, _ in failing)}")
            if args.verbose:
                for m, e in failing:
                    print(f"    {m}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
