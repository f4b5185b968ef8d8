# launch: torchrun --nproc-per-node 2
# requires: torch<2.15
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


def accumulated(policy):
    """The sharded gradient after four micro-batches whose gradients
    are 1 and then three times 2**-9, bfloat16 sizes apart."""
    model = nn.Linear(1, 2, bias=False).to(device)  # a 2 x 1 weight
    fully_shard(model, mp_policy=policy)
    for i, c in enumerate([1.0, 2**-9, 2**-9, 2**-9]):
        model.set_requires_gradient_sync(i == 3)  # sync on the last
        x = torch.full((1, 1), c, device=device)  # x: [1, 1]
        model(x).float().sum().backward()  # the weight's gradient: c
    return model.weight.grad.full_tensor()[0, 0].item()


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank = dist.get_rank()
bf16 = torch.bfloat16
unset = accumulated(MixedPrecisionPolicy(param_dtype=bf16))
fp32 = accumulated(
    MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=torch.float32)
)
if rank == 0:
    print("exact sum: 1 + 3 * 2**-9 =", 1 + 3 * 2**-9)
    #> exact sum: 1 + 3 * 2**-9 = 1.005859375
    print("reduce_dtype unset:         ", unset)
    #> reduce_dtype unset:          1.0
    print("reduce_dtype=torch.float32: ", fp32)
    #> reduce_dtype=torch.float32:  1.005859375

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# Each policy's model is built, and its gradient read, inside accumulated().
# no-module-to-check: each policy's model lives inside accumulated()
