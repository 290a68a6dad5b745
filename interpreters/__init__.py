"""Interpreters: eval, forward mode (JVP) and reverse mode (VJP).

Each interpreter is a :class:`tracegrad.core.Trace` subclass with its own tracer
type and one op-agnostic ``process_primitive``; no interpreter contains
op-specific math.  Batching and staging interpreters slot in the same way.
"""
if __name__ != "tracegrad.interpreters":  # the folder is only a subpackage of tracegrad
    raise ImportError(
        "'interpreters' is a folder of the tracegrad repository, not a package of its own: "
        "install tracegrad (pip install -e .) and import tracegrad.interpreters."
    )

from ..core import EvalTrace, Trace, Tracer, UnexpectedTracerError, current_trace

__all__ = ["EvalTrace", "Trace", "Tracer", "UnexpectedTracerError", "current_trace"]
