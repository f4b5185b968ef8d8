import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# A gradient like a real layer's: four strong directions, a weak rest.
u, v = torch.randn(128, 4), torch.randn(4, 32)
grad = (u @ v + 0.05 * torch.randn(128, 32)).to(device)


def first_update(optimizer_class, g, **kwargs):
    """What one step with lr=1 does to a weight whose gradient is g."""
    w = nn.Parameter(torch.zeros(g.shape, device=device))
    optimizer = optimizer_class([w], lr=1.0, weight_decay=0.0, **kwargs)
    w.grad = g.clone()
    optimizer.step()
    return -w.detach()


def spread(m):
    """The largest singular value over the smallest."""
    s = torch.linalg.svdvals(m.float().cpu())
    return (s.max() / s.min()).item()


plain = {"momentum": 0.0, "nesterov": False}  # this gradient alone
adamw = first_update(torch.optim.AdamW, grad)
muon = first_update(torch.optim.Muon, grad, **plain)
for name, m in [("gradient", grad), ("AdamW", adamw), ("Muon", muon)]:
    print(f"{name}: {spread(m):.0f}")
    #> gradient: 242
    #> AdamW: 16
    #> Muon: 2
# Muon's direction without its learning-rate factor (2 here, see below):
s = torch.linalg.svdvals(muon.float().cpu() / 2)
print(bool(((s > 0.5) & (s < 1.5)).all()))
#> True

# The factor: the same gradient as a tall (128, 32) and a wide (32, 128)
# matrix, under each adjustment that every supported release has.
for fn in ("original", "match_rms_adamw"):
    tall = first_update(torch.optim.Muon, grad, adjust_lr_fn=fn, **plain)
    wide = first_update(torch.optim.Muon, grad.T, adjust_lr_fn=fn, **plain)
    ratio = (tall.norm() / wide.norm()).item()
    rms = [round(m.pow(2).mean().sqrt().item(), 1) for m in (tall, wide)]
    print(f"{fn}: tall/wide {ratio:.2f}, RMS {rms}")
    #> original: tall/wide 2.00, RMS [0.2, 0.1]
    #> match_rms_adamw: tall/wide 1.00, RMS [0.2, 0.2]
