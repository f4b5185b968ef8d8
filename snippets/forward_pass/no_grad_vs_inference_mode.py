import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# expect-no-grad: backbone.*
# A backbone (pretrained, say) and a trainable head:
backbone = nn.Sequential(nn.Linear(20, 16), nn.ReLU()).to(device)
head = nn.Linear(16, 3).to(device)
x = torch.randn(8, 20).to(device)  # x: [B, 20]
target = torch.randint(0, 3, (8,)).to(device)  # target: [B]

with torch.no_grad():
    feats = backbone(x)  # feats: [B, 16]
with torch.inference_mode():
    feats_inf = backbone(x)  # feats_inf: [B, 16]
print(feats.requires_grad, feats_inf.requires_grad)
#> False False
print(feats.is_inference(), feats_inf.is_inference())
#> False True

# no_grad features can feed a trainable head; the graph starts at the head.
loss = F.cross_entropy(head(feats), target)  # loss: []
loss.backward()
print(head.weight.grad is not None, backbone[0].weight.grad is None)
#> True True

# inference_mode features cannot: the head must save its input for backward.
try:
    head(feats_inf)
except RuntimeError as err:
    print(str(err).split(". ")[0])  # the advice after it varies by release
    #> Inference tensors cannot be saved for backward

# A clone made outside inference mode is a normal tensor, and works.
print(head(feats_inf.clone()).requires_grad)
#> True

# Nor can they be modified in place once inference mode is over.
try:
    feats_inf.relu_()
except RuntimeError as err:
    message = str(err).split(".")[0]
print(message)
#> Inplace update to inference tensor outside InferenceMode is not allowed

# Freezing the parameters also stops the recording, with no context manager.
backbone.requires_grad_(False)
print(backbone(x).requires_grad)
#> False
