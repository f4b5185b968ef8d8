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


def backward_flops(context_fn):
    block.zero_grad()
    out = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)
    with FlopCounterMode(display=False) as counter:
        out.sum().backward()
    grads = [p.grad.clone() for p in block.parameters()]
    return counter.get_total_flops(), grads


def same(a, b):
    pairs = zip(a, b, strict=True)
    return all(torch.allclose(u, v, atol=1e-6) for u, v in pairs)


with FlopCounterMode(display=False) as forward:
    out = block(x)  # out: [B, 64]
with FlopCounterMode(display=False) as backward:
    out.sum().backward()
plain = [p.grad.clone() for p in block.parameters()]
fwd, bwd = forward.get_total_flops(), backward.get_total_flops()
print(f"no checkpoint: forward {fwd:,}, backward {bwd:,}")
#> no checkpoint: forward 2,097,152, backward 3,145,728

full, full_grads = backward_flops(noop_context_fn)
sac = partial(create_selective_checkpoint_contexts, policy)  # (2)!
selective, sac_grads = backward_flops(sac)
print(f"backward: full {full:,}, selective {selective:,}")
#> backward: full 4,194,304, selective 3,145,728
print("saved:", [name for name, keep in decisions if keep])
#> saved: ['addmm.default', 'addmm.default']
print("rerun:", [name for name, keep in decisions if not keep])
#> rerun: ['t.default', 'gelu.default', 't.default']
print(same(plain, full_grads), same(plain, sac_grads))
#> True True
