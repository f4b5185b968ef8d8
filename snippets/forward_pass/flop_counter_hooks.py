import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):  # x: [B, 20]
        return self.fc2(torch.relu(self.fc1(x)))  # logits: [B, 3]


model = SmallNet().to(device)
x = torch.randn(8, 20).to(device)  # x: [B, 20]

# FlopCounterMode learns which module is running from global module hooks.
for run in (model, model.forward):
    with FlopCounterMode(display=False) as counter:
        run(x)
    print(counter.get_total_flops(), sorted(counter.get_flop_counts()))
    #> 5888 ['Global', 'SmallNet', 'SmallNet.fc1', 'SmallNet.fc2']
    #> 5888 ['Global', 'Linear']
