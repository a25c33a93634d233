# family: shape-mismatch
# set: runtime-40
# expect: shape|view|size
# note: SFTTrainer with a custom compute_loss that reshapes the logits with the batch size from the config (last batch is smaller)
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer


class Reshaping(SFTTrainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = model(**inputs)
        logits = out.logits.view(self.args.per_device_train_batch_size, -1, 4, 8)
        return logits.float().mean()


ds = Dataset.from_dict({"text": ["the cat sat on the mat", "hello world", "the dog"]})
cfg = SFTConfig(output_dir="/tmp/sft40-view", num_train_epochs=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
Reshaping(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
