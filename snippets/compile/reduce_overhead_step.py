# requires: cuda
import copy

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 20).to(device)  # x: [B, 20]
y = torch.randint(0, 5, (64,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
model = model.to(device)
twin = copy.deepcopy(model)  # trained eagerly, for comparison
compiled = torch.compile(model, mode="reduce-overhead")  # (1)!
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
twin_optimizer = torch.optim.SGD(twin.parameters(), lr=0.1)

losses = []
for _ in range(6):
    optimizer.zero_grad()  # (2)!
    torch.compiler.cudagraph_mark_step_begin()  # (3)!
    loss = nn.functional.cross_entropy(compiled(x), y)  # loss: []
    loss.backward()
    optimizer.step()
    losses.append(loss.item())  # (4)!
    twin_optimizer.zero_grad()
    nn.functional.cross_entropy(twin(x), y).backward()
    twin_optimizer.step()

print("loss fell:", losses[-1] < losses[0])
#> loss fell: True
pairs = zip(model.parameters(), twin.parameters(), strict=True)
print(all(torch.allclose(p, q, atol=1e-4) for p, q in pairs))
#> True
