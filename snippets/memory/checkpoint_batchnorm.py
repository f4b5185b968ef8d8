import contextlib

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 8).to(device)  # x: [B, 8]


def fresh():
    """The same block each time, with a batch norm at its end."""
    torch.manual_seed(0)
    layers = [nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 16)]
    return nn.Sequential(*layers, nn.BatchNorm1d(16)).to(device)


def stats(model):
    bn = model[3]
    same = torch.allclose(bn.running_mean, plain[3].running_mean)
    return f"batches tracked: {bn.num_batches_tracked}, as plain: {same}"


plain = fresh()
plain(x).sum().backward()
print("plain:       ", stats(plain))
#> plain:        batches tracked: 1, as plain: True

model = fresh()
checkpoint(model, x, use_reentrant=False).sum().backward()
print("checkpointed:", stats(model))
#> checkpointed: batches tracked: 2, as plain: False

# Fix 1: keep the batch norm out of the checkpointed region.
outside = fresh()
h = checkpoint(outside[:3], x, use_reentrant=False)  # h: [B, 16]
outside[3](h).sum().backward()
print("outside:     ", stats(outside))
#> outside:      batches tracked: 1, as plain: True


# Fix 2: the recomputation puts back the buffers it changed.
@contextlib.contextmanager
def buffers_kept(module):
    saved = [b.clone() for b in module.buffers()]
    try:
        yield
    finally:  # (1)!
        for buffer, value in zip(module.buffers(), saved, strict=True):
            buffer.copy_(value)


def contexts():  # the forward's context, then the recomputation's
    return contextlib.nullcontext(), buffers_kept(kept)


kept = fresh()
out = checkpoint(kept, x, use_reentrant=False, context_fn=contexts)
out.sum().backward()
print("kept:        ", stats(kept))
#> kept:         batches tracked: 1, as plain: True
