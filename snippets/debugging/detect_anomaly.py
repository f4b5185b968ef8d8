import warnings

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(8, 4).to(device)  # x: [B, 4]
y = torch.rand(8).to(device)  # y: [B]
model = nn.Linear(4, 1).to(device)


def predict(x):  # x: [B, 4]
    h = model(x).squeeze(1)  # h: [B]
    return torch.where(h > 0, torch.sqrt(h), 0.0)  # (1)!


loss = nn.functional.mse_loss(predict(x), y)  # loss: []
loss.backward()
print("loss is finite:", torch.isfinite(loss).item())
#> loss is finite: True
print("grad is finite:", model.weight.grad.isfinite().all().item())
#> grad is finite: False

model.zero_grad()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():  # (2)!
            loss = nn.functional.mse_loss(predict(x), y)  # loss: []
            loss.backward()
    except RuntimeError as err:
        print(err)
        #> Function 'SqrtBackward0' returned nan values in its 0th output.
for warning in caught:
    print(str(warning.message).split(".")[0])
    #> Anomaly Detection has been enabled
    #> Error detected in SqrtBackward0
print("names the line:", "torch.sqrt(h)" in str(caught[-1].message))
#> names the line: True


def predict(x):  # x: [B, 4]
    h = model(x).squeeze(1)  # h: [B]
    safe = torch.where(h > 0, h, 1.0)  # sqrt only sees positive numbers
    return torch.where(h > 0, torch.sqrt(safe), 0.0)


model.zero_grad()
loss = nn.functional.mse_loss(predict(x), y)  # loss: []
loss.backward()
print("fixed, grad is finite:", model.weight.grad.isfinite().all().item())
#> fixed, grad is finite: True
