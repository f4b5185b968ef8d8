import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 1).to(device)
x1, y1 = torch.randn(8, 3).to(device), torch.randn(8, 1).to(device)
x2, y2 = torch.randn(8, 3).to(device), torch.randn(8, 1).to(device)
loss_fn = nn.MSELoss()

# Each batch's gradient on its own, from torch.autograd.grad, which leaves
# .grad alone.
g1 = torch.autograd.grad(loss_fn(model(x1), y1), list(model.parameters()))
g2 = torch.autograd.grad(loss_fn(model(x2), y2), list(model.parameters()))

# Two backward() calls, no zeroing in between.
loss_fn(model(x1), y1).backward()
loss_fn(model(x2), y2).backward()
params = list(model.parameters())
pairs = zip(params, g1, g2, strict=True)
print(all(torch.allclose(p.grad, a + b) for p, a, b in pairs))
#> True
pairs = zip(params, g2, strict=True)
print(all(torch.allclose(p.grad, b) for p, b in pairs))
#> False
