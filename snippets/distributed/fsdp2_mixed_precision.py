# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


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


def record_weight_dtype(module, args):
    seen["2.weight in forward"] = module.weight.dtype


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
model = model.to(device)
reference = copy.deepcopy(model)  # float32, not sharded: the global batch
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 16, generator=data).to(device)  # x: [B, 16]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]
seen = {}  # what 2.weight is while its forward runs
model[2].register_forward_pre_hook(record_weight_dtype)

policy = MixedPrecisionPolicy(
    param_dtype=torch.bfloat16,  # gathered and computed in bfloat16
    reduce_dtype=torch.float32,  # gradients reduce-scattered in float32
)
fully_shard(model[0], mp_policy=policy)
fully_shard(model[2], mp_policy=policy)
fully_shard(model, mp_policy=policy)
out = model(x)  # out: [B, 1] bfloat16
loss = nn.functional.mse_loss(out.float(), y)  # loss: []
loss.backward()

x_all = torch.cat(gather(x.cpu())).to(device)  # x_all: [N, 16]
y_all = torch.cat(gather(y.cpu())).to(device)  # y_all: [N, 1]
nn.functional.mse_loss(reference(x_all), y_all).backward()
grads = [p.grad.full_tensor() for p in model.parameters()]  # every rank
grad = torch.cat([g.flatten() for g in grads])
grad_fp32 = torch.cat([p.grad.flatten() for p in reference.parameters()])
error = (grad - grad_fp32).norm() / grad_fp32.norm()
close = all(gather(error.item() < 0.02))  # within 2%, on every rank
if rank == 0:
    weight = model[2].weight
    print("2.weight as stored, sharded:", weight.dtype)
    #> 2.weight as stored, sharded: torch.float32
    print("2.weight in forward:", seen["2.weight in forward"])
    #> 2.weight in forward: torch.bfloat16
    print("output:", out.dtype, "| 2.weight.grad:", weight.grad.dtype)
    #> output: torch.bfloat16 | 2.weight.grad: torch.float32
    print("within 2% of the float32 gradient:", close)
    #> within 2% of the float32 gradient: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
