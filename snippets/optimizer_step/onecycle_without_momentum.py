import textwrap

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)


def one_cycle(optimizer, **kwargs):
    return torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, epochs=2, steps_per_epoch=3, **kwargs
    )


sgd = torch.optim.SGD(model.parameters(), lr=0.1)
print(sgd.param_groups[0]["momentum"])  # plain SGD, as built
#> 0
# The default, cycle_momentum=True, writes a momentum into the group:
one_cycle(sgd)
print(sgd.param_groups[0]["momentum"], sgd.param_groups[0]["base_momentum"])
#> 0.95 0.85

plain = torch.optim.SGD(model.parameters(), lr=0.1)
one_cycle(plain, cycle_momentum=False)  # schedules the learning rate only
group = plain.param_groups[0]
print(group["momentum"], round(group["lr"], 3))
#> 0 0.004

adam = torch.optim.Adam(model.parameters(), lr=0.1)
one_cycle(adam)  # for Adam it cycles beta1 instead of a momentum
print(adam.param_groups[0]["betas"])
#> (0.95, 0.999)

# Adagrad has neither a momentum nor betas: the default refuses it.
adagrad = torch.optim.Adagrad(model.parameters(), lr=0.1)
try:
    one_cycle(adagrad)
except ValueError as err:
    print(textwrap.fill(str(err), width=60))
    '''
    optimizer must support momentum or beta1 with
    `cycle_momentum` option enabled
    '''
one_cycle(adagrad, cycle_momentum=False)  # the learning rate alone
print(round(adagrad.param_groups[0]["lr"], 3))
#> 0.004
