"""Interpreters: eval, forward mode (JVP, :mod:`.jvp`), reverse mode (VJP,
:mod:`.vjp`), batching (:mod:`.batching`), staging into the typed IR
(:mod:`.staging`) and closure tracing
(:mod:`.closure`, which finds the traced values a call primitive's function
closes over).

Each interpreter is a :class:`tracegrad.core.Trace` subclass with one
op-agnostic ``process_primitive`` (and, except closure tracing, its own
tracer type); no interpreter contains op-specific math.  Interpreters import only the core and
:mod:`tracegrad.primitives`, never :mod:`tracegrad.transforms`.
"""
if __name__ != "tracegrad.interpreters":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'interpreters' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.interpreters."
    )

from ..core import EvalTrace, Trace, Tracer, UnexpectedTracerError, current_trace

__all__ = ["EvalTrace", "Trace", "Tracer", "UnexpectedTracerError", "current_trace"]
