import copy
import warnings

import torch
from torch import nn
from torch.optim.lr_scheduler import LinearLR

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = (15 * torch.randn(16, 1)).to(device)  # y: [B, 1]
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)


def train(skip_aware):
    """Six steps with a warm-up stepped per iteration: the scheduler's
    warnings, and the learning rates used."""
    net = copy.deepcopy(model)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    scheduler = LinearLR(optimizer, start_factor=0.25, total_iters=4)
    scaler = torch.amp.GradScaler(device.type)
    applied = []  # the learning rate of every step that changed the weights
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(6):
            optimizer.zero_grad()
            with torch.autocast(device.type, dtype=torch.float16):
                loss = nn.functional.mse_loss(net(x), y)  # loss: [] float32
            scaler.scale(loss).backward()
            scale, lr = scaler.get_scale(), optimizer.param_groups[0]["lr"]
            scaler.step(optimizer)
            scaler.update()
            # update() lowers the scale only after a skip:
            stepped = scaler.get_scale() >= scale
            if stepped:
                applied.append(round(lr, 6))
            if stepped or not skip_aware:
                scheduler.step()  # after scaler.step(), as documented
    warned = [w for w in caught if "lr_scheduler.step()" in str(w.message)]
    return warned, applied


caught, applied = train(skip_aware=False)
print(len(caught), caught[0].category.__name__)
#> 1 UserWarning
print(str(caught[0].message).split(". ")[0])
#> Detected call of `lr_scheduler.step()` before `optimizer.step()`
print("lrs of the real updates:", applied)
#> lrs of the real updates: [0.008125, 0.01, 0.01]

caught, applied = train(skip_aware=True)
print(len(caught), "warnings; lrs of the real updates:", applied)
#> 0 warnings; lrs of the real updates: [0.0025, 0.004375, 0.00625]
# Each run trained a copy; the original model never ran backward().
# expect-no-grad: model.*
