import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

logits = torch.randn(8, 5).to(device)
target = torch.randint(0, 5, (8,)).to(device)

per_sample = nn.CrossEntropyLoss(reduction="none")(logits, target)
default = nn.CrossEntropyLoss()(logits, target)  # default: []
summed = nn.CrossEntropyLoss(reduction="sum")(logits, target)  # summed: []
print(per_sample.shape, default.shape)
#> torch.Size([8]) torch.Size([])
mean_ok = torch.allclose(per_sample.mean(), default)
sum_ok = torch.allclose(per_sample.sum(), summed)
print(mean_ok, sum_ok)
#> True True
