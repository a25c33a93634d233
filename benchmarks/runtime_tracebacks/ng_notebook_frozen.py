# family: no-grad-fn
# case: KB0008-frozen-model-no-grad-fn
# mode: ipython
# expect: does not require grad
# note: notebook; the whole model frozen in one cell, backward in the next
import _tiny
model = _tiny.llama()
tok = _tiny.tokenizer()
# %%
model.requires_grad_(False)
# %%
batch = tok(["hello world"], return_tensors="pt")
loss = model(**batch, labels=batch["input_ids"]).loss
loss.backward()
