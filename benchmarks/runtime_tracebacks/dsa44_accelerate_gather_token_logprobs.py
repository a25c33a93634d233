# family: device-side-assert
# set: runtime-44
# mode: accelerate
# expect: out of bounds|index|IndexError
# note: accelerate launch, 2 processes: per-token log-probs gathered with labels that hold ids of tokens added to the tokenizer after the model was built (no resize)
import torch
import _tiny
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
tok = _tiny.tokenizer()
tok.add_tokens([f"<extra_{i}>" for i in range(24)] + ["<tool_call>", "</tool_call>", "<think>", "</think>"])
model = accelerator.prepare(_tiny.llama())
labels = torch.tensor([tok.convert_tokens_to_ids(["hello", "<think>", "world", "</think>"])])
ids = torch.tensor([[1, 5, 6, 7]])
logits = model(input_ids=ids).logits
logprobs = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)
