import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class WorkerSeed(Dataset):
    """Each item is the seed of the worker process that loaded it."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return get_worker_info().seed


def two_epochs(persistent):
    loader = DataLoader(
        WorkerSeed(),
        batch_size=2,
        num_workers=2,
        persistent_workers=persistent,
        generator=torch.Generator().manual_seed(0),
    )
    return [torch.cat(list(loader)).to(device) for epoch in range(2)]


if __name__ == "__main__":
    first, second = two_epochs(persistent=False)
    print("new seeds in epoch 2:", not torch.equal(first, second))
    #> new seeds in epoch 2: True
    first, second = two_epochs(persistent=True)
    print("persistent, new seeds:", not torch.equal(first, second))
    #> persistent, new seeds: False
