import os
import pickle
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(320, 20)  # X: [N, 20]
y = (X[:, :3].sum(dim=1) > 0).long()  # y: [N]
shuffle_rng = torch.Generator().manual_seed(0)
train_set = TensorDataset(X[:256], y[:256])
train_loader = DataLoader(
    train_set, batch_size=64, shuffle=True, generator=shuffle_rng
)
val_set = TensorDataset(X[256:], y[256:])
val_loader = DataLoader(val_set, 64, generator=torch.Generator())

model = nn.Sequential(
    nn.Linear(20, 32), nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(32, 2)
)
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_one_epoch(model, loader):
    total = 0.0
    for xb, yb in loader:  # xb: [B, 20], yb: [B]
        xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)  # loss: []
        loss.backward()
        optimizer.step()
        total += loss * len(yb)
    return total / len(loader.dataset)


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.inference_mode():
        for xb, yb in loader:  # xb: [B, 20], yb: [B]
            xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
            correct += (model(xb).argmax(dim=1) == yb).sum().item()
    return correct / len(loader.dataset)


model.train()
trained_in_train_mode = []
for _ in range(2):
    train_loss = train_one_epoch(model, train_loader)
    trained_in_train_mode.append(model.training)
    val_acc = evaluate(model, val_loader)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    state = {
        "epoch": 2,
        "model": model,
        "optimizer": optimizer.state_dict(),
    }
    torch.save(state, path)
    try:
        checkpoint = torch.load(path, weights_only=True)
        loads_safely = True
    except pickle.UnpicklingError:
        loads_safely = False

is_float = isinstance(train_loss, float)
print(is_float, all(trained_in_train_mode), loads_safely)
#> False False False
