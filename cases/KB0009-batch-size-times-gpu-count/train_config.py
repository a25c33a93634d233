"""Like the incident's test_unsloth_common.py: the training configuration is built at import time.

Building TrainingArguments resolves its device (``self.device`` in ``__post_init__``): accelerate's
PartialState and ``torch.cuda.set_device`` initialise CUDA and ``n_gpu`` is cached, so whatever
CUDA_VISIBLE_DEVICES says after this import no longer counts.
"""

from trainer_common import training_args as _make

training_args = _make()
