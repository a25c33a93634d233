# family: dtype-mismatch
# case: KB0020-half-weights-fp32-inputs-no-autocast
# expect: dtype
# note: bfloat16 model fed float32 inputs_embeds (a soft-prompt / multimodal projector left in fp32), no autocast
import torch
import _tiny

model = _tiny.llama().to(torch.bfloat16)
projector = torch.nn.Linear(8, 16)  # float32
image_features = torch.randn(1, 4, 8)
embeds = projector(image_features)
out = model(inputs_embeds=embeds)
print(out.logits.shape)
