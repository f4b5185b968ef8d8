import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(64, 1)
)
model = model.to(device)
x = torch.randn(32, 16).to(device)
y = torch.randn(32, 1).to(device)
loss_fn = nn.MSELoss()
print(model.training)
#> True

model.train()
train_loss = loss_fn(model(x), y)  # train_loss: []

model.eval()
eval_loss = loss_fn(model(x), y)  # eval_loss: []
eval_again = loss_fn(model(x), y)  # eval_again: []
same_as_train = torch.allclose(train_loss, eval_loss)
print(same_as_train, torch.equal(eval_loss, eval_again))
#> False True

# eval() changes layer behaviour, not autograd: the graph is still recorded.
print(eval_loss.requires_grad)
#> True
with torch.no_grad():
    eval_no_grad = loss_fn(model(x), y)  # eval_no_grad: []
print(eval_no_grad.requires_grad, torch.allclose(eval_no_grad, eval_loss))
#> False True
