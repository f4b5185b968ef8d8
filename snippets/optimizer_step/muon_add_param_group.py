import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

layer = nn.Linear(64, 256).to(device)
x = torch.randn(8, 64).to(device)  # x: [B, 64]

# Built over the weight alone, Muon takes the bias later without a check.
muon = torch.optim.Muon([layer.weight], lr=0.02)
muon.add_param_group({"params": [layer.bias]})
print([list(group["params"][0].shape) for group in muon.param_groups])
#> [[256, 64], [256]]

layer(x).square().mean().backward()
weight, bias = layer.weight.detach().clone(), layer.bias.detach().clone()
try:
    muon.step()  # the groups in order: the weight's, then the bias's
except ValueError as err:
    print(err)
    #> Param gradient must be a 2D matrix
# The step stopped half done: the first group was updated before it.
print("weight moved:", not torch.equal(layer.weight, weight))
#> weight moved: True
print("bias moved:", not torch.equal(layer.bias, bias))
#> bias moved: False
