import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(256, 20)  # X: [N, 20]
y = (X[:, :3].sum(dim=1) > 0).long()  # y: [N]
shuffle_rng = torch.Generator().manual_seed(0)
train_set = TensorDataset(X[:192], y[:192])
train_loader = DataLoader(
    train_set, batch_size=64, shuffle=True, generator=shuffle_rng
)
val_set = TensorDataset(X[192:], y[192:])
val_loader = DataLoader(val_set, batch_size=64, generator=torch.Generator())

model = nn.Sequential(
    nn.Linear(20, 32), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(32, 2)
)
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_one_epoch(model, loader):  # the bug: no model.train() in here
    modes = []
    for xb, yb in loader:  # xb: [B, 20], yb: [B]
        xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)  # loss: []
        loss.backward()
        optimizer.step()
        modes.append(model.training)  # the mode this step really ran in
    return modes


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.inference_mode():
        for xb, yb in loader:  # xb: [B, 20], yb: [B]
            xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
            correct += (model(xb).argmax(dim=1) == yb).sum().item()
    return correct / len(loader.dataset)


model.train()  # called once, before the loop
for epoch in range(2):
    modes = train_one_epoch(model, train_loader)
    # Did every step, and did any step, train in train mode?
    print(epoch, all(modes), any(modes))
    #> 0 True True
    #> 1 False False
    evaluate(model, val_loader)

xb = X[:64].to(device)  # xb: [B, 20]
print(torch.equal(model(xb), model(xb)))  # eval mode still: dropout is off
#> True
model.train()  # the fix: switch back before every training epoch
print(torch.equal(model(xb), model(xb)))  # dropout is active again
#> False
