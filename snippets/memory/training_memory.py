import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
params = list(model.parameters())
ptrs = {p.untyped_storage().data_ptr() for p in params}
saved = {}  # storage -> bytes, activations only


def pack(t):
    storage = t.untyped_storage()
    if storage.data_ptr() not in ptrs:
        saved[storage.data_ptr()] = storage.nbytes()
    return t


optimizer.zero_grad()
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    logits = model(x)  # logits: [B, 10]
F.cross_entropy(logits, y).backward()
optimizer.step()

n = sum(p.numel() for p in params)
print(f"{len(params)} parameter tensors, {n:,} numbers")
#> 4 parameter tensors, 19,210 numbers
state = optimizer.state[params[0]]  # (1)!
print({name: tuple(t.shape) for name, t in state.items()})
#> {'step': (), 'exp_avg': (256, 64), 'exp_avg_sq': (256, 64)}

counted = {
    "parameters": sum(p.nbytes for p in params),
    "gradients": sum(p.grad.nbytes for p in params),
    "Adam state": sum(
        t.nbytes for s in optimizer.state.values() for t in s.values()
    ),
    "activations": sum(saved.values()),
}
for name, nbytes in counted.items():
    print(f"{name + ':':<12} {nbytes:>7,} bytes")
    #> parameters:   76,840 bytes
    #> gradients:    76,840 bytes
    #> Adam state:  153,696 bytes
    #> activations:  40,960 bytes

by_hand = {  # (2)!
    "parameters": 4 * n,
    "gradients": 4 * n,
    "Adam state": 2 * 4 * n + 4 * len(params),
    "activations": 4 * 32 * (64 + 256),
}
print(by_hand == counted)
#> True
print(f"total: {sum(by_hand.values()):,} bytes")
#> total: 348,336 bytes
