import warnings

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(1, 1, 4, 4).to(device)  # x: [N, C, H, W]
pooled, indices = nn.MaxPool2d(2, return_indices=True)(x)
unpool = nn.MaxUnpool2d(2)  # scatters values back: no deterministic kernel

torch.use_deterministic_algorithms(True)
try:
    unpool(pooled, indices)
except RuntimeError as err:
    message = str(err)
print(message.split(",")[0])
#> max_unpooling2d_forward_out does not have a deterministic implementation

torch.use_deterministic_algorithms(True, warn_only=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = unpool(pooled, indices)  # out: [N, C, H, W]
print("warn_only:", caught[0].category.__name__, tuple(out.shape))
#> warn_only: UserWarning (1, 1, 4, 4)

# Uninitialized memory is filled with NaN, so reading it shows.
print("torch.empty(3):", torch.empty(3, device=device).isnan().all().item())
#> torch.empty(3): True

torch.use_deterministic_algorithms(False)  # back to the default
print("deterministic:", torch.are_deterministic_algorithms_enabled())
#> deterministic: False
