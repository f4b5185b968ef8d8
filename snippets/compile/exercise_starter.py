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


def loss_of(model):
    with torch.no_grad():
        return nn.functional.cross_entropy(model(x), y).item()


model = torch.compile(make_model(), backend="eager")
optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
for _ in range(20):
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)

buffer.seek(0)
evaluated = make_model()
result = evaluated.load_state_dict(torch.load(buffer), strict=False)
print("keys not loaded:", len(result.missing_keys))
#> keys not loaded: 4
same = abs(loss_of(evaluated) - loss_of(model)) < 1e-6
print("same loss as trained:", same)
#> same loss as trained: False
# The evaluated model never runs backward(): it has no gradients.
# expect-no-grad: evaluated.*
