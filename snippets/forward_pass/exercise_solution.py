import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class DigitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()  # keeps the batch dim, merges the rest
        self.fc1 = nn.Linear(28 * 28, 128)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):  # x: [B, 1, 28, 28]
        x = self.flatten(x)  # x: [B, 784]
        x = self.act(self.fc1(x))  # x: [B, 128]
        return self.fc2(x)  # logits: [B, 10]


model = DigitClassifier().to(device)
images = torch.randn(32, 1, 28, 28).to(device)  # images: [B, 1, 28, 28]

logits = model(images)  # logits: [B, 10]
print(logits.shape)
#> torch.Size([32, 10])
