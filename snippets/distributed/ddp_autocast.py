# launch: torchrun --nproc-per-node 2
import copy
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


def flat_grad(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def same_on_every_rank(tensor):
    copies = gather(tensor.cpu())
    return all(torch.equal(copies[0], other) for other in copies)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
model = model.to(device)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 16, generator=data).to(device)  # x: [B, 16]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]
ddp_model = DDP(model)
ddp_fp32 = DDP(copy.deepcopy(model))  # the same step in float32

with torch.autocast(device.type, dtype=torch.bfloat16):
    out = ddp_model(x)  # out: [B, 1] bfloat16
loss = nn.functional.mse_loss(out.float(), y)  # loss: []
loss.backward()  # float32 gradients, all-reduced in float32
nn.functional.mse_loss(ddp_fp32(x), y).backward()

grad, grad_fp32 = flat_grad(ddp_model), flat_grad(ddp_fp32)
error = (grad - grad_fp32).norm() / grad_fp32.norm()
close = all(gather(error.item() < 0.02))  # within 2%, on every rank
same = same_on_every_rank(grad)
weight = model[0].weight
if rank == 0:
    print("output:", out.dtype)
    #> output: torch.bfloat16
    print("weights, gradients:", weight.dtype, weight.grad.dtype)
    #> weights, gradients: torch.float32 torch.float32
    print("same gradient on every rank:", same)
    #> same gradient on every rank: True
    print("within 2% of the float32 gradient:", close)
    #> within 2% of the float32 gradient: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
