# requires: torch>=2.13
import torch
from torch import nn
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(256, 32).to(device)  # x: [N, 32]
y = torch.randint(1000, (256,)).to(device)  # y: [N]
body = nn.Linear(32, 32).to(device)
head = nn.Linear(32, 1000, bias=False).to(device)
optimizer = torch.optim.SGD([*body.parameters(), *head.parameters()])
chunked = LinearCrossEntropyOptions(batch_chunk_size=64)


def head_grad(options, dtype=torch.float16, scale=32768.0, upcast=False):
    """The head's gradient from an autocast step with a GradScaler."""
    optimizer.zero_grad()
    scaler = torch.amp.GradScaler(
        device.type, init_scale=scale, enabled=dtype == torch.float16
    )  # bfloat16 needs no scaler
    with torch.autocast(device.type, dtype=dtype):
        # A small hidden state gives a small weight gradient, as the mean
        # over many tokens and classes does in a language model.
        h = body(x) * 1e-4  # h: [N, 32]
        if upcast:
            h = h.float()
        loss = F.linear_cross_entropy(h, head.weight, y, options=options)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # .grad divided by the scale, in float32
    return loss.dtype, head.weight.grad


dtype, grad = head_grad(chunked, scale=65536.0)
print(f"fused loss: {dtype}, finite at 65536: {grad.isfinite().all()}")
#> fused loss: torch.float16, finite at 65536: False
for name, options, dtype, upcast in [
    ("reference", None, torch.float16, False),
    ("fused", chunked, torch.float16, False),
    ("fused, h.float()", chunked, torch.float16, True),
    ("fused, bfloat16", chunked, torch.bfloat16, False),
]:
    _, grad = head_grad(options, dtype, upcast=upcast)
    print(f"{name}: {(grad == 0).float().mean():.0%} of entries zero")
    #> reference: 0% of entries zero
    #> fused: 80% of entries zero
    #> fused, h.float(): 0% of entries zero
    #> fused, bfloat16: 0% of entries zero
