"""The incident's script: trl's SFTTrainer with per_device_train_batch_size=2 while two GPUs are visible."""
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # before anything imports torch: one GPU, no DataParallel

from sft_common import train_and_report

train_and_report()
