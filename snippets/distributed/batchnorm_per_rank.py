# launch: torchrun --nproc-per-node 2
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


def rounded(t):
    return [round(v, 2) for v in t.tolist()]


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
# Rank r's data is centred on 1 + r: differently distributed batches.
data = torch.Generator().manual_seed(rank)
x = (torch.randn(8, 3, generator=data) + 1 + rank).to(device)  # x: [B, 3]
model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 1)).to(device)
ddp_model = DDP(model)
bn = ddp_model.module[0]

loss = ddp_model(x).pow(2).mean()  # loss: []
loss.backward()
# Each rank's running_mean moved from 0 towards its own batch's mean only:
own = torch.allclose(bn.running_mean, bn.momentum * x.mean(0), atol=1e-6)
facts = gather((rounded(x.mean(0)), own, bn.running_mean.cpu()))
if rank == 0:
    print("rank r: batch mean, running_mean == 0.1 * batch mean")
    #> rank r: batch mean, running_mean == 0.1 * batch mean
    for r, (batch_mean, own, _) in enumerate(facts):
        print(f"rank {r}: {batch_mean}, {own}")
        #> rank 0: [0.95, 1.01, 1.07], True
        #> rank 1: [1.76, 1.66, 2.22], True
    same = all(torch.equal(f[2], facts[0][2]) for f in facts)
    print("same running_mean on every rank:", same)
    #> same running_mean on every rank: False

# A forward through the wrapper first copies rank 0's buffers to every rank.
ddp_model.eval()
with torch.no_grad():
    ddp_model(x)
copies = gather(bn.running_mean.cpu())
if rank == 0:
    same = all(torch.equal(copies[0], other) for other in copies)
    print("after an eval forward, rank 0's running_mean everywhere:", same)
    #> after an eval forward, rank 0's running_mean everywhere: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
