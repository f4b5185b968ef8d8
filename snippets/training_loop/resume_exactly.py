import os
import tempfile

import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(256, 20)  # X: [N, 20]
y = (X[:, :3].sum(dim=1) > 0).long()  # y: [N]
loss_fn = nn.CrossEntropyLoss()
epochs = 3


# What the script does first, in the first process and in the resumed one:
def start():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(20, 32), nn.ReLU(), nn.Dropout(p=0.2), nn.Linear(32, 2)
    )
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    shuffle_rng = torch.Generator().manual_seed(0)
    dataset = TensorDataset(X, y)
    loader = DataLoader(
        dataset, batch_size=64, shuffle=True, generator=shuffle_rng
    )
    return model, optimizer, scheduler, loader


def train_epoch(model, optimizer, scheduler, loader):
    model.train()
    for xb, yb in loader:  # xb: [B, 20], yb: [B]
        xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    scheduler.step()


# Dropout draws from the generator of the device it runs on.
def get_rng_states():
    states = {"cpu": torch.get_rng_state()}
    if device.type != "cpu":
        module = torch.get_device_module(device)
        states[device.type] = module.get_rng_state()
    return states


def set_rng_states(states):
    torch.set_rng_state(states["cpu"])
    if device.type != "cpu":
        torch.get_device_module(device).set_rng_state(states[device.type])


# The reference: all epochs in one go.
model, optimizer, scheduler, loader = start()
for _ in range(epochs):
    train_epoch(model, optimizer, scheduler, loader)
reference = [p.detach().clone() for p in model.parameters()]

# The same run, stopped after one epoch with a checkpoint of everything the
# rest depends on.
model, optimizer, scheduler, loader = start()
train_epoch(model, optimizer, scheduler, loader)
checkpoint = {
    "epoch": 1,
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),
    "scheduler": scheduler.state_dict(),
    "loader_rng": loader.generator.get_state(),
    "rng": get_rng_states(),
}
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    torch.save(checkpoint, path)
    # Every part loads safely:
    loaded = torch.load(path, map_location="cpu", weights_only=True)
print(sorted(loaded))
#> ['epoch', 'loader_rng', 'model', 'optimizer', 'rng', 'scheduler']


# A new process: start(), load the checkpoint, run the other epochs.
def resume(leave_out=None):
    model, optimizer, scheduler, loader = start()
    model.load_state_dict(loaded["model"])
    optimizer.load_state_dict(loaded["optimizer"])
    if leave_out != "scheduler":
        scheduler.load_state_dict(loaded["scheduler"])
    if leave_out != "loader_rng":
        loader.generator.set_state(loaded["loader_rng"])
    if leave_out != "rng":
        set_rng_states(loaded["rng"])
    for _ in range(loaded["epoch"], epochs):
        train_epoch(model, optimizer, scheduler, loader)
    pairs = zip(model.parameters(), reference, strict=True)
    return all(torch.equal(p, r) for p, r in pairs)


# The same weights as the run that never stopped:
print("all restored:", resume())
#> all restored: True
for part in ("scheduler", "loader_rng", "rng"):
    print(f"without {part}:", resume(leave_out=part))
    #> without scheduler: False
    #> without loader_rng: False
    #> without rng: False
