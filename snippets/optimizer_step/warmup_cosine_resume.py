import io

import torch
from torch import nn
from torch.optim.lr_scheduler import (
    CosineAnnealingLR,
    LinearLR,
    SequentialLR,
)

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)
warmup, decay_end, stop = 3, 10, 5  # the run is interrupted after 5 steps


def schedule(optimizer):
    """Linear warmup, then cosine decay, as in the example above."""
    warm = LinearLR(optimizer, start_factor=0.25, total_iters=warmup)
    cosine = CosineAnnealingLR(optimizer, decay_end - warmup, eta_min=1e-3)
    return SequentialLR(optimizer, [warm, cosine], milestones=[warmup])


def run(optimizer, scheduler, steps):
    """The learning rate of each step (the steps only move the schedule)."""
    lrs = []
    for _ in range(steps):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
uninterrupted = run(optimizer, schedule(optimizer), decay_end)

optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = schedule(optimizer)
first_part = run(optimizer, scheduler, stop)
state = {"opt": optimizer.state_dict(), "sched": scheduler.state_dict()}
buffer = io.BytesIO()  # a checkpoint file
torch.save(state, buffer)
buffer.seek(0)
checkpoint = torch.load(buffer, weights_only=True)

# Build a new optimizer and scheduler, then load both states.
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = schedule(optimizer)
optimizer.load_state_dict(checkpoint["opt"])
scheduler.load_state_dict(checkpoint["sched"])
rest = run(optimizer, scheduler, decay_end - stop)
print("resumed == uninterrupted:", first_part + rest == uninterrupted)
#> resumed == uninterrupted: True

# The other order: building the scheduler rewrites the loaded lr.
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
optimizer.load_state_dict(checkpoint["opt"])
scheduler = schedule(optimizer)
scheduler.load_state_dict(checkpoint["sched"])
lr, last_lr = optimizer.param_groups[0]["lr"], scheduler.get_last_lr()[0]
print("optimizer's lr:", round(lr, 6), "scheduler's:", round(last_lr, 6))
#> optimizer's lr: 0.0025 scheduler's: 0.008306
