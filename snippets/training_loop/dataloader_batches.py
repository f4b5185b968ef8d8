import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y, first, second, again, plain, disturbed
X = torch.randn(100, 20)  # X: [N, 20]
y = torch.randint(0, 3, (100,))  # y: [N]
dataset = TensorDataset(X, y)
x0, y0 = dataset[0]  # x0: [20], y0: []
print(len(dataset), x0.shape, y0.shape)
#> 100 torch.Size([20]) torch.Size([])


def make_loader():
    # The shuffle order has its own generator:
    shuffle_rng = torch.Generator().manual_seed(0)
    return DataLoader(
        dataset,
        batch_size=32,
        shuffle=True,
        generator=shuffle_rng,
        num_workers=0,
    )


loader = make_loader()
sizes = [len(yb) for _, yb in loader]
print(len(loader), sizes)  # the last batch is smaller
#> 4 [32, 32, 32, 4]

xb, yb = next(iter(loader))  # xb: [B, 20], yb: [B]
print(xb.device.type == "cpu")  # the loader hands out CPU tensors...
#> True
xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
print(xb.device.type == device.type)  # ...and the loop moves each batch
#> True


def epoch_order(loader):
    return torch.cat([yb for _, yb in loader])  # labels: [N]


loader = make_loader()
first = epoch_order(loader)  # first: [N]
second = epoch_order(loader)  # second: [N]
print(torch.equal(first, second))  # every epoch is reshuffled
#> False

torch.randn(1000)  # use the global generator, as init or dropout would
again = epoch_order(make_loader())  # again: [N]
# Same seed, same order, whatever the global generator did:
print(torch.equal(first, again))
#> True

# No generator of its own:
plain_loader = DataLoader(dataset, batch_size=32, shuffle=True)
torch.manual_seed(0)
plain = epoch_order(plain_loader)  # plain: [N]
torch.manual_seed(0)
torch.randn(1000)  # the same seed, but something else drew numbers first
disturbed = epoch_order(plain_loader)  # disturbed: [N]
# The order followed the global generator:
print(torch.equal(plain, disturbed))
#> False
