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
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def grad_bytes():
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return sum(g.nbytes for g in grads)


F.cross_entropy(model(x), y).backward()
optimizer.step()
print(f"after backward:    {grad_bytes():,} bytes")
#> after backward:    76,840 bytes

optimizer.zero_grad(set_to_none=False)  # zeros, in place
logits = model(x)  # logits: [B, 10]
print(f"set_to_none=False: {grad_bytes():,} bytes during the forward")
#> set_to_none=False: 76,840 bytes during the forward
F.cross_entropy(logits, y).backward()
optimizer.step()

optimizer.zero_grad()  # set_to_none=True, the default
print(model[0].weight.grad)
#> None
logits = model(x)  # logits: [B, 10]
print(f"set_to_none=True:  {grad_bytes():,} bytes during the forward")
#> set_to_none=True:  0 bytes during the forward
F.cross_entropy(logits, y).backward()
optimizer.step()
print(f"after backward:    {grad_bytes():,} bytes")
#> after backward:    76,840 bytes
