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


def call(what, batch, dtype=torch.float32):
    x = torch.randn(batch, 8).to(device, dtype)  # x: [B, 8]
    compiled(x)
    print(f"{what:<19} graphs so far: {counter.frame_count}")
    #> batch of 32         graphs so far: 1
    #> batch of 32 again   graphs so far: 1
    #> batch of 16         graphs so far: 2
    #> batch of 8          graphs so far: 2
    #> eval()              graphs so far: 3
    #> eval() + no_grad    graphs so far: 4
    #> train() again       graphs so far: 4
    #> float64             graphs so far: 5


call("batch of 32", 32)
call("batch of 32 again", 32)
call("batch of 16", 16)  # (3)!
call("batch of 8", 8)
model.eval()
call("eval()", 8)
with torch.no_grad():
    call("eval() + no_grad", 8)
model.train()
call("train() again", 8)
model.double()
call("float64", 8, torch.float64)
