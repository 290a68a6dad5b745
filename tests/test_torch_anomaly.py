"""``torch.autograd.detect_anomaly`` / ``set_detect_anomaly`` against PyTorch 2.13:
the NaN-producing backward function is named in the same RuntimeError, after a
UserWarning holding the traceback of the forward call that recorded it; the mode
flags, context-manager, decorator and function forms behave as PyTorch's."""
import warnings

import numpy as np
import pytest

import tracegrad.torch as tt


def _nan_backward(torch):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    z = (torch.log(x) * 0).sum()  # d log(x)/dx at 0 is inf; inf * 0 is NaN
    return x, z


@pytest.mark.parametrize("lib", ["tracegrad", "torch"])
def test_nan_in_backward_raises_with_the_forward_traceback(lib):
    torch = tt if lib == "tracegrad" else pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"), torch.autograd.detect_anomaly():
            x, z = _nan_backward(torch)
            with pytest.raises(RuntimeError) as err:
                z.backward()
    assert str(err.value) == "Function 'LogBackward0' returned nan values in its 0th output."
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("Anomaly Detection has been enabled.") for m in messages)
    trace = [m for m in messages if m.startswith("Error detected in LogBackward0.")]
    assert trace and "Traceback of forward call that caused the error" in trace[0]
    assert "torch.log(x) * 0" in trace[0] and "test_torch_anomaly.py" in trace[0]
    if lib == "tracegrad":  # the engine's own frames are left out, as PyTorch shows none
        assert "_autograd.py" not in trace[0] and "_ops.py" not in trace[0]
    assert not torch.is_anomaly_enabled()


@pytest.mark.parametrize("lib", ["tracegrad", "torch"])
def test_flags_function_form_and_check_nan(lib):
    torch = tt if lib == "tracegrad" else pytest.importorskip("torch")
    assert (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()) == (False, True)
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert not torch.is_anomaly_enabled()
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
        with np.errstate(all="ignore"):
            x, z = _nan_backward(torch)
            z.backward()  # no NaN check: the NaN gradient arrives
        assert np.isnan(x.grad.numpy()[0])
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


def test_decorator_and_no_anomaly_without_the_mode():
    @tt.autograd.set_detect_anomaly(False)
    def run():
        return tt.is_anomaly_enabled()

    assert run() is False
    with np.errstate(all="ignore"):
        x, z = _nan_backward(tt)
        z.backward()  # mode off: no check
    assert np.isnan(x.grad.numpy()[0])
    # a finite backward under the mode runs as usual
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tt.autograd.detect_anomaly():
            y = tt.tensor([1.0, 2.0], requires_grad=True)
            (y * y).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 4.0])
