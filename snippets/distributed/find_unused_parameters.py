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


def same_on_every_rank(tensor):
    copies = gather(tensor.cpu())
    return all(torch.equal(copies[0], other) for other in copies)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.aux = nn.Linear(4, 1)  # an extra head that forward never uses
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.body(x))


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
model = Net().to(device)

fixes = {
    "find_unused_parameters=True": DDP(
        copy.deepcopy(model), find_unused_parameters=True
    ),
    "static_graph=True": DDP(copy.deepcopy(model), static_graph=True),
}
for name, ddp_model in fixes.items():
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        ddp_model(x).pow(2).mean().backward()
        optimizer.step()
    averaged = same_on_every_rank(ddp_model.module.head.weight.grad)
    aux_grad = ddp_model.module.aux.weight.grad
    if rank == 0:
        print(f"{name}: averaged {averaged}, aux grad {aux_grad}")
        #> find_unused_parameters=True: averaged True, aux grad None
        #> static_graph=True: averaged True, aux grad None

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# model, the unwrapped original, only seeded the copies; aux is never used.
# expect-no-grad: model.*, ddp_model.module.aux.*
