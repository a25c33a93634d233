# family: dtype-mismatch
# set: runtime-39
# wave: 1
# expect: dtype|expected|scalar type
# note: a bfloat16 model whose extra projector stays float32 (hidden states cross dtypes into the norm), no autocast
import torch
import _tiny

model = _tiny.llama().to(torch.bfloat16)
projector = torch.nn.Linear(8, 16)
feats = projector(torch.randn(2, 4, 8))
out = model(inputs_embeds=torch.cat([feats, model.get_input_embeddings()(torch.tensor([[5, 6], [7, 8]]))], dim=1))
