# family: no-grad-fn
# case: KB0008-frozen-model-no-grad-fn
# expect: does not require grad
# note: Trainer on a model whose parameters were all frozen (meant to unfreeze the head, forgot)
import _tiny
from transformers import Trainer, DataCollatorForLanguageModeling

tok = _tiny.tokenizer()
model = _tiny.llama()
for p in model.parameters():
    p.requires_grad = False
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
