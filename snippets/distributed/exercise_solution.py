import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(11, 4)  # X: [N, 4]
y = torch.randint(0, 3, (11,))  # y: [N]
dataset = TensorDataset(X, y)
model = nn.Linear(4, 3).to(device).eval()
world_size = 2

correct = counted = 0  # the sums that all_reduce(SUM) would give every rank
for rank in range(world_size):  # one process plays each rank in turn
    # Every sample once, no padding:
    sampler = range(rank, len(dataset), world_size)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    with torch.inference_mode():
        for xb, yb in loader:  # xb: [B, 4], yb: [B]
            pred = model(xb.to(device)).argmax(dim=1)  # pred: [B]
            correct += (pred == yb.to(device)).sum().item()
            counted += len(yb)

with torch.inference_mode():
    pred = model(X.to(device)).argmax(dim=1)  # pred: [N]
    truth = (pred == y.to(device)).float().mean().item()
print(f"counted {counted} samples, accuracy {correct / counted:.3f}")
#> counted 11 samples, accuracy 0.455
print(f"the data set: {len(dataset)} samples, accuracy {truth:.3f}")
#> the data set: 11 samples, accuracy 0.455
