"""torch's global state, put back after an example changed it.

Several examples run in one process (the checks, the build's pictures), and an
example may flip a global switch as a reader's script would: grad mode, the default
dtype, deterministic algorithms, anomaly detection, matmul precision, the number of
threads, print options, warning filters and torch's warn-always switch, torch's logging
(``torch._logging.set_logs(recompiles=True)``, a handler added to a ``torch.*`` logger),
or fill Dynamo's caches and counters by compiling. :func:`torch_state_restored` saves all of it and restores it on the way
out, whatever the example did, so that nothing leaks into the next one
(``tests/test_selftest.py`` flips each switch in one example and reads it in the next).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import sys
import warnings
from collections.abc import Iterator


@contextlib.contextmanager
def torch_state_restored() -> Iterator[None]:
    import torch

    saved = {
        "grad": torch.is_grad_enabled(),
        "dtype": torch.get_default_dtype(),
        "device": getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "anomaly": torch.is_anomaly_enabled(),
        "anomaly_nan": torch.is_anomaly_check_nan_enabled(),
        "matmul": torch.get_float32_matmul_precision(),
        "threads": torch.get_num_threads(),
        "warn_always": torch.is_warn_always_enabled(),
        "cudnn": (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark),
        "print": copy.copy(torch._tensor_str.PRINT_OPTS),
        "logs": copy.deepcopy(torch._logging._internal.log_state),
        "loggers": _torch_loggers(),
    }
    try:
        with warnings.catch_warnings():  # the filters, and the once-per-place registry
            yield
    finally:
        torch.set_grad_enabled(saved["grad"])
        torch.set_default_dtype(saved["dtype"])
        if getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None) is not saved["device"]:
            # set_default_device(d) enters a mode of its own; None leaves none behind
            torch.set_default_device(saved["device"].device if saved["device"] else None)
        deterministic = (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        )
        if deterministic != (saved["deterministic"], saved["warn_only"]):
            # only when changed: the call imports Inductor (3 s on 2 cores) to tell it
            torch.use_deterministic_algorithms(saved["deterministic"], warn_only=saved["warn_only"])
        torch.autograd.set_detect_anomaly(saved["anomaly"], check_nan=saved["anomaly_nan"])
        torch.set_float32_matmul_precision(saved["matmul"])
        torch.set_warn_always(saved["warn_always"])
        if torch.get_num_threads() != saved["threads"]:
            torch.set_num_threads(saved["threads"])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = saved["cudnn"]
        torch._tensor_str.PRINT_OPTS = saved["print"]
        _restore_logging(saved["logs"], saved["loggers"])
        if "torch._dynamo" in sys.modules:  # only if something imported it
            dynamo = sys.modules["torch._dynamo"]
            dynamo.reset()  # compiled code and its guards
            dynamo.utils.counters.clear()  # what explain() and the counters report


def _torch_loggers() -> dict[str, tuple]:
    """Each ``torch.*`` logger's level, propagation, handlers and disabled flag."""
    return {
        name: (log.level, log.propagate, list(log.handlers), log.disabled)
        for name, log in list(logging.root.manager.loggerDict.items())
        if isinstance(log, logging.Logger) and (name == "torch" or name.startswith("torch."))
    }


def _restore_logging(state, loggers: dict[str, tuple]) -> None:
    """Put torch's log settings (what set_logs() or TORCH_LOGS chose) back as saved."""
    internal = sys.modules["torch._logging._internal"]
    if internal.log_state == state and _torch_loggers() == loggers:
        return  # the usual case: nothing to redo
    internal.log_state = state
    internal._init_logs()  # every registered and artifact logger, set up from the state
    for name, log in list(logging.root.manager.loggerDict.items()):
        if not isinstance(log, logging.Logger) or name not in loggers:
            if isinstance(log, logging.Logger) and name.startswith("torch."):
                # made during the example: keep only torch's own handlers on it
                log.handlers = [h for h in log.handlers if internal._is_torch_handler(h)]
            continue
        level, log.propagate, handlers, log.disabled = loggers[name]
        log.setLevel(level)  # through setLevel: it clears logging's isEnabledFor cache
        log.handlers = list(handlers)
