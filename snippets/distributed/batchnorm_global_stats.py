# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist


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
# stays-on-cpu: x_cpu
# The batches of batchnorm_per_rank.py: rank r's is centred on 1 + r.
data = torch.Generator().manual_seed(rank)
x_cpu = torch.randn(8, 3, generator=data) + 1 + rank
x = x_cpu.to(device)  # x: [B, 3]

# The global batch's statistics: all-reduce sums and counts, then divide.
n = torch.tensor([float(len(x))], device=device)  # n: [1]
stats = torch.cat([x.sum(0), (x * x).sum(0), n])  # stats: [7]
dist.all_reduce(stats)  # default op: SUM, over all ranks
total, total_sq, count = stats[:3], stats[3:6], stats[6]
global_mean = total / count  # global_mean: [3]
# The biased variance, as BatchNorm uses in training:
global_var = total_sq / count - global_mean**2  # global_var: [3]

# The check: every rank's samples in one tensor.
x_all = torch.cat(gather(x_cpu)).to(device)  # x_all: [N, 3]
check_mean = torch.allclose(global_mean, x_all.mean(0), atol=1e-5)
x_var = x_all.var(0, unbiased=False)  # x_var: [3]
check_var = torch.allclose(global_var, x_var, atol=1e-5)
if rank == 0:
    print(f"global batch of {int(count)}: mean {rounded(global_mean)}")
    #> global batch of 16: mean [1.36, 1.33, 1.65]
    print("matches the concatenated batch:", check_mean and check_var)
    #> matches the concatenated batch: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
