import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

zero = torch.tensor(0.0).to(device)
print("log(0):", torch.log(zero).item())
print("sqrt(-1):", torch.sqrt(zero - 1).item())
print("exp(100):", torch.exp(zero + 100).item())  # float32 ends at 3.4e38
print("0 * inf:", (zero * torch.inf).item())
print("inf - inf:", (torch.inf - torch.exp(zero + 100)).item())
print("70000 in float16:", (zero + 70000).half().item())  # max is 65504

# A probability that is exactly 0 makes p * log(p) NaN: 0 * -inf.
p = torch.tensor([0.0, 0.5, 0.5]).to(device)  # p: [3]
print("p * log(p):", (p * p.log()).sum().item())
print("xlogy(p, p):", round(torch.special.xlogy(p, p).sum().item(), 4))

# log(softmax(...)) underflows; log_softmax does not.
logits = torch.tensor([0.0, 200.0]).to(device)  # logits: [2]
print("log(softmax):", logits.softmax(dim=0).log()[0].item())
print("log_softmax:", logits.log_softmax(dim=0)[0].item())

# sqrt(0) is fine, but its gradient is not.
t = torch.zeros(1).to(device).requires_grad_()
torch.sqrt(t).sum().backward()
print("d sqrt(t)/dt at 0:", t.grad.item())
