"""TrainingArguments for transformers >= 5.0.0: `per_device_train_batch_size`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=2, report_to="none")
print("kb-drift built", type(args).__name__)
