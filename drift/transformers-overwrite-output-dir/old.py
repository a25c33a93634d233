"""TrainingArguments written for transformers <= 4.57.6: `overwrite_output_dir=`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), overwrite_output_dir=True, report_to="none")
print("kb-drift built", type(args).__name__)
