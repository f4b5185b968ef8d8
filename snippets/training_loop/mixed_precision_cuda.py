# requires: cuda
# stays-on-cpu: x, y
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")

x = torch.randn(512, 20)  # the data set stays on the CPU; batches are copied over
y = (x[:, :5].sum(dim=1) > 0).long()
loader = DataLoader(
    TensorDataset(x, y),
    batch_size=64,
    shuffle=True,
    pin_memory=True,  # page-locked batches: the copy to the GPU can run asynchronously
    generator=torch.Generator().manual_seed(0),
)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
scaler = torch.amp.GradScaler(device.type, init_scale=2.0**10)

model.train()
for xb, yb in loader:  # xb: [B, 20], yb: [B]
    xb = xb.to(device, non_blocking=True)
    yb = yb.to(device, non_blocking=True)
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type, dtype=torch.float16):
        logits = model(xb)  # logits: [B, 2]
        loss = loss_fn(logits, yb)  # loss: []
    assert logits.dtype == torch.float16  # the matrix multiplies ran in half precision
    assert loss.dtype == torch.float32  # the loss is computed in float32
    scaler.scale(loss).backward()  # scaled up so small float16 gradients do not flush to 0
    scaler.step(optimizer)  # unscales the gradients; skips the step if any is inf or NaN
    scaler.update()

assert all(p.dtype == torch.float32 for p in model.parameters())  # weights stay float32
assert scaler.get_scale() > 0
