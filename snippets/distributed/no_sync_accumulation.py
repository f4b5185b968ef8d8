# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
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


def flat_grad(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def counting_allreduce(counter, bucket):
    """A communication hook: counts, then averages as DDP does."""
    counter["all-reduces"] += 1
    return default_hooks.allreduce_hook(None, bucket)


def global_batch_grad(model, micro_batches):
    """The gradient of an unwrapped copy of `model` on every rank's
    micro-batches at once (the global batch), in one backward."""
    full_model = copy.deepcopy(model)
    xs = torch.cat([xb.cpu() for xb, _ in micro_batches])
    ys = torch.cat([yb.cpu() for _, yb in micro_batches])
    x_all = torch.cat(gather(xs)).to(device)  # x_all: [N, 4]
    y_all = torch.cat(gather(ys)).to(device)  # y_all: [N, 1]
    nn.functional.mse_loss(full_model(x_all), y_all).backward()
    return flat_grad(full_model)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
loss_fn = nn.MSELoss()
k = 4  # micro-batches per optimizer step, on each rank
data = torch.Generator().manual_seed(rank)
micro_batches = [
    (torch.randn(8, 4, generator=data), torch.randn(8, 1, generator=data))
    for _ in range(k)
]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]


def accumulate(ddp_model, use_no_sync):
    counter = {"all-reduces": 0}
    ddp_model.register_comm_hook(counter, counting_allreduce)  # (1)!
    for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 1]
        if use_no_sync and i < k - 1:
            with ddp_model.no_sync():  # forward AND backward inside
                loss = loss_fn(ddp_model(xb), yb) / k  # loss: []
                loss.backward()
        else:  # every micro-batch, or the last one: synchronize
            loss = loss_fn(ddp_model(xb), yb) / k
            loss.backward()
    return counter["all-reduces"]


styles = {
    "sync every time": DDP(copy.deepcopy(model)),
    "no_sync() but the last": DDP(copy.deepcopy(model)),
}
counts = [accumulate(m, i == 1) for i, m in enumerate(styles.values())]

# One unwrapped model, all ranks' micro-batches, one backward:
reference = global_batch_grad(model, micro_batches)
same = [
    torch.allclose(flat_grad(m), reference, atol=1e-6)
    for m in styles.values()
]
facts = gather(same)
if rank == 0:
    print(f"{world_size} ranks x {k} micro-batches of 8 samples")
    #> 2 ranks x 4 micro-batches of 8 samples
    print(f"{'':23} | all-reduces | global grad on every rank")
    #>                         | all-reduces | global grad on every rank
    for i, style in enumerate(styles):
        everywhere = all(rank_same[i] for rank_same in facts)
        print(f"{style:23} | {counts[i]:<11} | {everywhere}")
        #> sync every time         | 4           | True
        #> no_sync() but the last  | 1           | True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# model, the unwrapped original, only seeded the copies; no backward ran.
# expect-no-grad: model.*
