from functools import partial

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class TwoBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 1)
        self.b = nn.Linear(4, 1)

    def forward(self, x, use_b):  # x: [B, 4]
        out = self.a(x)  # out: [B, 1]
        return out + self.b(x) if use_b else out  # out: [B, 1]


initial = TwoBranch().to(device).state_dict()
x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
loss_fn = nn.MSELoss()
optimizers = {
    "SGD": partial(torch.optim.SGD, lr=0.1),
    "SGD momentum": partial(torch.optim.SGD, lr=0.1, momentum=0.9),
    "SGD weight_decay": partial(torch.optim.SGD, lr=0.1, weight_decay=0.01),
    "AdamW": partial(torch.optim.AdamW, lr=0.1),
    "LBFGS": partial(torch.optim.LBFGS, lr=0.1),
}


# step(closure) runs this: LBFGS needs it, the others call it once.
def closure(use_b, set_to_none):  # for the model and optimizer below
    optimizer.zero_grad(set_to_none=set_to_none)
    loss = loss_fn(model(x, use_b), y)
    loss.backward()
    return loss


for name, make_optimizer in optimizers.items():
    for set_to_none in (True, False):
        model = TwoBranch().to(device)
        model.load_state_dict(initial)
        optimizer = make_optimizer(model.parameters())
        for use_b in (True, False):  # step 1 uses branch b, step 2 does not
            b_before = model.b.weight.detach().clone()  # b_before: [1, 4]
            optimizer.step(partial(closure, use_b, set_to_none))
        grad = "None" if model.b.weight.grad is None else "zeros"
        moved = not torch.equal(model.b.weight, b_before)
        print(f"{name:16}  b.grad={grad:5}  b moved in step 2: {moved}")
        #> SGD               b.grad=None   b moved in step 2: False
        #> SGD               b.grad=zeros  b moved in step 2: False
        #> SGD momentum      b.grad=None   b moved in step 2: False
        #> SGD momentum      b.grad=zeros  b moved in step 2: True
        #> SGD weight_decay  b.grad=None   b moved in step 2: False
        #> SGD weight_decay  b.grad=zeros  b moved in step 2: True
        #> AdamW             b.grad=None   b moved in step 2: False
        #> AdamW             b.grad=zeros  b moved in step 2: True
        #> LBFGS             b.grad=None   b moved in step 2: True
        #> LBFGS             b.grad=zeros  b moved in step 2: True
