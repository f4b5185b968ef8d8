import torch
from torch import nn
from torch.nn.utils import parameters_to_vector
from torch.utils.data import DataLoader, TensorDataset

torch.use_deterministic_algorithms(True)  # (1)!

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(256, 10)  # X: [N, 10]
y = X @ torch.randn(10, 1)  # y: [N, 1]
dataset = TensorDataset(X, y)


def train(seed):
    torch.manual_seed(seed)  # model init and dropout
    loader = DataLoader(
        dataset,
        batch_size=32,
        shuffle=True,
        generator=torch.Generator().manual_seed(seed),  # the data order
    )
    model = nn.Sequential(
        nn.Linear(10, 32),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(32, 1),
    ).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(2):
        for xb, yb in loader:  # xb: [B, 10], yb: [B, 1]
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)  # loss: []
            loss.backward()
            optimizer.step()
    return parameters_to_vector(model.parameters()).detach()


first, second, other = train(seed=0), train(seed=0), train(seed=1)
print("same seed, bit for bit:", torch.equal(first, second))
#> same seed, bit for bit: True
print("other seed:", torch.equal(first, other))
#> other seed: False
# no-module-to-check: each run trains its own model inside train()
