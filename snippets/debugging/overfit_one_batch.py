import math

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# One batch: 16 points, 10 features, labels drawn at random from 3 classes.
x = torch.randn(16, 10).to(device)  # x: [B, 10]
y = torch.randint(0, 3, (16,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()

threshold, max_steps = 0.01, 200
for step in range(max_steps):
    loss = loss_fn(model(x), y)  # loss: []
    if step == 0:  # an untrained model guesses: about log(3)
        print("first loss:", round(loss.item(), 2), round(math.log(3), 2))
        #> first loss: 1.14 1.1
    if loss.item() < threshold:
        break
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print("below", threshold, "at step", step)
#> below 0.01 at step 47
print("memorized the batch:", loss.item() < threshold)
#> memorized the batch: True
