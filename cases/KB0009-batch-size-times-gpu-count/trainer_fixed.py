"""Fine-tune with Trainer and per_device_train_batch_size=2 while two GPUs are visible."""
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # before anything imports torch: one GPU, no DataParallel

from trainer_common import train_and_report, training_args

train_and_report(training_args())
