"""The same training config with the key renamed to `eval_strategy`."""
import tempfile

from transformers import HfArgumentParser, TrainingArguments

config = {"output_dir": tempfile.mkdtemp(), "eval_strategy": "steps", "eval_steps": 1, "report_to": "none"}
(args,) = HfArgumentParser(TrainingArguments).parse_dict(config)
print("kb-drift parsed", args.eval_strategy)
