# launch: torchrun --nproc-per-node 2
# requires: cuda
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


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
# The batches of batchnorm_per_rank.py: rank r's is centred on 1 + r.
data = torch.Generator().manual_seed(rank)
x = (torch.randn(8, 3, generator=data) + 1 + rank).to(device)  # x: [B, 3]
model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 1))
# Every BatchNorm*d layer becomes a SyncBatchNorm:
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
ddp_model = DDP(model.to(device))
loss = ddp_model(x).pow(2).mean()  # loss: []
loss.backward()

bn = ddp_model.module[0]
assert type(bn) is nn.SyncBatchNorm
# The global batch's mean, from sums and counts (batchnorm_global_stats.py).
stats = torch.cat([x.sum(0), torch.tensor([float(len(x))], device=device)])
dist.all_reduce(stats)
global_mean = stats[:3] / stats[3]  # global_mean: [3]
# Each rank's running_mean moved towards the GLOBAL batch mean, not its own:
torch.testing.assert_close(bn.running_mean, bn.momentum * global_mean)
assert not torch.allclose(bn.running_mean, bn.momentum * x.mean(0))
copies = gather(bn.running_mean.cpu())
for other in copies:
    torch.testing.assert_close(other, copies[0])  # the same on every rank

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
