import os
import tempfile

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
loader = DataLoader(
    TensorDataset(X, y), batch_size=64, shuffle=True, generator=shuffle_rng
)
loss_fn = nn.CrossEntropyLoss()


def make_model():
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
    return model.to(device)


def train_step(model, optimizer, xb, yb):  # xb: [B, 20], yb: [B]
    model.train()
    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)  # loss: []
    loss.backward()
    optimizer.step()


model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for xb, yb in loader:  # one epoch; xb: [B, 20], yb: [B]
    train_step(model, optimizer, xb.to(device), yb.to(device))

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    checkpoint = {
        "epoch": 1,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
    }
    torch.save(checkpoint, path)
    loaded = torch.load(path, map_location="cpu", weights_only=True)
print(os.path.exists(path))  # the directory and the file are gone
#> False
print(sorted(loaded), loaded["epoch"])
#> ['epoch', 'model', 'optimizer'] 1

# A new process would start here: build the objects, then pour the saved
# state into them.
restored = make_model()  # fresh random weights, on device...
restored_optimizer = torch.optim.Adam(restored.parameters(), lr=0.01)
# ...overwritten in place by the saved ones; the optimizer's state is moved
# to its parameters' device:
restored.load_state_dict(loaded["model"])
restored_optimizer.load_state_dict(loaded["optimizer"])
start_epoch = loaded["epoch"]  # the next epoch to run (epochs count from 0)

x_check = X[:8].to(device)  # x_check: [B, 20]
model.eval()
restored.eval()
with torch.inference_mode():
    print(torch.equal(model(x_check), restored(x_check)))
    #> True

# Resume: one more step on the same batch for the original, the restored
# model, and a restored model whose optimizer state was NOT loaded.
forgetful = make_model()
forgetful.load_state_dict(loaded["model"])
forgetful_optimizer = torch.optim.Adam(forgetful.parameters(), lr=0.01)
xb, yb = X[:64].to(device), y[:64].to(device)  # xb: [B, 20], yb: [B]
train_step(model, optimizer, xb, yb)
train_step(restored, restored_optimizer, xb, yb)
train_step(forgetful, forgetful_optimizer, xb, yb)


def same_parameters(a, b):
    pairs = zip(a.parameters(), b.parameters(), strict=True)
    return all(torch.equal(p, q) for p, q in pairs)


print(same_parameters(model, restored))  # same next step as the original
#> True
# Adam's moments and step count were lost:
print(same_parameters(model, forgetful))
#> False
