import time

import torch
from torch import nn
from torch._dynamo.utils import counters

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

torch._dynamo.reset()  # (1)!
x = torch.randn(64, 20).to(device)  # x: [B, 20]
y = torch.randint(0, 5, (64,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
model = model.to(device)
compiled = torch.compile(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train_step():
    optimizer.zero_grad()
    nn.functional.cross_entropy(compiled(x), y).backward()
    optimizer.step()


def seconds_per_step(steps):
    if device.type == "cuda":
        torch.cuda.synchronize()  # (2)!
    start = time.perf_counter()
    for _ in range(steps):
        train_step()
    if device.type == "cuda":
        torch.cuda.synchronize()  # (3)!
    return (time.perf_counter() - start) / steps


graphs = counters["stats"]["unique_graphs"]  # (4)!
first = seconds_per_step(1)  # compiles: never time this call
for _ in range(3):  # warm-up
    train_step()
warm = counters["stats"]["unique_graphs"]
timed = seconds_per_step(20)  # seconds per step: the number to report
print("graphs compiled in warm-up:", warm - graphs)
#> graphs compiled in warm-up: 1
after = counters["stats"]["unique_graphs"]
print("graphs compiled while timed:", after - warm)
#> graphs compiled while timed: 0
