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
    for step in range(5):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x[step]), y[step])  # loss: []
        loss.backward()
        norm = clip_grad_norm_(model.parameters(), max_norm=1.0)  # (1)!
        finite = torch.isfinite(loss).item() and torch.isfinite(norm).item()
        line = f"step {step}: loss {loss.item():.2f} norm {norm.item():.2f}"
        if guard and not finite:  # (2)!
            print(line, "-> skipped")
            continue
        optimizer.step()
        print(line)
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    print("weights finite:", weights.isfinite().all().item())


train(guard=False)
train(guard=True)
