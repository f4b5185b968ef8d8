import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

lines = []
for mode in ("default", "reduce-overhead", "max-autotune"):
    options = torch._inductor.list_mode_options(mode)  # (1)!
    lines.append(f"{mode}: {', '.join(sorted(options)) or '(none)'}")
print("\n".join(lines))
'''
default: (none)
reduce-overhead: triton.cudagraphs
max-autotune: coordinate_descent_tuning, max_autotune, triton.cudagraphs
'''

model = nn.Linear(8, 4).to(device)
options = {"max_autotune": True}
try:
    torch.compile(model, mode="max-autotune", options=options)  # (2)!
except RuntimeError as err:
    print(str(err).split(",")[0])
    #> Either mode or options can be specified
