import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Synthetic data, made on the CPU: 640 points, 20 features, 3 classes set
# by a random "teacher".
# stays-on-cpu: X, y, teacher
X = torch.randn(640, 20)  # X: [N, 20]
teacher = torch.randn(20, 3)  # teacher: [20, 3]
y = (X @ teacher).argmax(dim=1)  # y: [N]

train_set = TensorDataset(X[:512], y[:512])
val_set = TensorDataset(X[512:], y[512:])
# The shuffle order's own random generator:
shuffle_rng = torch.Generator().manual_seed(0)
train_loader = DataLoader(
    train_set,
    batch_size=64,
    shuffle=True,
    generator=shuffle_rng,
    num_workers=0,
)
val_loader = DataLoader(
    val_set, batch_size=64, num_workers=0, generator=torch.Generator()
)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def train_one_epoch(model, loader, loss_fn, optimizer):
    model.train()  # every epoch: evaluate() switches to eval mode
    total, count = 0.0, 0
    for xb, yb in loader:  # xb: [B, 20], yb: [B]
        xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
        optimizer.zero_grad()
        logits = model(xb)  # logits: [B, 3]
        loss = loss_fn(logits, yb)  # loss: []
        loss.backward()
        optimizer.step()
        total += loss.item() * len(yb)  # a Python float: no graph is kept
        count += len(yb)
    return total / count


def evaluate(model, loader):
    model.eval()
    correct, count = 0, 0
    with torch.inference_mode():
        for xb, yb in loader:  # xb: [B, 20], yb: [B]
            xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
            logits = model(xb)  # logits: [B, 3]
            correct += (logits.argmax(dim=1) == yb).sum().item()
            count += len(yb)
    return correct / count


for epoch in range(3):
    train_loss = train_one_epoch(model, train_loader, loss_fn, optimizer)
    val_acc = evaluate(model, val_loader)
    print(epoch, round(train_loss, 3), round(val_acc, 3))
    #> 0 1.02 0.867
    #> 1 0.566 0.914
    #> 2 0.255 0.953
