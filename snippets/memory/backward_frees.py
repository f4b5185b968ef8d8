import weakref

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
batches = [torch.randn(32, 64).to(device) for _ in range(3)]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}
held = weakref.WeakSet()  # one entry per saved tensor still held


class Saved:
    def __init__(self, tensor):
        self.tensor = tensor.detach()  # (1)!


def pack(tensor):
    saved = Saved(tensor)
    held.add(saved)
    return saved


def held_bytes():
    sizes = {}  # each storage once
    for saved in held:
        storage = saved.tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
    return sum(n for ptr, n in sizes.items() if ptr not in params)


def loss_of(xb):
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s.tensor):
        logits = model(xb)  # logits: [B, 10]
    return F.cross_entropy(logits, y)


loss = loss_of(batches[0])
print(f"after forward:  {held_bytes():,}")
#> after forward:  40,960
loss.backward()
print(f"after backward: {held_bytes():,}")
#> after backward: 0

loss = loss_of(batches[0])
loss.backward(retain_graph=True)
print(f"retain_graph:   {held_bytes():,}")
#> retain_graph:   40,960
del loss  # the graph dies with the last reference to it
print(f"del loss:       {held_bytes():,}")
#> del loss:       0

losses = [loss_of(xb) for xb in batches]  # no backward
print(f"3 kept losses:  {held_bytes():,}")
#> 3 kept losses:  122,880
numbers = [loss.item() for loss in losses]
del losses
print(f"3 numbers:      {held_bytes():,}")
#> 3 numbers:      0
