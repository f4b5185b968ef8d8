import re

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class DigitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 128)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):  # x: [B, 1, 28, 28]
        x = self.act(self.fc1(x))
        return self.fc2(x)


model = DigitClassifier().to(device)
images = torch.randn(32, 1, 28, 28).to(device)  # images: [B, 1, 28, 28]

try:
    logits = model(images)
except RuntimeError as err:
    # the part that matters: some releases put the op's name in front
    print(re.search(r"mat1 and mat2 shapes .*", str(err)).group())
    #> mat1 and mat2 shapes cannot be multiplied (896x28 and 784x128)
