import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
model = model.to(device)
x = torch.randn(8, 6, 4)  # x: [B, T, 4]
targets = torch.randint(0, 3, (8, 6))  # targets: [B, T]
# Real tokens per sequence; the rest is padding.
lengths = torch.tensor([6, 5, 6, 4, 1, 2, 2, 1])  # lengths: [B]
padding = torch.arange(6) >= lengths[:, None]  # padding: [B, T]
# -100 is cross_entropy's default ignore_index: no loss at these positions.
targets[padding] = -100
x, targets = x.to(device), targets.to(device)


def token_loss(xb, tb, reduction="mean"):  # xb: [B, T, 4], tb: [B, T]
    logits = model(xb).flatten(0, 1)  # logits: [N, 3]
    tokens = tb.flatten()  # tokens: [N]
    return F.cross_entropy(logits, tokens, reduction=reduction)  # loss: []


params = list(model.parameters())
full = torch.autograd.grad(token_loss(x, targets), params)  # the goal
micro_batches = list(zip(x.chunk(2), targets.chunk(2), strict=True))
counts = [(tb != -100).sum().item() for _, tb in micro_batches]
# Loss elements per micro-batch: the two means average over 21 and 6.
print(counts)
#> [21, 6]


def accumulate(scaled_loss):
    model.zero_grad()
    for xb, tb in micro_batches:  # xb: [B, T, 4], tb: [B, T]
        scaled_loss(xb, tb).backward()
    pairs = zip(model.parameters(), full, strict=True)
    return all(torch.allclose(p.grad, g, atol=1e-6) for p, g in pairs)


k = len(micro_batches)
print("mean / k:", accumulate(lambda xb, tb: token_loss(xb, tb) / k))
#> mean / k: False
n_group = sum(counts)  # 27 loss elements in the whole group
same = accumulate(lambda xb, tb: token_loss(xb, tb, "sum") / n_group)
print("sum / n_group:", same)
#> sum / n_group: True
