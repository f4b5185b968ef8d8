import copy
import math

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
before = parameters_to_vector(model.parameters()).detach()
lr, max_norm = 0.1, 1.0


def step(unscale_first=None):
    """One clipped SGD step on a copy of the model: float32, or float16 with
    a GradScaler."""
    net = copy.deepcopy(model)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    use_scaler = unscale_first is not None  # None: float32
    scaler = torch.amp.GradScaler(device.type, enabled=use_scaler)
    with torch.autocast(
        device.type, dtype=torch.float16, enabled=use_scaler
    ):
        loss = nn.functional.cross_entropy(net(x), y)  # loss: [] float32
    scaler.scale(loss).backward()  # if disabled, scale() returns the loss
    if unscale_first:
        scaler.unscale_(optimizer)
    norm = clip_grad_norm_(net.parameters(), max_norm)  # norm: []
    scaler.step(optimizer)  # unscales here if unscale_() was not called
    scaler.update()
    update = parameters_to_vector(net.parameters()).detach() - before
    return norm, update


ref_norm, ref_update = step()  # float32
print("unscale_ first | clipping saw | step used | same as float32 (1%)")
#> unscale_ first | clipping saw | step used | same as float32 (1%)
for unscale_first in (False, True):
    norm, update = step(unscale_first)
    # Clipping saw 2**saw times the true norm:
    saw = round(math.log2(norm.item() / ref_norm.item()))
    used = update.norm().item() / lr  # the norm of the gradient SGD applied
    same = ((update - ref_update).norm() / ref_update.norm()).item() < 0.01
    line = f"{unscale_first!s:14} | 2**{saw:<2} x norm | {used:<9.1e}"
    print(f"{line} | {same}")
    #> False          | 2**16 x norm | 1.5e-05   | False
    #> True           | 2**0  x norm | 1.0e+00   | True
# Each step trained a copy; the original model never ran backward():
# expect-no-grad: model.*
