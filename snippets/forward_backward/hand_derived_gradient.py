import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

n, d, m = 16, 3, 2
model = nn.Linear(d, m).to(device)
x = torch.randn(n, d).to(device)
y = torch.randn(n, m).to(device)

pred = model(x)  # pred: [N, M]
loss = nn.functional.mse_loss(pred, y)  # loss: []
loss.backward()

# The formulas from the page, written out by hand.
residual = (pred - y).detach()  # residual: [N, M]
grad_w = 2 / (n * m) * residual.T @ x  # grad_w: [M, D]
grad_b = 2 / (n * m) * residual.sum(dim=0)  # grad_b: [M]
torch.testing.assert_close(model.weight.grad, grad_w)
torch.testing.assert_close(model.bias.grad, grad_b)
w_ok = torch.allclose(model.weight.grad, grad_w)
b_ok = torch.allclose(model.bias.grad, grad_b)
print(w_ok, b_ok)
#> True True


# gradcheck compares autograd with finite differences; it needs float64.
def mse_of_linear(weight, bias):  # weight: [M, D], bias: [M]
    pred = x.double() @ weight.T + bias  # pred: [N, M]
    return nn.functional.mse_loss(pred, y.double())  # loss: []


w64 = model.weight.detach().double().requires_grad_()
b64 = model.bias.detach().double().requires_grad_()
print(torch.autograd.gradcheck(mse_of_linear, (w64, b64)))
#> True
