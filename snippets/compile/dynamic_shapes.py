import torch
from torch import nn
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
model = model.to(device)


def graphs_for(sizes=(32, 16, 8, 4), mark=False, **options):
    torch._dynamo.reset()  # (1)!
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, **options)
    for n in sizes:
        x = torch.randn(n, 8).to(device)  # x: [B, 8]
        if mark:
            torch._dynamo.mark_dynamic(x, 0)  # (2)!
        compiled(x)
    return counter.frame_count


print("default:       ", graphs_for())
#> default:        2
print("dynamic=False: ", graphs_for(dynamic=False))
#> dynamic=False:  4
print("dynamic=True:  ", graphs_for(dynamic=True))
#> dynamic=True:   1
print("mark_dynamic:  ", graphs_for(mark=True))
#> mark_dynamic:   1
# the same four sizes, then a batch of one, then an empty batch
sizes = (32, 16, 8, 4, 1, 0)
print("default, then 1 and 0:     ", graphs_for(sizes))
#> default, then 1 and 0:      4
print("mark_dynamic, then 1 and 0:", graphs_for(sizes, mark=True))
#> mark_dynamic, then 1 and 0: 3
