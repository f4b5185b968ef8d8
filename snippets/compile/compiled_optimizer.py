import copy

import torch
from torch import nn
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

torch._dynamo.reset()  # fresh caches: the count below is this example's
x = torch.randn(32, 8).to(device)  # x: [B, 8]
y = torch.randint(0, 4, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
model = model.to(device)
twin = copy.deepcopy(model)  # stepped by the plain optimizer
lr = torch.tensor(0.01)  # (1)!
optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
twin_optimizer = torch.optim.AdamW(twin.parameters(), lr=lr.clone())
schedulers = [
    torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=4)
    for opt in (optimizer, twin_optimizer)
]
counter = CompileCounter()


@torch.compile(backend=counter)  # (2)!
def optimizer_step():
    optimizer.step()


for _ in range(5):
    for net, opt in ((model, optimizer), (twin, twin_optimizer)):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
    optimizer_step()
    twin_optimizer.step()
    for scheduler in schedulers:
        scheduler.step()

print("graphs:", counter.frame_count)
#> graphs: 1
pairs = zip(model.parameters(), twin.parameters(), strict=True)
print(all(torch.allclose(p, q, atol=1e-5) for p, q in pairs))
#> True
