# launch: torchrun --nproc-per-node 2
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


def rounded(t):
    return [round(v, 2) for v in t.tolist()]


# Rank r's data is centred on 1 + r, so the ranks see differently
# distributed batches.
# stays-on-cpu: x_cpu
data = torch.Generator().manual_seed(rank)
x_cpu = torch.randn(8, 3, generator=data) + 1 + rank
x = x_cpu.to(device)  # x: [B, 3]
model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 1)).to(device)
ddp_model = DDP(model)
bn = ddp_model.module[0]
loss = ddp_model(x).pow(2).mean()  # loss: []
loss.backward()

# Plain BatchNorm normalised each rank's batch with its own statistics, and
# moved each rank's running_mean towards that rank's batch mean only.
expected = bn.momentum * x.mean(0)  # expected: [3]
own_update = torch.allclose(bn.running_mean, expected, atol=1e-6)
facts = gather((rounded(x.mean(0)), own_update, bn.running_mean.cpu()))
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

# The global batch's statistics: all-reduce sums and counts, then divide.
n = torch.tensor([float(len(x))], device=device)  # n: [1]
stats = torch.cat([x.sum(0), (x * x).sum(0), n])  # stats: [7]
dist.all_reduce(stats)  # default op: SUM, over all ranks
total, total_sq, count = stats[:3], stats[3:6], stats[6]
global_mean = total / count  # global_mean: [3]
# The biased variance, as BatchNorm uses in training:
global_var = total_sq / count - global_mean**2  # global_var: [3]
x_all = torch.cat(gather(x_cpu)).to(device)  # x_all: [N, 3]
check_mean = torch.allclose(global_mean, x_all.mean(0), atol=1e-5)
x_var = x_all.var(0, unbiased=False)  # x_var: [3]
check_var = torch.allclose(global_var, x_var, atol=1e-5)
if rank == 0:
    print(f"global batch of {int(count)}: mean {rounded(global_mean)}")
    #> global batch of 16: mean [1.36, 1.33, 1.65]
    print("matches the concatenated batch:", check_mean and check_var)
    #> matches the concatenated batch: True

# A forward through the wrapper first copies rank 0's buffers to every rank.
ddp_model.eval()
with torch.no_grad():
    ddp_model(x)
copies = gather(bn.running_mean.cpu())
if rank == 0:
    same = all(torch.equal(copies[0], other) for other in copies)
    line = "after an eval forward, every rank has rank 0's running_mean:"
    print(line, same)
    #> after an eval forward, every rank has rank 0's running_mean: True

# SyncBatchNorm would use the global statistics, but not on the CPU.
# stays-on-cpu: sync_bn
sync_bn = nn.SyncBatchNorm(3)  # on the CPU everywhere, to show the error
try:
    sync_bn(x_cpu)
except ValueError as err:
    # The rest of the message varies between releases:
    message = str(err).split(" or ")[0]
messages = gather(message)
if rank == 0:
    lines = [f"rank {r}: ValueError: {m}" for r, m in enumerate(messages)]
    print("\n".join(lines))
    '''
    rank 0: ValueError: SyncBatchNorm expected input tensor to be on GPU
    rank 1: ValueError: SyncBatchNorm expected input tensor to be on GPU
    '''

dist.destroy_process_group()
# sync_bn's forward raised, so its parameters never got a gradient:
# expect-no-grad: sync_bn.*
