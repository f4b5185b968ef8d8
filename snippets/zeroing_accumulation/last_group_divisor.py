import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
loss_fn = nn.MSELoss()
k = 4
last_group = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
last_group = [(xb.to(device), yb.to(device)) for xb, yb in last_group]

# What the step should use: the gradient of the group's 16 samples at once.
xs, ys = zip(*last_group, strict=True)
x_group = torch.cat(xs)  # x_group: [G, 4]
y_group = torch.cat(ys)  # y_group: [G, 1]
params = list(model.parameters())
full = torch.autograd.grad(loss_fn(model(x_group), y_group), params)

for divisor in (k, len(last_group)):
    model.zero_grad()
    for xb, yb in last_group:  # xb: [M, 4], yb: [M, 1]
        (loss_fn(model(xb), yb) / divisor).backward()
    grads = [p.grad for p in model.parameters()]
    pairs = list(zip(grads, full, strict=True))
    same = all(torch.allclose(g, f) for g, f in pairs)
    half = all(torch.allclose(g, f / 2) for g, f in pairs)
    line = f"divide by {divisor}: full-batch gradient {same}"
    print(f"{line}, half of it {half}")
    #> divide by 4: full-batch gradient False, half of it True
    #> divide by 2: full-batch gradient True, half of it False
