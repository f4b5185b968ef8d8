# requires: torch>=2.13
import torch
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

h = torch.randn(4, 16, 32).to(device)  # h: [B, T, 32]
W = torch.randn(1000, 32).to(device)  # W: [V, 32]
y = torch.randint(1000, (4, 16)).to(device)  # y: [B, T]
try:
    F.linear_cross_entropy(h, W, y)
except RuntimeError as err:
    print(err)
    #> expected input with dimensionality 1 or 2, got 3
flat = h.flatten(0, 1)  # flat: [N, 32]
loss = F.linear_cross_entropy(flat, W, y.flatten())  # loss: []
print(flat.shape, loss.shape)
#> torch.Size([64, 32]) torch.Size([])
