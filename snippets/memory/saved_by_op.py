import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]

params = {p.untyped_storage().data_ptr() for p in model.parameters()}
counted = set()  # storages already counted
rows = []  # [node name, activation bytes, parameter bytes]


def pack(saved):  # (1)!
    storage = saved.untyped_storage()
    if storage.data_ptr() not in counted:  # (2)!
        counted.add(storage.data_ptr())
        column = 2 if storage.data_ptr() in params else 1
        rows[-1][column] += storage.nbytes()
    return saved


with torch.autograd.graph.saved_tensors_hooks(pack, lambda saved: saved):
    h = x
    for layer in model:
        rows.append(["", 0, 0])
        h = layer(h)  # h: [B, F]
        rows[-1][0] = h.grad_fn.name()

for name, act, par in rows:
    line = f"{name:<15} activations {act:>6,}  parameters {par:>7,}"
    print(line)
    #> AddmmBackward0  activations  8,192  parameters       0
    #> ReluBackward0   activations 32,768  parameters       0
    #> AddmmBackward0  activations      0  parameters  10,240
activations = sum(row[1] for row in rows)
print(f"activations: {activations:,} bytes")
#> activations: 40,960 bytes
print(activations == 32 * (64 + 256) * 4)
#> True
