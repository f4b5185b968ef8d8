import io
import textwrap

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)


def save(scaler):
    """A checkpoint, written and read back as a file would be."""
    state = {"model": model.state_dict(), "scaler": scaler.state_dict()}
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


# Trained in bfloat16, where the scaler is disabled: its state is empty.
bf16_checkpoint = save(torch.amp.GradScaler(device.type, enabled=False))
print(bf16_checkpoint["scaler"])
#> {}

# Resumed in float16, with the scaler enabled:
scaler = torch.amp.GradScaler(device.type)
try:
    scaler.load_state_dict(bf16_checkpoint["scaler"])
except RuntimeError as err:
    print(textwrap.fill(str(err), width=60))
    '''
    The source state dict is empty, possibly because it was
    saved from a disabled instance of GradScaler.
    '''

# Load the scaler's state only when there is one; otherwise the scaler
# starts from its defaults, as in a new run.
scaler = torch.amp.GradScaler(device.type)
if bf16_checkpoint["scaler"]:
    scaler.load_state_dict(bf16_checkpoint["scaler"])
print(scaler.get_scale())
#> 65536.0

# The other way, float16 to bfloat16: a disabled scaler ignores the state.
fp16_scaler = torch.amp.GradScaler(device.type, init_scale=8192.0)
fp16_checkpoint = save(fp16_scaler)
scaler = torch.amp.GradScaler(device.type, enabled=False)
scaler.load_state_dict(fp16_checkpoint["scaler"])  # does nothing
print(fp16_checkpoint["scaler"]["scale"], scaler.state_dict())
#> 8192.0 {}
