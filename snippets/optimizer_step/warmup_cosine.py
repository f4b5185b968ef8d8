import math

import torch
from torch import nn
from torch.optim.lr_scheduler import (
    CosineAnnealingLR,
    LambdaLR,
    LinearLR,
    SequentialLR,
)

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)
peak, floor = 0.01, 0.001  # the learning rate at its top and at the end
warmup, decay_end = 3, 10  # steps of warmup; the step that reaches floor


def lr_at(step):
    """The closed form, as nanoGPT's get_lr() writes it."""
    if step < warmup:
        return peak * (step + 1) / (warmup + 1)
    progress = min(1.0, (step - warmup) / (decay_end - warmup))  # 0 to 1
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress))


# One: LambdaLR multiplies the optimizer's lr by a function of the step.
opt_lambda = torch.optim.AdamW(model.parameters(), lr=peak)
by_lambda = LambdaLR(opt_lambda, lambda step: lr_at(step) / peak)

# Two: a linear warmup, then a cosine, one after the other.
opt_seq = torch.optim.AdamW(model.parameters(), lr=peak)
warm = LinearLR(opt_seq, start_factor=1 / (warmup + 1), total_iters=warmup)
cosine_steps = decay_end - warmup
cosine = CosineAnnealingLR(opt_seq, T_max=cosine_steps, eta_min=floor)
by_seq = SequentialLR(opt_seq, [warm, cosine], milestones=[warmup])

print("step | LambdaLR | SequentialLR")
#> step | LambdaLR | SequentialLR
agree = True
for step in range(decay_end + 1):
    lrs = [opt.param_groups[0]["lr"] for opt in (opt_lambda, opt_seq)]
    agree &= all(math.isclose(lr, lr_at(step)) for lr in lrs)
    print(f"{step:4} | {lrs[0]:.6f} | {lrs[1]:.6f}")
    #>    0 | 0.002500 | 0.002500
    #>    1 | 0.005000 | 0.005000
    #>    2 | 0.007500 | 0.007500
    #>    3 | 0.010000 | 0.010000
    #>    4 | 0.009554 | 0.009554
    #>    5 | 0.008306 | 0.008306
    #>    6 | 0.006501 | 0.006501
    #>    7 | 0.004499 | 0.004499
    #>    8 | 0.002694 | 0.002694
    #>    9 | 0.001446 | 0.001446
    #>   10 | 0.001000 | 0.001000
    for opt, scheduler in ((opt_lambda, by_lambda), (opt_seq, by_seq)):
        opt.step()  # no gradients here: this only moves the schedule
        scheduler.step()
print("both follow the closed form (rel. 1e-9):", agree)
#> both follow the closed form (rel. 1e-9): True

# Past decay_end, lr_at holds the floor, as get_lr() does; the cosine
# scheduler climbs back, to the peak 2 * T_max steps after the warmup.
while by_seq.last_epoch < warmup + 2 * cosine_steps:
    for opt, scheduler in ((opt_lambda, by_lambda), (opt_seq, by_seq)):
        opt.step()
        scheduler.step()
lrs = [opt.param_groups[0]["lr"] for opt in (opt_lambda, opt_seq)]
print(f"step {by_seq.last_epoch}: {lrs[0]:.6f} | {lrs[1]:.6f}")
#> step 17: 0.001000 | 0.010000
