import copy

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
lr = 0.1


def step(max_norm, unscale_first=None):
    """One clipped SGD step on a copy of the model: float32, or float16 with
    a GradScaler. Returns the change of the parameters."""
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
    clip_grad_norm_(net.parameters(), max_norm)
    scaler.step(optimizer)  # unscales here if unscale_() was not called
    scaler.update()
    return parameters_to_vector(net.parameters()).detach() - before


print("max_norm | unscale_ first | step used | float32's | same (1%)")
#> max_norm | unscale_ first | step used | float32's | same (1%)
for max_norm in (1.0, 4.0):  # the true norm is about 1.3
    ref_update = step(max_norm)  # float32
    should = ref_update.norm().item() / lr  # the clipped gradient's norm
    for unscale_first in (False, True):
        update = step(max_norm, unscale_first)
        used = update.norm().item() / lr  # the norm of what SGD applied
        same = (update - ref_update).norm() < 0.01 * ref_update.norm()
        line = f"{max_norm:8} | {unscale_first!s:14} | {used:<9.1e}"
        print(f"{line} | {should:<9.1e} | {same.item()}")
        #>      1.0 | False          | 1.5e-05   | 1.0e+00   | False
        #>      1.0 | True           | 1.0e+00   | 1.0e+00   | True
        #>      4.0 | False          | 6.1e-05   | 1.3e+00   | False
        #>      4.0 | True           | 1.3e+00   | 1.3e+00   | True
# Each step trained a copy; the original model never ran backward().
# expect-no-grad: model.*
