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
twin = copy.deepcopy(model)  # the same weights, to be compiled
compiled = torch.compile(twin)  # (1)!

out = model(x)  # out: [B, 5]
nn.functional.cross_entropy(out, y).backward()
compiled_out = compiled(x)  # compiled_out: [B, 5]
nn.functional.cross_entropy(compiled_out, y).backward()

print(type(compiled).__name__, compiled._orig_mod is twin)
#> OptimizedModule True
print(torch.allclose(compiled_out, out, atol=1e-5))
#> True
pairs = zip(twin.parameters(), model.parameters(), strict=True)
print(all(torch.allclose(p.grad, q.grad, atol=1e-5) for p, q in pairs))
#> True
