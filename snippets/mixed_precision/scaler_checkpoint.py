import io

import torch
from torch import nn
from torch.nn.utils import parameters_to_vector

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = (15 * torch.randn(16, 1)).to(device)  # y: [B, 1]


def build():
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, optimizer, torch.amp.GradScaler(device.type)


def train_step(model, optimizer, scaler):
    with torch.autocast(device.type, dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)  # loss: [] float32
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()


model, optimizer, scaler = build()
for _ in range(5):
    train_step(model, optimizer, scaler)
# After update(): what the next step uses.
for key, value in scaler.state_dict().items():
    print(key, value)
    #> scale 8192.0
    #> growth_factor 2.0
    #> backoff_factor 0.5
    #> growth_interval 2000
    #> _growth_tracker 2

buffer = io.BytesIO()  # a file would do the same
state = {
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),
    "scaler": scaler.state_dict(),
}
torch.save(state, buffer)
buffer.seek(0)
# The scaler's state is plain numbers:
checkpoint = torch.load(buffer, weights_only=True)

resumed, resumed_optimizer, resumed_scaler = build()
resumed.load_state_dict(checkpoint["model"])
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
resumed_scaler.load_state_dict(checkpoint["scaler"])
# Everything but the scaler restored:
forgot, forgot_optimizer, forgot_scaler = build()
forgot.load_state_dict(checkpoint["model"])
forgot_optimizer.load_state_dict(checkpoint["optimizer"])
print(resumed_scaler.get_scale(), forgot_scaler.get_scale())
#> 8192.0 65536.0

# One more step for each: the uninterrupted run, the resumed one, the one
# that forgot.
train_step(model, optimizer, scaler)
train_step(resumed, resumed_optimizer, resumed_scaler)
before = parameters_to_vector(forgot.parameters()).detach()
# At 65536 again: overflow, the step is skipped.
train_step(forgot, forgot_optimizer, forgot_scaler)

weights = parameters_to_vector(model.parameters())
print(torch.equal(weights, parameters_to_vector(resumed.parameters())))
#> True
unchanged = torch.equal(before, parameters_to_vector(forgot.parameters()))
print(unchanged, forgot_scaler.get_scale())
#> True 32768.0
# Every step ends with zero_grad(): no gradients are left, on purpose.
# expect-no-grad: model.*, resumed.*, forgot.*
