import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
loss_fn = nn.MSELoss()
x = torch.randn(30, 4).to(device)  # x: [N, 4]
y = torch.randn(30, 1).to(device)  # y: [N, 1]

loss_fn(model(x), y).backward()
full = [p.grad.clone() for p in model.parameters()]  # full-batch gradient
model.zero_grad()

# One step's worth of micro-batches: 30 samples in pieces of 8, 8, 8, 6.
micro_batches = list(zip(x.split(8), y.split(8), strict=True))
for xb, yb in micro_batches:  # xb: [M, 4], yb: [M, 1]
    loss = loss_fn(model(xb), yb) / len(micro_batches)  # loss: []
    loss.backward()

pairs = zip(model.parameters(), full, strict=True)
# Equal up to float rounding?
print(all(torch.allclose(p.grad, g, atol=1e-6) for p, g in pairs))
#> False
