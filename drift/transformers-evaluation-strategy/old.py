"""TrainingArguments written for transformers <= 4.50.3: `evaluation_strategy=`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), evaluation_strategy="steps", eval_steps=1, report_to="none")
print("kb-drift built", type(args).__name__)
