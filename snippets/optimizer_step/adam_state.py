import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.Adam(
    model.parameters(), lr=0.01, betas=(0.9, 0.999)
)

print(len(optimizer.state))
#> 0

loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()
w_before = model.weight.detach().clone()  # w_before: [1, 4]
optimizer.step()

state = optimizer.state[model.weight]
for key in sorted(state):
    print(key, state[key].shape, state[key].dtype)
    #> exp_avg torch.Size([1, 4]) torch.float32
    #> exp_avg_sq torch.Size([1, 4]) torch.float32
    #> step torch.Size([]) torch.float32
# A per-parameter step counter, stored as a float tensor:
print(state["step"].item())
#> 1.0

# After one step: exp_avg = (1 - beta1) * g, exp_avg_sq = (1 - beta2) * g**2
g = model.weight.grad  # g: [1, 4]
torch.testing.assert_close(state["exp_avg"], 0.1 * g)
torch.testing.assert_close(state["exp_avg_sq"], 0.001 * g**2)
avg_ok = torch.allclose(state["exp_avg"], 0.1 * g)
sq_ok = torch.allclose(state["exp_avg_sq"], 0.001 * g**2)
print(avg_ok, sq_ok)
#> True True

# Bias correction makes the first update lr * g / |g|: every weight moves by
# lr, whatever |g|.
moved = (model.weight.detach() - w_before).abs()  # moved: [1, 4]
print("|grad|:", [round(v, 3) for v in g.abs().flatten().tolist()])
#> |grad|: [0.882, 1.61, 0.113, 1.422]
print("moved: ", [round(v, 3) for v in moved.flatten().tolist()])
#> moved:  [0.01, 0.01, 0.01, 0.01]

saved = optimizer.state_dict()  # a checkpoint saves this next to the model
print(sorted(saved), sorted(saved["state"][0]))
#> ['param_groups', 'state'] ['exp_avg', 'exp_avg_sq', 'step']
