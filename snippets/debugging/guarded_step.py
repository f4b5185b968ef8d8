import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Five batches of 8 points, and one corrupt value in batch 2.
x = torch.randn(5, 8, 4)  # x: [S, B, 4]
y = x.sum(dim=2, keepdim=True)  # y: [S, B, 1]
x[2, 3, 1] = float("nan")
x, y = x.to(device), y.to(device)


def train(guard):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    log = []
    for step in range(5):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x[step]), y[step])  # loss: []
        loss.backward()
        norm = clip_grad_norm_(model.parameters(), max_norm=1.0)  # (1)!
        finite = torch.isfinite(loss).item() and torch.isfinite(norm).item()
        values = f"loss {loss.item():.2f} norm {norm.item():.1f}"
        log.append(f"step {step}: {values}")
        if guard and not finite:  # (2)!
            log[-1] += " -> skipped"
            continue
        optimizer.step()
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    log.append(f"weights finite: {weights.isfinite().all().item()}")
    return log


unguarded, guarded = train(guard=False), train(guard=True)
print(f"{'no guard':28} | guard")
#> no guard                     | guard
for a, b in zip(unguarded, guarded, strict=True):
    print(f"{a:28} | {b}")
    #> step 0: loss 3.15 norm 4.3   | step 0: loss 3.15 norm 4.3
    #> step 1: loss 3.56 norm 4.9   | step 1: loss 3.56 norm 4.9
    #> step 2: loss nan norm nan    | step 2: loss nan norm nan -> skipped
    #> step 3: loss nan norm nan    | step 3: loss 4.16 norm 5.3
    #> step 4: loss nan norm nan    | step 4: loss 1.27 norm 2.9
    #> weights finite: False        | weights finite: True
# no-module-to-check: each run trains its own model inside train()
