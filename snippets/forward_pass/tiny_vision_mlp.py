import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class TinyVisionMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(28 * 28, 256)
        self.act = nn.ReLU()
        self.dropout = nn.Dropout(p=0.1)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):  # x: [B, 1, 28, 28]
        x = self.flatten(x)  # x: [B, 784]
        x = self.act(self.fc1(x))  # x: [B, 256]
        x = self.dropout(x)  # x: [B, 256]
        return self.fc2(x)  # logits: [B, 10]


model = TinyVisionMLP().to(device)
batch = torch.randn(32, 1, 28, 28).to(device)  # batch: [B, 1, 28, 28]

model.train()
logits_train = model(batch)  # logits_train: [B, 10]

model.eval()
print(model(batch).requires_grad)  # eval() alone still records a graph
#> True
with torch.inference_mode():
    logits_eval = model(batch)  # logits_eval: [B, 10]

print(logits_train.shape, logits_eval.shape)
#> torch.Size([32, 10]) torch.Size([32, 10])
print(logits_train.requires_grad, logits_eval.requires_grad)
#> True False
