# family: package-install
# set: runtime-43
# wave: 2
# expect: No module named|emoji
# note: SFTTrainer with a formatting_func that strips emoji with the emoji package, not installed
import _tiny
from trl import SFTConfig, SFTTrainer


def formatting(row):
    import emoji

    return emoji.replace_emoji(row["text"], replace="")


trainer = SFTTrainer(model=_tiny.llama(), processing_class=_tiny.tokenizer(), train_dataset=_tiny.text_dataset(),
                     formatting_func=formatting, args=SFTConfig(output_dir="/tmp/sft43f", max_steps=1, report_to=[], use_cpu=True))
