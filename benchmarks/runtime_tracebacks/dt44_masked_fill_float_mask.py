# family: dtype-mismatch
# set: runtime-44
# mode: torchrun
# expect: masked_fill|boolean|Bool|dtype
# note: torchrun, 2 gloo ranks: a pooling head masks padded positions with masked_fill using the float attention mask the collator built
import torch
import torch.distributed as dist
import _tiny

dist.init_process_group("gloo")
model = _tiny.llama()
ids = torch.tensor([[1, 5, 6, 2, 3, 3]])
mask = torch.tensor([[1, 1, 1, 1, 0, 0]], dtype=torch.float32)
hidden = model.model(input_ids=ids, attention_mask=mask.long()).last_hidden_state
hidden = hidden.masked_fill(1 - mask.unsqueeze(-1), 0.0)
pooled = hidden.sum(1) / mask.sum(1, keepdim=True)
