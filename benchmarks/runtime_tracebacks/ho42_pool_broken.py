# family: host-oom
# set: runtime-42
# expect: terminated abruptly|BrokenProcessPool|SIGKILL
# note: a ProcessPoolExecutor tokenizing shards: one worker is killed with SIGKILL (as the OOM killer does)
import os
import signal
from concurrent.futures import ProcessPoolExecutor


def tokenize_shard(i):
    if i == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return [len(w) for w in ("the cat sat on the mat " * 100).split()]


if __name__ == "__main__":
    with ProcessPoolExecutor(2) as pool:
        lengths = list(pool.map(tokenize_shard, range(4)))
