# stays-on-cpu: x, y
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The data set stays on the CPU; batches are copied over.
x = torch.randn(256, 20)
y = (x[:, :5].sum(dim=1) > 0).long()


def train(amp_dtype):
    """Three epochs, in amp_dtype: bfloat16, float16 or None (float32)."""
    torch.manual_seed(0)
    loader = DataLoader(
        TensorDataset(x, y),
        batch_size=64,
        shuffle=True,
        # Page-locked batches: the copy can run asynchronously.
        pin_memory=device.type == "cuda",
        generator=torch.Generator().manual_seed(0),
    )
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    # Only float16 needs the scaler; disabled, each of its calls passes
    # straight through.
    use_scaler = amp_dtype == torch.float16
    scaler = torch.amp.GradScaler(device.type, enabled=use_scaler)
    losses = []
    for _epoch in range(3):
        model.train()
        total = 0.0
        for xb, yb in loader:  # xb: [B, 20], yb: [B]
            xb = xb.to(device, non_blocking=True)
            yb = yb.to(device, non_blocking=True)
            with torch.autocast(
                device.type, dtype=amp_dtype, enabled=amp_dtype is not None
            ):
                logits = model(xb)  # logits: [B, 2]
                loss = F.cross_entropy(logits, yb)  # loss: [] float32
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            clip_grad_norm_(model.parameters(), max_norm=1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            total += loss.item() * len(yb)
        losses.append(total / len(x))
    return model, scaler, losses


_, _, fp32_losses = train(None)
for amp_dtype in (torch.bfloat16, torch.float16):
    model, scaler, losses = train(amp_dtype)
    # The final loss, against float32's:
    close = abs(losses[-1] - fp32_losses[-1]) < 0.01
    print(amp_dtype, scaler.is_enabled(), losses[-1] < losses[0], close)
    #> torch.bfloat16 False True True
    #> torch.float16 True True True
# Each step ends with zero_grad(): the gradients are None on purpose.
# expect-no-grad: model.*
