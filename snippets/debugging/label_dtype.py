import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(4, 5).to(device)  # x: [B, 5]
model = nn.Linear(5, 3).to(device)
# Class ids that came in as floats (a CSV column, a NumPy array).
labels = torch.tensor([0.0, 2.0, 1.0, 2.0]).to(device)  # labels: [B]

ce = nn.CrossEntropyLoss()
try:
    ce(model(x), labels)
except RuntimeError as err:
    msg = str(err)  # the wording depends on the release and the device
    print("rejects float labels:", "Float" in msg)
    #> rejects float labels: True
loss = ce(model(x), labels.long())  # class ids are int64 ("Long")
print("fixed:", round(loss.item(), 3))
#> fixed: 2.108

# The opposite case: 0/1 targets stored as integers.
flags = torch.tensor([1, 0, 0, 1]).to(device)  # flags: [B] int64
bce = nn.BCEWithLogitsLoss()
try:
    bce(model(x)[:, 0], flags)
except RuntimeError as err:
    print(err)
    #> result type Float can't be cast to the desired output type Long
loss = bce(model(x)[:, 0], flags.float())  # targets are probabilities
loss.backward()
print("fixed:", round(loss.item(), 3))
#> fixed: 0.853
