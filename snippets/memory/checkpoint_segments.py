from functools import partial

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def block():
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))


model = nn.Sequential(*[block() for _ in range(4)]).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}


def saved_bytes(forward):
    counted = {}

    def pack(saved):
        storage = saved.untyped_storage()
        if storage.data_ptr() not in params:
            counted[storage.data_ptr()] = storage.nbytes()
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        out = forward()  # out: [B, 64]
    out.sum().backward()
    return sum(counted.values())


def every_block():
    h = x
    for b in model:
        h = checkpoint(b, h, use_reentrant=False)
    return h


print(f"no checkpoint: {saved_bytes(lambda: model(x)):>7,} bytes")
#> no checkpoint: 163,840 bytes
for n in (1, 2, 4):
    run = partial(checkpoint_sequential, model, n, x, use_reentrant=False)
    print(f"segments={n}:    {saved_bytes(run):>7,} bytes")
    #> segments=1:    163,840 bytes
    #> segments=2:     90,112 bytes
    #> segments=4:     65,536 bytes
print(f"every block:   {saved_bytes(every_block):>7,} bytes")
#> every block:    32,768 bytes
