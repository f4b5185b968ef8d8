import copy

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
reference = copy.deepcopy(model)  # trained on whole groups, for the check
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
micro_batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(10)]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]

k = 4  # micro-batches per optimizer step
n = len(micro_batches)  # 10 = 4 + 4 + 2: the last group is partial
step_grads = []  # recorded for the check below

optimizer.zero_grad()
for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 1]
    group_size = min(k, n - i // k * k)  # 4, 4, then 2
    loss = loss_fn(model(xb), yb) / group_size  # loss: []
    loss.backward()
    if (i + 1) % k == 0 or i + 1 == n:  # the group's last micro-batch
        step_grads.append([p.grad.clone() for p in model.parameters()])
        optimizer.step()
        optimizer.zero_grad()

# The check: one full-batch step per group, on all its samples at once.
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
for start, grads in zip(range(0, n, k), step_grads, strict=True):
    group = micro_batches[start : start + k]
    xs, ys = zip(*group, strict=True)
    x_group = torch.cat(xs)  # x_group: [G, 4]
    y_group = torch.cat(ys)  # y_group: [G, 1]
    ref_optimizer.zero_grad()
    loss_fn(reference(x_group), y_group).backward()
    pairs = list(zip(reference.parameters(), grads, strict=True))
    for p, g in pairs:  # assert_close raises, naming any difference
        torch.testing.assert_close(g, p.grad)
    same = all(torch.allclose(g, p.grad, atol=1e-6) for p, g in pairs)
    line = f"{len(group)} micro-batches vs one batch of {len(x_group)}"
    print(f"{line}: same gradient {same}")
    #> 4 micro-batches vs one batch of 32: same gradient True
    #> 4 micro-batches vs one batch of 32: same gradient True
    #> 2 micro-batches vs one batch of 16: same gradient True
    ref_optimizer.step()

params = zip(model.parameters(), reference.parameters(), strict=True)
same_weights = all(torch.allclose(p, q, atol=1e-6) for p, q in params)
line = f"{len(step_grads)} optimizer steps, same weights as the reference"
print(f"{line}: {same_weights}")
#> 3 optimizer steps, same weights as the reference: True
# The loop ends with zero_grad(): the model's gradients are None on purpose.
# expect-no-grad: model.*
