"""What an example leaves behind, checked after it ran: the gradients of its models
and the device of its tensors.

The checks look at the example's globals: every ``nn.Module`` and tensor it leaves
there. An example that calls ``backward()`` but leaves no module with trainable
parameters (its model built and trained inside ``main()``, say) would escape the
gradient check; it fails instead, unless a marker says why
(``# no-module-to-check: <why>``). Markers for what differs on purpose:
``# expect-no-grad: <pattern>`` (no gradient), ``# expect-nonfinite-grad:
<pattern>`` (a gradient that is NaN or inf: the debugging chapter shows some),
``# stays-on-cpu: <name>``.
"""

from __future__ import annotations

import fnmatch
from typing import Any

import torch


def _named_tensors(value: Any) -> list[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.nn.Module):
        return list(value.named_parameters()) + list(value.named_buffers())
    if isinstance(value, torch.Tensor):
        return [("", value)]
    return []


def check_devices(module_globals: dict[str, Any], device: str, exempt: list[str]) -> list[str]:
    """Every tensor and module left in the globals must live on ``device``."""
    wanted = torch.device(device).type
    problems = []
    for name, value in module_globals.items():
        if name in exempt:
            continue
        for sub, tensor in _named_tensors(value):
            if tensor.device.type != wanted:
                what = f"{name}.{sub}" if sub else name
                problems.append(
                    f"{what} is on {tensor.device.type}, expected {wanted} "
                    f"(forgot .to(device)? or mark it '# stays-on-cpu: {name}')"
                )
                break
    return problems


def _local(tensor: torch.Tensor) -> torch.Tensor:
    """This process's part of a sharded (FSDP2, DTensor) tensor; the tensor otherwise.
    Checking the part needs no collective, which may be gone by the time checks run."""
    return tensor.to_local() if hasattr(tensor, "to_local") else tensor


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def check_grads(module_globals: dict[str, Any], marks: dict[str, list[str]]) -> list[str]:
    """After backward: each trainable parameter of each module left in the globals has
    a finite grad like itself, but where a marker says otherwise; and there is such a
    module, or a marker says why not."""
    exempt = marks.get("expect-no-grad", [])
    nonfinite = marks.get("expect-nonfinite-grad", [])
    problems, trainable = [], False
    for name, value in module_globals.items():
        if not isinstance(value, torch.nn.Module):
            continue
        for pname, param in value.named_parameters():
            full = f"{name}.{pname}"
            trainable = trainable or param.requires_grad
            if not param.requires_grad or _matches(full, exempt):
                continue
            grad = param.grad
            if grad is None:
                problems.append(
                    f"{full}.grad is None after backward() "
                    f"(a frozen or unused parameter? mark it '# expect-no-grad: {full}')"
                )
            elif grad.shape != param.shape:
                problems.append(f"{full}.grad has shape {grad.shape}, parameter has {param.shape}")
            elif grad.device != param.device:
                problems.append(f"{full}.grad is on {grad.device}, parameter on {param.device}")
            elif not torch.isfinite(_local(grad)).all() and not _matches(full, nonfinite):
                problems.append(
                    f"{full}.grad is not finite (NaN or inf) (on purpose? mark it "
                    f"'# expect-nonfinite-grad: {full}')"
                )
    if not trainable and not marks.get("no-module-to-check"):
        problems.append(
            "it calls backward() but leaves no nn.Module with trainable parameters in "
            "its globals, so no gradient is checked: keep the model at module level, or "
            "say why with '# no-module-to-check: <why>'"
        )
    return problems
