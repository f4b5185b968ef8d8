import copy

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
w = model.weight.detach().clone()  # w: [1, 4]
lr, wd, eps = 0.01, 0.1, 1e-8

adam_model, adamw_model = copy.deepcopy(model), copy.deepcopy(model)
# The same hyperparameters; only the meaning of weight_decay differs.
adam = torch.optim.Adam(adam_model.parameters(), lr=lr, weight_decay=wd)
adamw = torch.optim.AdamW(adamw_model.parameters(), lr=lr, weight_decay=wd)
for net, optimizer in ((adam_model, adam), (adamw_model, adamw)):
    loss = nn.functional.mse_loss(net(x), y)  # loss: []
    loss.backward()
    optimizer.step()
# Both copies computed the same gradient:
g = adam_model.weight.grad  # g: [1, 4]

# Adam: L2. wd * w joins the gradient, and Adam divides it by its
# running scale like the rest: after one step, a move of about lr.
g_l2 = g + wd * w
adam_by_hand = w - lr * g_l2 / (g_l2.abs() + eps)
# AdamW: decoupled. The weight shrinks by lr * wd * w, apart from the
# Adam step on the gradient alone.
adamw_by_hand = w * (1 - lr * wd) - lr * g / (g.abs() + eps)

same = torch.allclose(adam_model.weight, adamw_model.weight, atol=1e-6)
print("Adam and AdamW take the same step:", same)
#> Adam and AdamW take the same step: False
ok_adam = torch.allclose(adam_model.weight, adam_by_hand, atol=1e-6)
ok_adamw = torch.allclose(adamw_model.weight, adamw_by_hand, atol=1e-6)
print("each matches its formula (atol 1e-6):", ok_adam, ok_adamw)
#> each matches its formula (atol 1e-6): True True
# Here the whole difference is AdamW's shrinking: Adam's L2 term changed
# nothing visible, as it flipped the sign of no entry of g.
gap = (adamw_model.weight - adam_model.weight).detach()  # gap: [1, 4]
shrink = torch.allclose(gap, -lr * wd * w, atol=1e-6)
print("difference == -lr * wd * w (atol 1e-6):", shrink)
#> difference == -lr * wd * w (atol 1e-6): True
# Each optimizer trained a copy; the original never ran backward().
# expect-no-grad: model.*
