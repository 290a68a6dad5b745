"""The flat namespace of primitive wrappers (what ``lax`` is to JAX).

Rules and the ``tracegrad.numpy`` namespace call primitives through the
wrappers collected here, e.g. ``ops.mul(ct, ops.cos(x))``.  Each wrapper
lives next to its primitive's declaration; this module only gathers them.
"""
# Submodules import this module (as ``ops``) for late-bound access from rule
# bodies, so the names are filled in by ``primitives/__init__`` once every
# submodule has been imported.
