import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, parameters_to_vector

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = (3 * torch.randn(32, 20)).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 10))
model = model.to(device)
lr, max_norm = 0.1, 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scaler = torch.amp.GradScaler(device.type)
before = parameters_to_vector(model.parameters()).detach()

with torch.autocast(device.type, dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), y)  # loss: [] float32
scaler.scale(loss).backward()
norm = clip_grad_norm_(model.parameters(), max_norm)  # norm: []
scaler.unscale_(optimizer)
scaler.update()
scaler.step(optimizer)
optimizer.zero_grad()

after = parameters_to_vector(model.parameters()).detach()
used = (after - before).norm() / lr
print(f"clipping saw a norm of {norm.item():.1e}")
#> clipping saw a norm of 8.6e+04
print(f"the step used a gradient of norm {used.item():.1e}")
#> the step used a gradient of norm 0.0e+00
# The step ends with zero_grad(): the gradients are None on purpose.
# expect-no-grad: model.*
