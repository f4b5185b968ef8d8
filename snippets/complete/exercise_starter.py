import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import LambdaLR

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 8).to(device)  # x: [N, 8]
y = torch.randint(0, 3, (64,)).to(device)  # y: [N]
model = nn.Linear(8, 3).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
# Warmup: a quarter of the peak at step 0, the peak from step 3 on.
scheduler = LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 4))
scaler = torch.amp.GradScaler(device.type)
accum = 4  # micro-batches per optimizer step

norms = []
with warnings.catch_warnings(record=True) as warned:
    warnings.simplefilter("always")
    for _step in range(2):
        micro_batches = zip(x.chunk(accum), y.chunk(accum), strict=True)
        for xb, yb in micro_batches:  # xb: [M, 8], yb: [M]
            with torch.autocast(device.type, dtype=torch.float16):
                loss = F.cross_entropy(model(xb), yb) / accum  # loss: []
            scaler.scale(loss).backward()
            scheduler.step()
        norm = clip_grad_norm_(model.parameters(), max_norm=1.0)
        norms.append(norm.item())
        scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()

lr = optimizer.param_groups[0]["lr"]
print("after 2 steps, the lr is 3/4 of the peak:", math.isclose(lr, 0.0075))
#> after 2 steps, the lr is 3/4 of the peak: False
print("clipping saw the real gradient norm:", max(norms) < 100)
#> clipping saw the real gradient norm: False
print("warned:", str(warned[0].message).split(". ")[0])
#> warned: Detected call of `lr_scheduler.step()` before `optimizer.step()`
# Each step ends with zero_grad(): the gradients are None on purpose.
# expect-no-grad: model.*
