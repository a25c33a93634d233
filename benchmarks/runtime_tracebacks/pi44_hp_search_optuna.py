# family: package-install
# set: runtime-44
# expect: optuna|install|backend|RuntimeError
# note: Trainer.hyperparameter_search(backend='optuna') without optuna installed
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model_init=lambda *a: _tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  eval_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
best = trainer.hyperparameter_search(backend="optuna", n_trials=2, direction="minimize")
