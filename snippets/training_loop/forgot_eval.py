import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(128, 20)  # X: [N, 20]
y = torch.randint(0, 3, (128,))  # y: [N]
loader = DataLoader(TensorDataset(X, y), 64, generator=torch.Generator())

model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(64, 3)
)
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()


def validation_loss(model, loader):
    total, count = 0.0, 0
    with torch.inference_mode():  # no graph, but says nothing about dropout
        for xb, yb in loader:  # xb: [B, 20], yb: [B]
            xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
            total += loss_fn(model(xb), yb).item() * len(yb)
            count += len(yb)
    return total / count


print(model.training)  # a fresh module starts in training mode
#> True
print(validation_loss(model, loader) == validation_loss(model, loader))
#> False

model.eval()  # dropout off: the model is a fixed function of its input
print(validation_loss(model, loader) == validation_loss(model, loader))
#> True
