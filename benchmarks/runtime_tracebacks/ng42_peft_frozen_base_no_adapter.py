# family: no-grad-fn
# case: KB0008-frozen-model-no-grad-fn
# set: runtime-42
# expect: does not require grad|grad_fn
# note: a LoRA model whose adapters were disabled (with model.disable_adapter()) and whose base is frozen, backpropagated
import torch
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
ids = torch.randint(4, 20, (2, 6))
with model.disable_adapter():
    loss = model(input_ids=ids, labels=ids).loss
loss.backward()
