"""CUDA_VISIBLE_DEVICES set in the entry script right after importing transformers' TrainingArguments
(bitsandbytes installed)."""
from transformers import TrainingArguments  # noqa: F401
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # too late if that import initialised CUDA

from trainer_common import train_and_report, training_args

train_and_report(training_args())
