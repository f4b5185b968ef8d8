import textwrap
import warnings

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
model = model.to(device)
params = set(model.parameters())  # tensors hash by id: no stable order

try:  # a set inside a parameter group
    torch.optim.SGD([{"params": params}], lr=0.1)
except TypeError as err:
    print(textwrap.fill(str(err), width=64))
    '''
    optimizer parameters need to be organized in ordered
    collections, but the ordering of tensors in sets will change
    between runs. Please use a list instead.
    '''

# The same set at the top level: taken as a list, in the set's order.
# Warnings recorded: 2.13 gives none; 2.15, by its source, a FutureWarning.
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    from_set = torch.optim.SGD(params, lr=0.1)
taken = from_set.param_groups[0]["params"]
print(type(taken).__name__, len(taken))
#> list 4

# A list keeps the order of model.parameters(), the same in every run.
optimizer = torch.optim.SGD(list(model.parameters()), lr=0.1)
names = {id(p): name for name, p in model.named_parameters()}
print([names[id(p)] for p in optimizer.param_groups[0]["params"]])
#> ['0.weight', '0.bias', '2.weight', '2.bias']
