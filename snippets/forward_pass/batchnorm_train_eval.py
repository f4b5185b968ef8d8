import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# A new layer starts with running_mean = 0 and running_var = 1.
bn = nn.BatchNorm1d(4).to(device)
m = bn.momentum  # 0.1
x = (torch.randn(16, 4) * 3 + 5).to(device)  # x: [B, 4]
batch_mean = x.mean(dim=0)  # batch_mean: [4]
batch_var = x.var(dim=0, unbiased=False)  # batch_var: [4]

# Train mode: normalise with this batch's own mean and biased variance...
bn.train()
y_train = bn(x)  # y_train: [B, 4]
x_hat = (x - batch_mean) / torch.sqrt(batch_var + bn.eps)  # x_hat: [B, 4]
by_hand = x_hat * bn.weight + bn.bias  # by_hand: [B, 4]
print(torch.allclose(y_train, by_hand, atol=1e-5))
#> True

# ...and, as a side effect, move the running statistics towards the batch's.
print(torch.allclose(bn.running_mean, (1 - m) * 0 + m * batch_mean))
#> True
unbiased_var = x.var(dim=0, unbiased=True)  # unbiased_var: [4]
print(torch.allclose(bn.running_var, (1 - m) * 1 + m * unbiased_var))
#> True

# Eval mode: normalise with the running statistics, and update nothing.
bn.eval()
saved = bn.running_mean.clone()  # saved: [4]
y_eval = bn(x)  # y_eval: [B, 4]
x_hat = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
by_hand = x_hat * bn.weight + bn.bias  # by_hand: [B, 4]
matches = torch.allclose(y_eval, by_hand, atol=1e-5)
print(matches, torch.equal(bn.running_mean, saved))
#> True True
# Same input, different output:
print(torch.allclose(y_eval, y_train, atol=0.1))
#> False
print(y_eval.requires_grad)  # eval() does not switch autograd off
#> True

# The pitfall: no_grad() is not eval(). In train mode the statistics move.
bn.train()
with torch.no_grad():
    bn(x)
print(torch.equal(bn.running_mean, saved))
#> False
before = [round(v, 2) for v in saved.tolist()]
after = [round(v, 2) for v in bn.running_mean.tolist()]
print(before, after)
#> [0.48, 0.51, 0.6, 0.52] [0.91, 0.97, 1.14, 1.0]
