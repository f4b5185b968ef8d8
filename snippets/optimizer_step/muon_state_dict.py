import io

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
x, y = torch.randn(32, 16).to(device), torch.randint(4, (32,)).to(device)


def build():
    """A model whose two hidden layers go to Muon, the rest to AdamW."""
    model = nn.Sequential(
        nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4),
    ).to(device)  # fmt: skip
    hidden = [model[2].weight, model[4].weight]
    muon_ids = {id(p) for p in hidden}
    rest = [p for p in model.parameters() if id(p) not in muon_ids]
    muon = torch.optim.Muon(hidden, lr=0.02)
    adamw = torch.optim.AdamW(rest, lr=1e-3)
    return model, muon, adamw


def train_step(model, optimizers):
    for opt in optimizers:
        opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    for opt in optimizers:
        opt.step()


model, muon, adamw = build()
for _ in range(3):
    train_step(model, [muon, adamw])
print([list(muon.state[p]) for p in muon.param_groups[0]["params"]])
#> [['momentum_buffer'], ['momentum_buffer']]

buffer = io.BytesIO()  # a checkpoint file
state = {"model": model, "muon": muon, "adamw": adamw}
torch.save({k: v.state_dict() for k, v in state.items()}, buffer)
buffer.seek(0)
saved = torch.load(buffer)
group = saved["muon"]["param_groups"][0]
print({k: group[k] for k in ("lr", "momentum", "nesterov", "ns_steps")})
#> {'lr': 0.02, 'momentum': 0.95, 'nesterov': True, 'ns_steps': 5}

resumed, muon2, adamw2 = build()  # fresh objects, as after a restart
resumed.load_state_dict(saved["model"])
muon2.load_state_dict(saved["muon"])
adamw2.load_state_dict(saved["adamw"])
train_step(model, [muon, adamw])  # the run that never stopped
train_step(resumed, [muon2, adamw2])
same = zip(model.parameters(), resumed.parameters(), strict=True)
print(all(torch.equal(a, b) for a, b in same))
#> True

# The weights alone, into fresh optimizers: Muon's momentum starts at zero
# again, and the next step is not the one the run would have taken.
weights_only, muon3, adamw3 = build()
weights_only.load_state_dict(saved["model"])
train_step(weights_only, [muon3, adamw3])
print(torch.equal(weights_only[2].weight, model[2].weight))
#> False
