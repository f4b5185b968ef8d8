import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(64, 20)  # X: [N, 20]
y = torch.randint(0, 3, (64,))  # y: [N]
val_set = TensorDataset(X, y)


def next_draw(validate, generator=None):
    """What dropout would draw next, after a validation pass or not."""
    torch.manual_seed(0)
    if validate:  # a loader that does not shuffle
        loader = DataLoader(val_set, batch_size=32, generator=generator)
        for _ in loader:
            pass  # the model would be evaluated here
    return round(torch.rand(()).item(), 4)


print("no validation:", next_draw(False))
#> no validation: 0.4963
print("a validation pass:", next_draw(True))
#> a validation pass: 0.0885
val_rng = torch.Generator().manual_seed(0)
print("with its own generator:", next_draw(True, val_rng))
#> with its own generator: 0.4963
