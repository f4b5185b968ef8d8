import copy
import math

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(256, 10).to(device)  # x: [N, 10]
y = (x @ torch.randn(10, 3).to(device)).argmax(dim=1)  # y: [N]
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()


def train(model, softmax_first, steps=301):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    history = {}
    for step in range(steps):
        optimizer.zero_grad()
        logits = model(x)  # logits: [N, 3]
        inputs = logits.softmax(dim=1) if softmax_first else logits  # (1)!
        loss = loss_fn(inputs, y)  # loss: []
        loss.backward()
        optimizer.step()
        acc = (logits.argmax(dim=1) == y).float().mean()  # acc: []
        history[step] = (loss.item(), acc.item())
    return history


bug = train(copy.deepcopy(model), softmax_first=True)  # the same start
plain = train(model, softmax_first=False)
print("step | logits: loss, acc | softmax first: loss, acc")
#> step | logits: loss, acc | softmax first: loss, acc
for step in (0, 50, 100, 300):
    (a, b), (c, d) = plain[step], bug[step]
    print(f"{step:4} | {a:12.2f}, {b:.2f} | {c:19.2f}, {d:.2f}")
    #>    0 |         1.16, 0.24 |                1.11, 0.24
    #>   50 |         0.12, 0.98 |                0.70, 0.95
    #>  100 |         0.06, 1.00 |                0.62, 0.97
    #>  300 |         0.02, 1.00 |                0.58, 0.99
print("lowest loss with softmax first:", round(math.log(1 + 2 / math.e), 3))
#> lowest loss with softmax first: 0.551
