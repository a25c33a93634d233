# family: package-install
# set: runtime-42
# mode: pytest
# expect: tensorboard|TensorBoard
# note: pytest: a test builds a Trainer with report_to='tensorboard' and no tensorboard installed
import _tiny
from transformers import Trainer


def test_trainer_logs():
    trainer = Trainer(model=_tiny.llama(), args=_tiny.args(report_to=["tensorboard"]), train_dataset=_tiny.tokenized())
    trainer.train()
