import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class Jittered(Dataset):
    """Each item comes with a random shift: a data augmentation."""

    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)
        self.rng = np.random.default_rng(0)  # (1)!

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.rng.normal()


def reseed(worker_id):  # runs in each worker before its first item
    info = get_worker_info()  # this worker's dataset copy and seed
    info.dataset.rng = np.random.default_rng(info.seed)  # (2)!


def shifts(worker_init_fn=None, seed=0):
    loader = DataLoader(
        Jittered(8),
        batch_size=2,
        num_workers=2,
        worker_init_fn=worker_init_fn,
        generator=torch.Generator().manual_seed(seed),  # (3)!
    )
    return torch.stack([shift for _, shift in loader]).to(device)


if __name__ == "__main__":  # (4)!
    run = shifts()  # batches 0, 2 from worker 0; batches 1, 3 from worker 1
    print("workers drew the same shifts:", torch.equal(run[0], run[1]))
    #> workers drew the same shifts: True
    run = shifts(reseed)
    print("after reseeding:", torch.equal(run[0], run[1]))
    #> after reseeding: False
    print("same seed, same shifts:", torch.equal(run, shifts(reseed)))
    #> same seed, same shifts: True
    print("other seed, same shifts:", torch.equal(run, shifts(reseed, 1)))
    #> other seed, same shifts: False
