# launch: torchrun --nproc-per-node 2
import os
import textwrap

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


def same_on_every_rank(tensor):
    copies = gather(tensor.cpu())
    return all(torch.equal(copies[0], other) for other in copies)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.aux = nn.Linear(4, 1)  # an extra head that forward never uses
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.body(x))


data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
model = Net().to(device)
ddp_model = DDP(model)

ddp_model(x).pow(2).mean().backward()  # step 1: no error...
averaged = same_on_every_rank(model.head.weight.grad)
try:
    ddp_model(x).pow(2).mean().backward()  # step 2
except RuntimeError as err:
    lines = str(err).splitlines()
    first = lines[0].split(". ")[0] + "."  # the stable part
    unused = [line for line in lines if line.startswith("Parameter ind")]
errors = gather(first)
if rank == 0:
    print("step 1: gradients averaged across ranks:", averaged)
    #> step 1: gradients averaged across ranks: False
    same = all(e == errors[0] for e in errors)
    print("step 2: RuntimeError, the same on every rank:", same)
    #> step 2: RuntimeError, the same on every rank: True
    print(textwrap.fill(first, width=72))
    '''
    Expected to have finished reduction in the prior iteration before
    starting a new one.
    '''
    print(*unused)
    #> Parameter indices which did not receive grad for rank 0: 2 3

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# aux is never used, so it never gets a gradient.
# expect-no-grad: model.aux.*, ddp_model.module.aux.*
