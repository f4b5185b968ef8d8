import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Few training points, a fifth of the labels wrong: easy to overfit.
X = torch.randn(256, 20)  # X: [N, 20]
y = (X @ torch.randn(20, 3)).argmax(dim=1)  # y: [N]
noisy = torch.rand(256) < 0.2
y[noisy] = torch.randint(0, 3, (int(noisy.sum()),))
train_set = TensorDataset(X[:96], y[:96])
loader_rng = torch.Generator()  # iter() draws from it, not torch's own
train_loader = DataLoader(train_set, batch_size=32, generator=loader_rng)
val_x, val_y = X[96:].to(device), y[96:].to(device)

model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 3))
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

train_losses, val_losses = [], []
for _ in range(30):  # epochs
    model.train()
    total = 0.0
    for xb, yb in train_loader:  # xb: [B, 20], yb: [B]
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)  # loss: []
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)
    train_losses.append(total / 96)
    model.eval()
    with torch.inference_mode():
        val_losses.append(loss_fn(model(val_x), val_y).item())

best = min(range(30), key=val_losses.__getitem__)
print("train:", round(train_losses[0], 2), "to", round(train_losses[-1], 3))
#> train: 1.05 to 0.003
print("eval lowest at epoch", best, round(val_losses[best], 2))
#> eval lowest at epoch 2 0.91
print("eval at the end:", round(val_losses[-1], 2))
#> eval at the end: 2.12

plt.plot(train_losses, label="train loss")
plt.plot(val_losses, label="eval loss")
plt.axvline(best, color="C2", linestyle=":", label="lowest eval loss")
plt.xlabel("epoch")
plt.ylabel("cross-entropy loss")
plt.legend()
plt.show()
