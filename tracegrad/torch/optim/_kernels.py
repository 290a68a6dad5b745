"""Numba kernels of the optimizers' updates (imported on first use: imports Numba).

Each kernel is one pass over a parameter's flat (1-D, C-contiguous) data, its
gradient and its state, doing the same float operations in the same order
as the NumPy formulas in :mod:`.optimizer` (which is PyTorch's order), in the
parameter's dtype: no fastmath, so every operation rounds as NumPy's does
and the results are bitwise those of the NumPy path.
"""
import numba
import numpy as np

_EXACT = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(**_EXACT)
def adam_kernel(p, g, m, v, decay, coupled_wd, w1, beta2, w2, bias2_sqrt, eps, step_size):
    """One Adam/AdamW step on flat arrays (all scalars of the arrays' dtype).

    ``decay`` scales ``p`` first (AdamW's ``1 - lr * wd``; 1 for Adam);
    ``coupled_wd`` adds ``wd * p`` to the gradient (Adam's L2 term; 0 for
    AdamW).  Then ``m += (g - m) * w1``, ``v = v * beta2 + w2 * g * g``,
    ``p -= step_size * (m / (sqrt(v) / bias2_sqrt + eps))``.
    """
    for i in range(p.size):
        x = p[i]
        if decay != 1:
            x = x * decay
        gi = g[i]
        if coupled_wd != 0:
            gi = gi + coupled_wd * x
        mi = m[i] + (gi - m[i]) * w1
        vi = v[i] * beta2 + w2 * gi * gi
        m[i] = mi
        v[i] = vi
        p[i] = x - step_size * (mi / (np.sqrt(vi) / bias2_sqrt + eps))
