# family: no-grad-fn
# set: runtime-44
# mode: accelerate
# expect: does not require grad|grad_fn
# note: accelerate launch, 2 processes: a hand-written policy-gradient step computes its loss from generate()'s scores (generate runs under no_grad)
import torch
import _tiny
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
model = _tiny.llama()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
model, optimizer = accelerator.prepare(model, optimizer)
prompt = torch.tensor([[1, 5, 6]])
out = accelerator.unwrap_model(model).generate(prompt, max_new_tokens=4, do_sample=True, output_scores=True,
                                               return_dict_in_generate=True, pad_token_id=3)
logprobs = torch.stack([s.log_softmax(-1).max(-1).values for s in out.scores]).sum()
reward = 1.0
loss = -(reward * logprobs)
accelerator.backward(loss)
