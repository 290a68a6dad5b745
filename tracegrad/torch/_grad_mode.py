"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Thread-local, as in PyTorch: each thread starts with grad mode on.  Each
class works as a context manager and as a function decorator.
"""
import functools
import inspect
import threading
import warnings

__all__ = [
    "is_grad_enabled", "no_grad", "enable_grad", "set_grad_enabled",
    "inference_mode", "is_inference_mode_enabled", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
]


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False


_state = _State()


def is_grad_enabled():
    """True if operations on tensors that require grad are recorded."""
    return _state.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return _state.inference


class _Mode:
    """Base of the grad-mode context managers (also usable as decorators)."""

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)

        return wrapper

    _args = ()

    def _wrap_generator(self, fn):
        # The mode holds while the generator's own code runs (each resumption),
        # not while its consumer runs, as in PyTorch.
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with self.__class__(*self._args):
                    item = gen.send(None)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:
                        with self.__class__(*self._args):
                            gen.close()
                        raise
                    except BaseException as exc:  # thrown into the generator
                        with self.__class__(*self._args):
                            item = gen.throw(exc)
                    else:
                        with self.__class__(*self._args):
                            item = gen.send(sent)
            except StopIteration as stop:
                return stop.value

        return wrapper

    def __enter__(self):
        self._prev = (_state.enabled, _state.inference)
        self._set()
        return None

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def clone(self):
        return self.__class__(*self._args)


class _Bare:
    """``@no_grad`` without parentheses decorates directly (as PyTorch allows)."""

    def __new__(cls, fn=None):
        if fn is not None and callable(fn):
            return super().__new__(cls)(fn)
        return super().__new__(cls)

    def __init__(self, fn=None):
        pass


class no_grad(_Bare, _Mode):  # noqa: N801 - PyTorch's name
    """Context manager / decorator that disables recording of operations."""

    def _set(self):
        _state.enabled = False


class enable_grad(_Bare, _Mode):  # noqa: N801
    """Context manager / decorator that enables recording (inside ``no_grad``)."""

    def _set(self):
        _state.enabled = True


class set_grad_enabled(_Mode):  # noqa: N801
    """Set grad mode to ``mode``: as a function call, or as a context manager.

    Parameters
    ----------
    mode : bool
    """

    def __init__(self, mode):
        self._args = (bool(mode),)
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = bool(mode)  # takes effect immediately, as in PyTorch

    def _set(self):
        _state.enabled = self._args[0]

    def __enter__(self):
        return None  # the previous mode was captured at construction

    def __call__(self, fn):
        _state.enabled, _state.inference = self._prev  # used as a decorator
        return super().__call__(fn)


class inference_mode(_Mode):  # noqa: N801
    """Like ``no_grad`` (tensors created inside are never recorded).

    Parameters
    ----------
    mode : bool, optional
        ``inference_mode(False)`` is a no-op.
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            # @inference_mode without parentheses decorates directly
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._args = (bool(mode),)

    def __call__(self, fn=None):
        if fn is None:
            return self
        return super().__call__(fn)

    def _set(self):
        if self._args[0]:
            _state.enabled = False
            _state.inference = True


# --------------------------------------------------------------------------
# anomaly detection (global, as in PyTorch, not thread-local)


class _Anomaly:
    enabled = False
    check_nan = True


anomaly = _Anomaly()


def is_anomaly_enabled():
    """True while anomaly detection is on (:class:`detect_anomaly`)."""
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    """True if anomaly detection also checks backward results for NaN."""
    return anomaly.check_nan


class set_detect_anomaly(_Mode):  # noqa: N801 - PyTorch's name
    """Turn anomaly detection on or off: as a call, a context manager or a decorator.

    With it on, every recorded operation keeps the traceback of its forward
    call, and (``check_nan``) a backward function returning NaN raises
    ``RuntimeError("Function 'XBackward0' returned nan values in its 0th
    output.")`` after a ``UserWarning`` printing that forward traceback.

    Parameters
    ----------
    mode : bool
    check_nan : bool, optional
    """

    def __init__(self, mode, check_nan=True):
        self._args = (mode, check_nan)
        self.prev = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled, anomaly.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev
        return False

    def clone(self):
        return type(self)(anomaly.enabled, anomaly.check_nan)


class detect_anomaly(_Mode):  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) turning anomaly detection on; see
    :class:`set_detect_anomaly`.  Warns that it slows the program down, as
    PyTorch does.

    Parameters
    ----------
    check_nan : bool, optional
    """

    def __init__(self, check_nan=True):
        self._args = (check_nan,)
        self.check_nan = check_nan
        self.prev = None
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self.prev = (anomaly.enabled, anomaly.check_nan)
        anomaly.enabled, anomaly.check_nan = True, bool(self.check_nan)

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev
        return False

    def clone(self):
        return type(self)(self.check_nan)
