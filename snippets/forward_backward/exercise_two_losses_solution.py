import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).to(device)
y_a = torch.randn(8).to(device)
y_b = torch.randn(8).to(device)

# One objective, one backward: the shared graph is walked once.
out = model(x)  # out: [B, 2]
loss_a = nn.functional.mse_loss(out[:, 0], y_a)  # loss_a: []
loss_b = nn.functional.l1_loss(out[:, 1], y_b)  # loss_b: []
loss = loss_a + loss_b  # loss: []
loss.backward()
summed = [p.grad.clone() for p in model.parameters()]

# The two-call version, for comparison: the first call needs retain_graph.
model.zero_grad()
out = model(x)  # out: [B, 2]
nn.functional.mse_loss(out[:, 0], y_a).backward(retain_graph=True)
nn.functional.l1_loss(out[:, 1], y_b).backward()
pairs = zip(model.parameters(), summed, strict=True)
print(all(torch.allclose(p.grad, g) for p, g in pairs))
#> True
