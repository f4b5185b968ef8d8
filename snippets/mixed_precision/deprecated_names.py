import warnings

import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cpu.amp.autocast()  # the old, device-specific names
    torch.cuda.amp.autocast()
    torch.cuda.amp.GradScaler()
# Without a GPU the CUDA names also warn (UserWarning) that CUDA is
# missing; keep the others.
deprecations = [
    str(w.message) for w in caught if w.category is FutureWarning
]
print(len(deprecations))
#> 3
print(deprecations[0].replace(". ", ".\n"))
'''
`torch.cpu.amp.autocast(args...)` is deprecated.
Please use `torch.amp.autocast('cpu', args...)` instead.
'''
cuda_messages = [  # the same for the CUDA names, checked word for word
    "`torch.cuda.amp.autocast(args...)` is deprecated. "
    "Please use `torch.amp.autocast('cuda', args...)` instead.",
    "`torch.cuda.amp.GradScaler(args...)` is deprecated. "
    "Please use `torch.amp.GradScaler('cuda', args...)` instead.",
]
print(deprecations[1:] == cuda_messages)
#> True

# The current names take the device type as their first argument.
scaler = torch.amp.GradScaler(device.type)
with torch.autocast(device.type, dtype=torch.bfloat16):
    print(torch.is_autocast_enabled(device.type), scaler.is_enabled())
    #> True True
