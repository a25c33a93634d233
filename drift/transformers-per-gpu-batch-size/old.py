"""TrainingArguments written for transformers <= 4.57.6: `per_gpu_train_batch_size=`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_gpu_train_batch_size=2, report_to="none")
print("kb-drift built", type(args).__name__)
