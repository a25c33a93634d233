# family: package-install
# set: runtime-42
# expect: [Rr]ay
# note: Trainer.hyperparameter_search(backend='ray') without ray installed
import _tiny
from transformers import Trainer

trainer = Trainer(model_init=lambda *a: _tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized())
best = trainer.hyperparameter_search(backend="ray", n_trials=2)
