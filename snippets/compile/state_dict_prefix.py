import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def make_model():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


model = make_model().to(device)
compiled = torch.compile(model, backend="eager")  # (1)!
print(list(compiled.state_dict())[:2])
#> ['_orig_mod.0.weight', '_orig_mod.0.bias']
in_place = make_model().to(device)
in_place.compile(backend="eager")  # (2)!
print(type(in_place).__name__, list(in_place.state_dict())[:2])
#> Sequential ['0.weight', '0.bias']

plain = make_model().to(device)
try:
    plain.load_state_dict(compiled.state_dict())
except RuntimeError as err:
    first, missing, unexpected = str(err).splitlines()[:3]
    print(first)
    #> Error(s) in loading state_dict for Sequential:
    print(missing.split(", ")[0].strip())
    #> Missing key(s) in state_dict: "0.weight"
    print(unexpected.split(", ")[0].strip())
    #> Unexpected key(s) in state_dict: "_orig_mod.0.weight"

# The fixes: save the module you compiled, not the wrapper ...
print(plain.load_state_dict(model.state_dict()))
#> <All keys matched successfully>
# ... or strip the prefix from a checkpoint that has it.
saved = compiled.state_dict()
state = {k.removeprefix("_orig_mod."): v for k, v in saved.items()}
print(plain.load_state_dict(state))
#> <All keys matched successfully>
