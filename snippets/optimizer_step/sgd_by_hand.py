import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()

# The update plain SGD promises, computed by hand before step() runs.
lr = optimizer.param_groups[0]["lr"]
with torch.no_grad():
    w_expected = model.weight - lr * model.weight.grad  # w_expected: [1, 4]
    b_expected = model.bias - lr * model.bias.grad  # b_expected: [1]
w_grad = model.weight.grad.clone()  # w_grad: [1, 4]
w_storage = model.weight.data_ptr()

optimizer.step()

# assert_close raises if step() did anything else:
torch.testing.assert_close(model.weight, w_expected)
torch.testing.assert_close(model.bias, b_expected)
w_ok = torch.allclose(model.weight, w_expected)
b_ok = torch.allclose(model.bias, b_expected)
print(w_ok, b_ok)
#> True True
print(model.weight.data_ptr() == w_storage)  # in place: the same tensor
#> True
print(torch.equal(model.weight.grad, w_grad))  # step() never clears .grad
#> True
# Still a trainable leaf:
print(model.weight.is_leaf, model.weight.requires_grad)
#> True True
print(len(optimizer.state))  # plain SGD keeps no state between steps
#> 0
