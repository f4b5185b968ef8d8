import random

import numpy as np
import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def draw():
    """One number from each random number generator a script may use."""
    return {
        "torch (CPU)": torch.rand(1).item(),
        "torch (device)": torch.rand(1, device=device).item(),
        "random": random.random(),
        "numpy": np.random.rand(),
    }


torch.manual_seed(0)
first = draw()
torch.manual_seed(0)
second = draw()
for name in first:
    print(f"{name:14} repeats: {first[name] == second[name]}")
    #> torch (CPU)    repeats: True
    #> torch (device) repeats: True
    #> random         repeats: False
    #> numpy          repeats: False


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU and every accelerator


seed_everything(0)
first = draw()
seed_everything(0)
print("after seed_everything, all repeat:", first == draw())
#> after seed_everything, all repeat: True
