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

micro_batches = list(zip(x.split(8), y.split(8), strict=True))
n_samples = sum(len(xb) for xb, _ in micro_batches)  # 30
for xb, yb in micro_batches:  # xb: [M, 4], yb: [M, 1]
    # Weight each micro-batch's mean loss by its share of the samples.
    loss = loss_fn(model(xb), yb) * len(xb) / n_samples  # loss: []
    loss.backward()

for p, g in zip(model.parameters(), full, strict=True):
    torch.testing.assert_close(p.grad, g)
pairs = zip(model.parameters(), full, strict=True)
# Equal up to float rounding?
print(all(torch.allclose(p.grad, g, atol=1e-6) for p, g in pairs))
#> True
