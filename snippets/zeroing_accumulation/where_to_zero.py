import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def make_model():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    return model.to(device)


initial = make_model().state_dict()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(5)]
batches = [(xb.to(device), yb.to(device)) for xb, yb in batches]
loss_fn = nn.MSELoss()


def fresh_start():
    model = make_model()
    model.load_state_dict(initial)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


# A: zero at the start of each iteration.
model_a, optimizer_a = fresh_start()
for xb, yb in batches:  # xb: [B, 4], yb: [B, 1]
    optimizer_a.zero_grad()
    loss_fn(model_a(xb), yb).backward()
    optimizer_a.step()

# B: zero right after the step.
model_b, optimizer_b = fresh_start()
for xb, yb in batches:  # xb: [B, 4], yb: [B, 1]
    loss_fn(model_b(xb), yb).backward()
    optimizer_b.step()
    optimizer_b.zero_grad()

# The bug: zero between backward and step.
model_bug, optimizer_bug = fresh_start()
for xb, yb in batches:  # xb: [B, 4], yb: [B, 1]
    loss_fn(model_bug(xb), yb).backward()
    optimizer_bug.zero_grad()  # discards the gradient just computed
    optimizer_bug.step()

params = zip(model_a.parameters(), model_b.parameters(), strict=True)
print(all(torch.equal(pa, pb) for pa, pb in params))
#> True
named = model_bug.named_parameters()
print(all(torch.equal(p, initial[name]) for name, p in named))
#> True
# B and the bug end with zero_grad(): their gradients are None on purpose.
# expect-no-grad: model_b.*, model_bug.*
