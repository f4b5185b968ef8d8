import copy

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 20).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (64,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
model = model.to(device)

# Three implementations of the same AdamW update.
choices = {
    "for-loop": {"foreach": False},  # one parameter at a time
    "foreach": {"foreach": True},  # each op on all parameters at once
    "fused": {"fused": True},  # all of the update in one kernel
}
nets = {}
for name, implementation in choices.items():
    net = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(
        net.parameters(), lr=1e-2, weight_decay=0.1, **implementation
    )
    for _ in range(5):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)  # loss: []
        loss.backward()
        optimizer.step()
    nets[name] = torch.nn.utils.parameters_to_vector(net.parameters())

# Left unset, both stay None: every step() decides again, stores nothing.
net = copy.deepcopy(model)
default = torch.optim.AdamW(net.parameters(), lr=1e-2)
nn.functional.cross_entropy(net(x), y).backward()
default.step()
group = default.param_groups[0]
print("after a step:", group["foreach"], group["fused"])
#> after a step: None None
for name in ("foreach", "fused"):
    close = torch.allclose(nets[name], nets["for-loop"], atol=1e-5)
    print(f"{name} == for-loop (atol 1e-5): {close}")
    #> foreach == for-loop (atol 1e-5): True
    #> fused == for-loop (atol 1e-5): True
# The optimizers trained copies; the original never ran backward().
# expect-no-grad: model.*
