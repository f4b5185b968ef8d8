import torch
from torch import nn
from torch.nn.utils import parameters_to_vector

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
# Large targets make large gradients, too large for float16 at first.
y = (15 * torch.randn(16, 1)).to(device)  # y: [B, 1]
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler(device.type)  # starts at 65536

print("step | scale | finite grads | weights changed | scale after")
#> step | scale | finite grads | weights changed | scale after
for step in range(5):
    before = parameters_to_vector(model.parameters()).detach()
    scale = scaler.get_scale()
    optimizer.zero_grad()
    with torch.autocast(device.type, dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)  # loss: [] float32
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    finite = all(bool(p.grad.isfinite().all()) for p in model.parameters())
    scaler.step(optimizer)  # skipped if any gradient is inf or NaN
    scaler.update()  # halves the scale after a skipped step
    after = parameters_to_vector(model.parameters())
    changed = not torch.equal(before, after)
    line = f"{step:4} | {scale:5.0f} | {finite!s:12} | {changed!s:15}"
    print(f"{line} | {scaler.get_scale():.0f}")
    #>    0 | 65536 | False        | False           | 32768
    #>    1 | 32768 | False        | False           | 16384
    #>    2 | 16384 | False        | False           | 8192
    #>    3 |  8192 | True         | True            | 8192
    #>    4 |  8192 | True         | True            | 8192
