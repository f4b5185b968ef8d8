import copy

import torch
from torch import nn
from torch.nn.utils import (
    clip_grad_norm_,
    get_total_norm,
    parameters_to_vector,
)

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = (3 * torch.randn(32, 20)).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 10))
model = model.to(device)
# Takes the same step in float32, for the check below:
reference = copy.deepcopy(model)
before = parameters_to_vector(model.parameters()).detach()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)  # starts at 2**16 = 65536
max_norm = 1.0

with torch.autocast(device.type, dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), y)  # loss: [] float32
# Backward from loss * 65536: every .grad is 65536x too large.
scaler.scale(loss).backward()
grads = [p.grad for p in model.parameters()]
scaled_norm = get_total_norm(grads)  # scaled_norm: []
# Divides every .grad by the scale, in place; notes any inf or NaN:
scaler.unscale_(optimizer)
norm = clip_grad_norm_(model.parameters(), max_norm)  # norm: []
scale = scaler.get_scale()
scaler.step(optimizer)  # optimizer.step(), unless a gradient was inf or NaN
scaler.update()  # the new scale for the next step
optimizer.zero_grad()

print(scale, scaler.get_scale())  # no inf: the step ran, the scale stays
#> 65536.0 65536.0
# What clipping would have seen before unscale_:
print(round(scaled_norm.item() / norm.item()))
#> 65536

# The same step in float32, without autocast or scaler.
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
ref_loss = nn.functional.cross_entropy(reference(x), y)  # ref_loss: []
ref_loss.backward()
ref_norm = clip_grad_norm_(reference.parameters(), max_norm)  # ref_norm: []
ref_optimizer.step()

update = parameters_to_vector(model.parameters()).detach() - before
ref_update = parameters_to_vector(reference.parameters()).detach() - before
print(norm.item() > max_norm, torch.allclose(norm, ref_norm, rtol=1e-2))
#> True True
error = ((update - ref_update).norm() / ref_update.norm()).item()
print("same update within 1%:", error < 0.01)
#> same update within 1%: True
# The step ends with zero_grad(): the gradients are None on purpose.
# expect-no-grad: model.*
