"""The incident's first attempt: CUDA_VISIBLE_DEVICES set in the entry script, after the import
of the module that builds the training configuration."""
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # first lines of the entry module: before anything touches CUDA

from train_config import training_args

from trainer_common import train_and_report

train_and_report(training_args)
