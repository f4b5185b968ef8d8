import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The model and data of skipped_steps.py: gradients too large for float16.
x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = (15 * torch.randn(16, 1)).to(device)  # y: [B, 1]
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
# Grow the scale after 4 clean steps (the default waits 2000).
scaler = torch.amp.GradScaler(device.type, growth_interval=4)

scales, skipped = [], []
for step in range(24):
    scales.append(scaler.get_scale())
    optimizer.zero_grad()
    with torch.autocast(device.type, dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)  # loss: [] float32
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # skipped if any gradient is inf or NaN
    scaler.update()  # halves the scale after a skip, else may grow it
    if scaler.get_scale() < scales[-1]:
        skipped.append(step)

print("skipped steps:", skipped)
#> skipped steps: [0, 1, 2, 7, 12, 16, 21]
print("scale:", int(scales[0]), int(min(scales)), int(scales[-1]))
#> scale: 65536 4096 4096

plt.step(range(24), scales, where="post", label="scale")
plt.plot(skipped, [scales[s] for s in skipped], "x", label="skipped step")
plt.yscale("log", base=2)
plt.gca().yaxis.set_major_formatter("{x:g}")
plt.xlabel("step")
plt.ylabel("GradScaler's scale")
plt.legend()
plt.show()
