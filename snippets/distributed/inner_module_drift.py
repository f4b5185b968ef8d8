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


def same_on_every_rank(tensors):
    flat = torch.cat([t.detach().reshape(-1) for t in tensors]).cpu()
    return all(torch.equal(flat, other) for other in gather(flat))


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Linear(4, 1).to(device)
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]


def train_step(call):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(call(x), y)  # loss: []
    loss.backward()  # no error, whichever module was called
    same_grads = same_on_every_rank(p.grad for p in ddp_model.parameters())
    optimizer.step()
    return same_grads, same_on_every_rank(ddp_model.parameters())


calls = [
    ("ddp_model(x)", ddp_model),
    # The inner module: no all-reduce.
    ("ddp_model.module(x)", ddp_model.module),
    # Back in sync? Only the gradients are.
    ("ddp_model(x) again", ddp_model),
]
if rank == 0:
    print("the same on every rank, after each step:")
    #> the same on every rank, after each step:
for name, call in calls:
    same_grads, same_weights = train_step(call)
    if rank == 0:
        print(f"{name:20} gradients {same_grads}, weights {same_weights}")
        #> ddp_model(x)         gradients True, weights True
        #> ddp_model.module(x)  gradients False, weights False
        #> ddp_model(x) again   gradients True, weights False

# The drift stays: DDP copies rank 0's parameters only once, when built.
weight = ddp_model.module.weight.view(-1).tolist()
weights = gather([round(w, 3) for w in weight])
if rank == 0:
    for r, w in enumerate(weights):
        print(f"rank {r}: weight {w}")
        #> rank 0: weight [0.065, -0.086, -0.297, -0.068]
        #> rank 1: weight [-0.014, -0.056, -0.12, -0.147]

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
