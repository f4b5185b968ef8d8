import torch
from torch import nn
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

torch._dynamo.reset()  # (1)!
model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.1), nn.Linear(16, 4))
model = model.to(device)
counter = CompileCounter()  # (2)!
compiled = torch.compile(model, backend=counter)


def graphs_after(batch, dtype=torch.float32):
    x = torch.randn(batch, 8).to(device, dtype)  # x: [B, 8]
    compiled(x)
    return counter.frame_count


print("batch of 32:", graphs_after(32))
#> batch of 32: 1
print("batch of 32 again:", graphs_after(32))
#> batch of 32 again: 1
print("batch of 16:", graphs_after(16))  # (3)!
#> batch of 16: 2
print("batch of 8:", graphs_after(8))
#> batch of 8: 2
model.eval()
print("eval():", graphs_after(8))
#> eval(): 3
with torch.no_grad():
    print("eval() + no_grad:", graphs_after(8))
    #> eval() + no_grad: 4
model.train()
print("train() again:", graphs_after(8))
#> train() again: 4
model.double()
print("float64:", graphs_after(8, torch.float64))
#> float64: 5
