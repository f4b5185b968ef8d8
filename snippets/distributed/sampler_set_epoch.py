# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def init_distributed(device):
    """Join the process group torchrun describes; on an accelerator,
    take the one this process's LOCAL_RANK names."""
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)
    return device


def gather(obj):
    """Every rank's `obj`, in rank order, for rank 0 to print."""
    objs = [None] * dist.get_world_size()
    dist.all_gather_object(objs, obj)
    return objs


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
# stays-on-cpu: samples
# Sample i is the number i, so a batch shows which samples it holds.
samples = torch.arange(10)
dataset = TensorDataset(samples)
# The rank and the world size come from the process group.
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
# sampler=, so no shuffle= here:
loader = DataLoader(dataset, batch_size=5, sampler=sampler)


def two_epochs(call_set_epoch):
    orders = []
    for epoch in range(2):
        if call_set_epoch:
            sampler.set_epoch(epoch)  # the shuffle's seed is seed + epoch
        order = torch.cat([xb for (xb,) in loader]).tolist()
        orders.append(f"epoch {epoch} {order}")
    return " | ".join(orders)


forgot = gather(two_epochs(call_set_epoch=False))
told = gather(two_epochs(call_set_epoch=True))
if rank == 0:
    print("without set_epoch:")
    #> without set_epoch:
    for r, orders in enumerate(forgot):
        print(f"rank {r}: {orders}")
        #> rank 0: epoch 0 [4, 7, 3, 0, 6] | epoch 1 [4, 7, 3, 0, 6]
        #> rank 1: epoch 0 [1, 5, 9, 8, 2] | epoch 1 [1, 5, 9, 8, 2]
    print("with set_epoch(epoch):")
    #> with set_epoch(epoch):
    for r, orders in enumerate(told):
        print(f"rank {r}: {orders}")
        #> rank 0: epoch 0 [4, 7, 3, 0, 6] | epoch 1 [5, 1, 0, 9, 7]
        #> rank 1: epoch 0 [1, 5, 9, 8, 2] | epoch 1 [6, 2, 8, 3, 4]

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
