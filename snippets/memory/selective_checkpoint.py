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
decisions = []  # (operation, kept) as the forward runs


def policy(ctx, op, *args, **kwargs):  # (1)!
    keep = op in (torch.ops.aten.addmm.default, torch.ops.aten.mm.default)
    if not ctx.is_recompute:
        decisions.append((op.__name__, keep))
    if keep:
        return CheckpointPolicy.MUST_SAVE  # matrix products: keep
    return CheckpointPolicy.PREFER_RECOMPUTE  # the rest: run again


def step(context_fn=None):
    """FLOPs of the forward and of the backward, and the gradients."""
    block.zero_grad()
    with FlopCounterMode(display=False) as forward:
        if context_fn is None:
            out = block(x)  # out: [B, 64]
        else:
            out = checkpoint(
                block, x, use_reentrant=False, context_fn=context_fn
            )
    with FlopCounterMode(display=False) as backward:
        out.sum().backward()
    grads = [p.grad.clone() for p in block.parameters()]
    return forward.get_total_flops(), backward.get_total_flops(), grads


fwd, plain, plain_grads = step()
_, full, full_grads = step(noop_context_fn)
_, selective, sac_grads = step(
    partial(create_selective_checkpoint_contexts, policy)
)
print("saved:", [name for name, keep in decisions if keep])
#> saved: ['addmm.default', 'addmm.default']
print("rerun:", [name for name, keep in decisions if not keep])
#> rerun: ['t.default', 'gelu.default', 't.default']
print(f"forward FLOPs: {fwd:,}")
#> forward FLOPs: 2,097,152
print(f"backward FLOPs: none {plain:,}, full {full:,}")
#> backward FLOPs: none 3,145,728, full 4,194,304
print(f"backward FLOPs: selective {selective:,}")
#> backward FLOPs: selective 3,145,728
for grads in (full_grads, sac_grads):
    pairs = zip(plain_grads, grads, strict=True)
    print(all(torch.allclose(a, b, atol=1e-6) for a, b in pairs))
    #> True
    #> True
