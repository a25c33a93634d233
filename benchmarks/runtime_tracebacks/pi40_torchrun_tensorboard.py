# family: package-install
# set: runtime-40
# mode: torchrun
# expect: tensorboard|TensorBoard
# note: torchrun, Trainer on 2 gloo ranks with report_to="tensorboard", tensorboard not installed in the image
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
Trainer(model=_tiny.llama(), args=_tiny.args(report_to="tensorboard"), train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
