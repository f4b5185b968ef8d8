import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = (3 * torch.randn(32, 20)).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 10))
model = model.to(device)
# One float32 backward on the whole batch, for the check:
reference = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)
k = 4  # micro-batches per optimizer step

scales = []
micro_batches = zip(x.chunk(k), y.chunk(k), strict=True)
for xb, yb in micro_batches:  # xb: [M, 20], yb: [M]
    with torch.autocast(device.type, dtype=torch.float16):
        loss = F.cross_entropy(model(xb), yb) / k  # loss: [] float32
    scaler.scale(loss).backward()  # every micro-batch with the same scale
    scales.append(scaler.get_scale())
scaler.unscale_(optimizer)  # once per group, after its last micro-batch
accumulated = [p.grad.clone() for p in model.parameters()]
clip_grad_norm_(model.parameters(), max_norm=1.0)
scaler.step(optimizer)
scaler.update()  # once per group: the scale may change only between steps
optimizer.zero_grad()

F.cross_entropy(reference(x), y).backward()
ref_grads = [p.grad for p in reference.parameters()]
pairs = list(zip(accumulated, ref_grads, strict=True))
error = max(((a - r).norm() / r.norm()).item() for a, r in pairs)
print(scales)
#> [65536.0, 65536.0, 65536.0, 65536.0]
print("the full batch's float32 gradient within 1%:", error < 0.01)
#> the full batch's float32 gradient within 1%: True
# The step ends with zero_grad(): the gradients are None on purpose.
# expect-no-grad: model.*
