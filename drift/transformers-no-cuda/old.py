"""TrainingArguments written for transformers <= 4.57.6: `no_cuda=`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), no_cuda=True, report_to="none")
print("kb-drift built", type(args).__name__)
