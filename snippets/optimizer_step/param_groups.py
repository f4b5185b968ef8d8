import torch
from torch import nn
from torch.nn.utils import parameters_to_vector

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        # A backbone (pretrained, say) and a new head, trained from scratch:
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):  # x: [B, 8]
        features = self.backbone(x)  # features: [B, 16]
        return self.head(features)  # logits: [B, 3]


model = Classifier().to(device)
x = torch.randn(32, 8).to(device)  # x: [B, 8]
labels = torch.randint(0, 3, (32,)).to(device)  # labels: [B]

optimizer = torch.optim.SGD(
    [
        {"params": model.backbone.parameters(), "lr": 1e-4},
        {"params": model.head.parameters()},  # no "lr": takes the default
    ],
    lr=1e-2,
)
print([group["lr"] for group in optimizer.param_groups])
#> [0.0001, 0.01]
# A weight and a bias in each group:
print([len(group["params"]) for group in optimizer.param_groups])
#> [2, 2]

loss = nn.functional.cross_entropy(model(x), labels)  # loss: []
loss.backward()
before = [
    parameters_to_vector(g["params"]).detach()
    for g in optimizer.param_groups
]
optimizer.step()

# Measure each group's step: |update| / |grad| over all its parameters.
for group, old in zip(optimizer.param_groups, before, strict=True):
    new = parameters_to_vector(group["params"]).detach()  # new: [N]
    grads = [p.grad for p in group["params"]]
    grad = parameters_to_vector(grads)  # grad: [N]
    measured = ((old - new).norm() / grad.norm()).item()
    print(f"lr {group['lr']:.0e} -> measured {measured:.2e}")
    #> lr 1e-04 -> measured 1.00e-04
    #> lr 1e-02 -> measured 1.00e-02
