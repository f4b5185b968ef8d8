# requires: torch>=2.13
from functools import partial

import torch
from torch import nn
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
    noop_context_fn,
)
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

block = nn.Sequential(
    nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]


def offload(ctx, op, *args, **kwargs):
    """Ask for the matrix products to go to the CPU; rerun the rest."""
    if op in (torch.ops.aten.addmm.default, torch.ops.aten.mm.default):
        return CheckpointPolicy.MUST_CPU_OFFLOAD
    return False  # a bool: False means PREFER_RECOMPUTE


def backward_flops(context_fn):
    block.zero_grad()
    out = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)
    with FlopCounterMode(display=False) as counter:
        out.sum().backward()
    grads = [p.grad.clone() for p in block.parameters()]
    return counter.get_total_flops(), grads


full, full_grads = backward_flops(noop_context_fn)
off = partial(create_selective_checkpoint_contexts, offload)
offloaded, off_grads = backward_flops(off)
print(f"backward: full {full:,}, offload in eager mode {offloaded:,}")
#> backward: full 4,194,304, offload in eager mode 4,194,304
pairs = zip(full_grads, off_grads, strict=True)
print("same gradients:", all(torch.allclose(a, b) for a, b in pairs))
#> same gradients: True
