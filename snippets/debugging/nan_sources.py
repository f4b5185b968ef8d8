import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

zero = torch.tensor(0.0).to(device)
print("log(0):", torch.log(zero).item())
#> log(0): -inf
print("sqrt(-1):", torch.sqrt(zero - 1).item())
#> sqrt(-1): nan
print("exp(100):", torch.exp(zero + 100).item())  # float32 ends at 3.4e38
#> exp(100): inf
print("0 * inf:", (zero * torch.inf).item())
#> 0 * inf: nan
print("inf - inf:", (torch.inf - torch.exp(zero + 100)).item())
#> inf - inf: nan
print("70000 in float16:", (zero + 70000).half().item())  # max is 65504
#> 70000 in float16: inf

# A probability that is exactly 0 makes p * log(p) NaN: 0 * -inf.
p = torch.tensor([0.0, 0.5, 0.5]).to(device)  # p: [3]
print("p * log(p):", (p * p.log()).sum().item())
#> p * log(p): nan
print("xlogy(p, p):", round(torch.special.xlogy(p, p).sum().item(), 4))
#> xlogy(p, p): -0.6931

# log(softmax(...)) underflows; log_softmax does not.
logits = torch.tensor([0.0, 200.0]).to(device)  # logits: [2]
print("log(softmax):", logits.softmax(dim=0).log()[0].item())
#> log(softmax): -inf
print("log_softmax:", logits.log_softmax(dim=0)[0].item())
#> log_softmax: -200.0

# sqrt(0) is fine, but its gradient is not.
t = torch.zeros(1).to(device).requires_grad_()
torch.sqrt(t).sum().backward()
print("d sqrt(t)/dt at 0:", t.grad.item())
#> d sqrt(t)/dt at 0: inf
# no-module-to-check: the gradient is a plain tensor's, inf on purpose
