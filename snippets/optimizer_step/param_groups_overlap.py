import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
model = model.to(device)
head = model[2]

try:  # model.parameters() already contains the head's parameters
    torch.optim.SGD(
        [
            {"params": model.parameters()},
            {"params": head.parameters(), "lr": 1e-2},
        ],
        lr=1e-4,
    )
except ValueError as err:
    print(err)
    #> some parameters appear in more than one parameter group

head_ids = {id(p) for p in head.parameters()}
rest = [p for p in model.parameters() if id(p) not in head_ids]
optimizer = torch.optim.SGD(
    [{"params": rest}, {"params": head.parameters(), "lr": 1e-2}],
    lr=1e-4,
)
print([len(group["params"]) for group in optimizer.param_groups])
#> [2, 2]
