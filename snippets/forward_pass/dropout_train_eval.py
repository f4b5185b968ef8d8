import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

p = 0.25
dropout = nn.Dropout(p=p).to(device)
x = (torch.rand(1000, 1000) + 0.5).to(device)  # x: [N, 1000]

print(dropout.training)  # a new module starts in train mode
#> True
dropout.train()
y = dropout(x)  # y: [N, 1000]
kept = y != 0  # kept: [N, 1000]
print((~kept).any().item(), kept.any().item())  # some zeroed, some kept
#> True True
print(torch.allclose(y[kept], x[kept] / (1 - p)))  # scaled by 1/(1-p)
#> True
print(abs(kept.float().mean().item() - (1 - p)) < 0.01)  # about 1 - p kept
#> True
print(torch.allclose(y.mean(), x.mean(), rtol=0.01))  # mean preserved
#> True

dropout.eval()
print(torch.equal(dropout(x), x))  # identity
#> True
