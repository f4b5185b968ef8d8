import matplotlib.pyplot as plt
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
warmup, decay_end, stop = 3, 10, 5  # interrupted after 5 steps
steps = range(decay_end + 1)  # the floor is reached at step 10


def schedule(optimizer, last_epoch=-1):
    """Linear warmup, then cosine decay, as in the examples above."""
    at = {"last_epoch": last_epoch}
    warm = LinearLR(optimizer, 0.25, total_iters=warmup, **at)
    cos = CosineAnnealingLR(optimizer, decay_end - warmup, 1e-3, **at)
    return SequentialLR(optimizer, [warm, cos], [warmup], **at)


def run(optimizer, scheduler, steps):
    """The learning rate of each step (the steps only move the schedule)."""
    lrs = []
    for _ in range(steps):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
uninterrupted = run(optimizer, schedule(optimizer), len(steps))

optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = schedule(optimizer)
first_part = run(optimizer, scheduler, stop)
saved = optimizer.state_dict(), scheduler.state_dict()

optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = schedule(optimizer)  # built anew, then both states loaded
optimizer.load_state_dict(saved[0])
scheduler.load_state_dict(saved[1])
resumed = run(optimizer, scheduler, len(steps) - stop)

optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
optimizer.load_state_dict(saved[0])
by_last_epoch = run(optimizer, schedule(optimizer, stop - 1), 6)

print("state dicts:", first_part + resumed == uninterrupted)
#> state dicts: True
print(round(uninterrupted[stop], 6), round(by_last_epoch[0], 6))
#> 0.008306 0.01
floor = [stop + lrs.index(min(lrs)) for lrs in (resumed, by_last_epoch)]
print("floor at step:", *floor)
#> floor at step: 10 8

plt.plot(steps, uninterrupted, "o-", label="uninterrupted")
plt.plot(steps[stop:], resumed, "x", ms=10, label="resumed: state dicts")
plt.plot(steps[stop:], by_last_epoch, "s--", label="resumed: last_epoch=")
plt.xlabel("step")
plt.ylabel("learning rate")
plt.ylim(0, 0.02)  # room above the curves for the legend
plt.legend(loc="upper right")
plt.show()
