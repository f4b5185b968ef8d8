import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 1)
)
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(
    optimizer, step_size=1, gamma=0.5
)
loss_fn = nn.MSELoss()
# Large targets, so that clipping bites:
micro_batches = [
    (torch.randn(8, 4), 10 * torch.randn(8, 1)) for _ in range(8)
]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]
k = 4  # two groups of four micro-batches

optimizer.zero_grad()
for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 1]
    loss = loss_fn(model(xb), yb) / k  # loss: []
    loss.backward()
    if (i + 1) % k == 0:  # the group's last micro-batch
        # Clip the whole group's gradient:
        clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        scheduler.step()  # it counts optimizer steps
        optimizer.zero_grad()

# BatchNorm updated its running statistics on every micro-batch:
seen = model[1].num_batches_tracked.item()
print(seen, "micro-batches,", scheduler.last_epoch, "scheduler steps")
#> 8 micro-batches, 2 scheduler steps


def group_gradient(clip_each_micro_batch):
    model.zero_grad()
    for xb, yb in micro_batches[:k]:  # xb: [M, 4], yb: [M, 1]
        (loss_fn(model(xb), yb) / k).backward()
        if clip_each_micro_batch:  # the mistake: clipping a partial sum
            clip_grad_norm_(model.parameters(), max_norm=1.0)
    if not clip_each_micro_batch:
        clip_grad_norm_(model.parameters(), max_norm=1.0)
    return [p.grad.clone() for p in model.parameters()]


once = group_gradient(clip_each_micro_batch=False)
each = group_gradient(clip_each_micro_batch=True)
pairs = zip(once, each, strict=True)
print(all(torch.allclose(a, b, atol=1e-6) for a, b in pairs))
#> False
