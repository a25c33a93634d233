"""Fine-tune with Trainer and per_device_train_batch_size=2 while two GPUs are visible."""

from trainer_common import train_and_report, training_args

train_and_report(training_args())
