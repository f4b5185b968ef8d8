import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
batches = [(xb.to(device), yb.to(device)) for xb, yb in batches]

running_sum = torch.zeros_like(model.weight)  # running_sum: [1, 4]
for step, (xb, yb) in enumerate(batches):  # xb: [B, 4], yb: [B, 1]
    loss = loss_fn(model(xb), yb)  # loss: []
    # This step's own gradient, read without touching .grad:
    (fresh,) = torch.autograd.grad(loss, model.weight, retain_graph=True)
    running_sum += fresh
    loss.backward()  # the bug: nothing zeroed .grad since the last step
    is_fresh = torch.allclose(model.weight.grad, fresh)
    is_sum = torch.allclose(model.weight.grad, running_sum)
    line = f"step {step}: .grad is this step's gradient: {is_fresh}"
    print(f"{line}, the sum so far: {is_sum}")
    #> step 0: .grad is this step's gradient: True, the sum so far: True
    #> step 1: .grad is this step's gradient: False, the sum so far: True
    #> step 2: .grad is this step's gradient: False, the sum so far: True
    optimizer.step()
