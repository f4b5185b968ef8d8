import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# One batch to memorize: 32 points, 10 features, 3 random classes.
x = torch.randn(32, 10).to(device)  # x: [B, 10]
y = torch.randint(0, 3, (32,)).to(device)  # y: [B]


def make_model():
    return nn.Sequential(
        nn.Linear(10, 64),
        nn.ReLU(),
        nn.Linear(64, 3),
        nn.Softmax(dim=1),
    ).to(device)


model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()
model = make_model()  # start again from fresh weights

for step in range(300):
    loss = loss_fn(model(x), y)  # loss: []
    if step == 0:
        first = loss.item()
    if loss.item() < 0.05:
        break
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss: {first:.3f} -> {loss.item():.3f} at step {step}")
#> loss: 1.113 -> 1.113 at step 299
print("memorized the batch:", loss.item() < 0.05)
#> memorized the batch: False
