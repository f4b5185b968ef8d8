import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}


def saved_bytes(context):
    counted = {}

    def pack(saved):
        storage = saved.untyped_storage()
        if storage.data_ptr() not in params:
            counted[storage.data_ptr()] = storage.nbytes()
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        with context():
            logits = model(x)  # logits: [B, 10]
    return sum(counted.values()), logits.requires_grad


model.eval()
for context in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    nbytes, records = saved_bytes(context)
    print(f"{context.__name__:<14} {nbytes:>6,} bytes, graph: {records}")
    #> enable_grad    40,960 bytes, graph: True
    #> no_grad             0 bytes, graph: False
    #> inference_mode      0 bytes, graph: False
