import warnings

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, get_total_norm
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 8).to(device)  # x: [N, 8]
y = (10 * torch.randn(64, 1)).to(device)  # y: [N, 1]
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
model = model.to(device)
optimizer = torch.optim.SGD(
    [
        {"params": model[0].parameters(), "lr": 1e-3},
        {"params": model[2].parameters()},
    ],
    lr=1e-2,
)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
batches = list(zip(x.split(16), y.split(16), strict=True))

lrs, norms_seen_by_step = [], []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _epoch in range(4):
        for xb, yb in batches:  # xb: [B, 8], yb: [B, 1]
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)  # loss: []
            loss.backward()
            # After backward(), before step():
            clip_grad_norm_(model.parameters(), max_norm=1.0)
            grads = [p.grad for p in model.parameters()]
            norms_seen_by_step.append(get_total_norm(grads).item())
            optimizer.step()
        rates = [f"{group['lr']:g}" for group in optimizer.param_groups]
        lrs.append("/".join(rates))
        scheduler.step()  # after the epoch's optimizer steps

print(len(caught), "warning(s)")
#> 0 warning(s)
print(lrs)
#> ['0.001/0.01', '0.001/0.01', '0.0005/0.005', '0.0005/0.005']
# The largest gradient norm that step() used:
print(round(max(norms_seen_by_step), 3))
#> 1.0
