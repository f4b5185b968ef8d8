import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 16).to(device)  # x: [B, 16]
y = torch.randn(32, 1).to(device)  # y: [B, 1]
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def gradients(dtype=None, scaler=None):
    """The gradients of a small loss, autocast to dtype (None: float32)."""
    optimizer.zero_grad()
    enabled = dtype is not None
    with torch.autocast(device.type, dtype=dtype, enabled=enabled):
        loss = F.mse_loss(model(x), y) * 1e-7  # loss: [] float32
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()  # backward from loss * scale
        scaler.unscale_(optimizer)  # divide the float32 .grad by the scale
    return [p.grad.clone() for p in model.parameters()]


def error(grads, reference):
    """The largest relative error over the parameters' gradients."""
    pairs = zip(grads, reference, strict=True)
    return max(((g - r).norm() / r.norm()).item() for g, r in pairs)


reference = gradients()  # float32
fp16 = gradients(torch.float16)
bf16 = gradients(torch.bfloat16)
scaler = torch.amp.GradScaler(device.type)
fp16_scaled = gradients(torch.float16, scaler=scaler)

bf16_error = error(bf16, reference)
fp16_error = error(fp16_scaled, reference)
all_zero = all(bool((g == 0).all()) for g in fp16)
print("float16, every gradient is zero:", all_zero)
#> float16, every gradient is zero: True
print("bfloat16, within 1% of float32:", bf16_error < 0.01)
#> bfloat16, within 1% of float32: True
print("scaled float16, within 1% of float32:", fp16_error < 0.01)
#> scaled float16, within 1% of float32: True
print("scaled float16 is closer than bfloat16:", fp16_error < bf16_error)
#> scaled float16 is closer than bfloat16: True
