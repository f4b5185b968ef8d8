import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 1).to(device)
x = torch.randn(32, 3).to(device)
y = torch.randn(32, 1).to(device)
loss_fn = nn.MSELoss()
k = 4  # micro-batches of 8 stand in for one batch of 32

loss_fn(model(x), y).backward()
full = [p.grad.clone() for p in model.parameters()]

model.zero_grad()
for xb, yb in zip(x.chunk(k), y.chunk(k), strict=True):  # xb: [M, 3]
    loss = loss_fn(model(xb), yb) / k  # loss: []
    loss.backward()

# Equal up to float rounding, not bit for bit:
for p, g in zip(model.parameters(), full, strict=True):
    torch.testing.assert_close(p.grad, g)
pairs = zip(model.parameters(), full, strict=True)
print(all(torch.allclose(p.grad, g) for p, g in pairs))
#> True
