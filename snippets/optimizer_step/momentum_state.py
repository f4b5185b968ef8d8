import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

print(len(optimizer.state))  # no state until the first step
#> 0

grads = []
for _ in range(2):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)  # loss: []
    loss.backward()
    grads.append(model.weight.grad.clone())
    optimizer.step()

# A dict per parameter, keyed by the parameter itself:
state = optimizer.state[model.weight]
print(len(optimizer.state), sorted(state))
#> 2 ['momentum_buffer']
bias_state = optimizer.state[model.bias]
print(state["momentum_buffer"].shape, bias_state["momentum_buffer"].shape)
#> torch.Size([1, 4]) torch.Size([1])

# buf = momentum * buf + grad (the first step starts buf at grad)
expected = 0.9 * grads[0] + grads[1]  # expected: [1, 4]
torch.testing.assert_close(state["momentum_buffer"], expected)
print(torch.allclose(state["momentum_buffer"], expected))
#> True
