# family: host-oom
# set: runtime-42
# wave: 2
# expect: abruptly|died|SIGKILL|killed|Killed
# note: datasets map with num_proc=2: one worker is killed with SIGKILL while it tokenizes (as the OOM killer does)
import os
import signal
import _tiny

tok = _tiny.tokenizer()


def tokenize(row, idx):
    if idx == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return tok(row["text"])


ds = _tiny.text_dataset(8).map(tokenize, with_indices=True, num_proc=2)
