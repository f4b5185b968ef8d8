import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 20).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
# Two models, each with its own loss and optimizer, and one scaler.
first = nn.Linear(20, 10).to(device)
second = nn.Linear(20, 10).to(device)
opt_first = torch.optim.SGD(first.parameters(), lr=0.01)
opt_second = torch.optim.SGD(second.parameters(), lr=0.01)
scaler = torch.amp.GradScaler(device.type)
weights = [first.weight.detach().clone(), second.weight.detach().clone()]

with torch.autocast(device.type, dtype=torch.float16):
    loss_first = nn.functional.cross_entropy(first(x), y)
    # Inputs 100x larger: these gradients overflow at a scale of 65536.
    loss_second = nn.functional.cross_entropy(second(100 * x), y)
scaler.scale(loss_first).backward()
scaler.scale(loss_second).backward()
scaler.step(opt_first)  # checks this optimizer's gradients only
scaler.step(opt_second)
scaler.update()  # once per iteration, after every optimizer's step

stepped = [
    not torch.equal(before, model.weight)
    for before, model in zip(weights, (first, second), strict=True)
]
print("stepped:", stepped, "next scale:", scaler.get_scale())
#> stepped: [True, False] next scale: 32768.0
# The second model's gradients overflowed on purpose (its skipped step).
# expect-nonfinite-grad: second.*
