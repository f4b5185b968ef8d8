import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=4)
scaler = torch.amp.GradScaler(device.type, init_scale=1024.0)
seen = []  # the gradient norm after each backward in the closure


def closure():
    optimizer.zero_grad()
    with torch.autocast(device.type, dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)  # loss: [] float32
    scaler.scale(loss).backward()
    seen.append(model.weight.grad.norm().item())
    return loss


# A fresh scaler: nothing was scaled yet, so there is no scale.
try:
    scaler.step(optimizer, closure)
except AssertionError as err:
    print(str(err).split(".")[0])
    #> Attempted step but _scale is None

# Stale gradients from an earlier backward let it run, scaled.
loss = nn.functional.mse_loss(model(x), y)  # float32, no scaler
true_norm = torch.autograd.grad(loss, model.weight)[0].norm().item()
closure()  # a backward before the step leaves .grad behind
scaler.step(optimizer, closure)
scaler.update()
# seen[1]: LBFGS's first call of the closure, at the same weights
print(f"LBFGS ran on gradients scaled by {seen[1] / true_norm:.3g}")
#> LBFGS ran on gradients scaled by 1.02e+03

# Without them (zero_grad() between iterations), no inf check ran.
optimizer.zero_grad()
try:
    scaler.step(optimizer, closure)
except AssertionError as err:
    print(err)
    #> No inf checks were recorded for this optimizer.
# The last zero_grad() left the gradients None on purpose.
# expect-no-grad: model.*
