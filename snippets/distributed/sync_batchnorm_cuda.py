# launch: torchrun --nproc-per-node 2
# requires: cuda
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
if device.type != "cpu":  # one accelerator per process, by LOCAL_RANK
    device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
    torch.accelerator.set_device_index(device)
dist.init_process_group(backend=dist.get_default_backend_for_device(device))
rank, world_size = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)


def gather(obj):
    """Every rank's `obj`, in rank order, on every rank."""
    objs = [None] * world_size
    dist.all_gather_object(objs, obj)
    return objs


# The same data as batchnorm_across_ranks.py: rank r's batch is centred on
# 1 + r.
# stays-on-cpu: x_cpu
data = torch.Generator().manual_seed(rank)
x_cpu = torch.randn(8, 3, generator=data) + 1 + rank
x = x_cpu.to(device)  # x: [B, 3]
model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 1))
# Every BatchNorm*d layer becomes a SyncBatchNorm:
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
ddp_model = DDP(model.to(device))
loss = ddp_model(x).pow(2).mean()  # loss: []
loss.backward()

bn = ddp_model.module[0]
assert type(bn) is nn.SyncBatchNorm

# The global batch's mean, from sums and counts (batchnorm_across_ranks.py).
stats = torch.cat([x.sum(0), torch.tensor([float(len(x))], device=device)])
dist.all_reduce(stats)
global_mean = stats[:3] / stats[3]  # global_mean: [3]
# Each rank's running_mean moved towards the GLOBAL batch mean, not its own:
torch.testing.assert_close(bn.running_mean, bn.momentum * global_mean)
assert not torch.allclose(bn.running_mean, bn.momentum * x.mean(0))
copies = gather(bn.running_mean.cpu())
for other in copies:
    torch.testing.assert_close(other, copies[0])  # the same on every rank

dist.destroy_process_group()
