# family: device-mismatch
# set: runtime-40
# expect: meta
# note: a soft-prompt tensor created on the meta device (a device= copied from a module built empty) meets the model's CPU embeddings
import torch
import _tiny

model = _tiny.llama()
prompt = torch.zeros(1, 4, 16, device="meta")
embeds = model.get_input_embeddings()(torch.tensor([[5, 6, 7]]))
inputs = torch.cat([prompt, embeds], dim=1)
model(inputs_embeds=inputs)
