import io

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 4).to(device)  # x: [B, 4]
y = torch.randint(0, 2, (64,)).to(device)  # y: [B]


def make_model():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    return model.to(device)


def train(compiled, optimizer, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.cross_entropy(compiled(x), y).backward()
        optimizer.step()


model = make_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
compiled = torch.compile(model, backend="eager")
train(compiled, optimizer, 3)
buffer = io.BytesIO()  # a file would do the same
state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
torch.save(state, buffer)  # (1)!
train(compiled, optimizer, 3)  # the uninterrupted run goes on

buffer.seek(0)
checkpoint = torch.load(buffer, weights_only=True)
print(list(checkpoint["model"])[:2])
#> ['0.weight', '0.bias']
resumed = make_model()
print(resumed.load_state_dict(checkpoint["model"]))
#> <All keys matched successfully>
resumed_optimizer = torch.optim.AdamW(resumed.parameters(), lr=0.01)
resumed_optimizer.load_state_dict(checkpoint["optimizer"])  # (2)!
resumed.compile(backend="eager")  # (3)!
train(resumed, resumed_optimizer, 3)

pairs = zip(model.parameters(), resumed.parameters(), strict=True)
print(all(torch.equal(p, q) for p, q in pairs))
#> True
