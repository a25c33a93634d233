# family: hub-access
# set: runtime-42
# wave: 2
# expect: [Rr]evision|RevisionNotFound|404
# note: a ProcessPoolExecutor downloads config.json of two repos at a revision the Hub does not have (the worker's error chained)
import _hub
_hub.serve("revision")
from concurrent.futures import ProcessPoolExecutor
from huggingface_hub import hf_hub_download


def fetch(repo):
    return hf_hub_download(repo, "config.json", revision="v2.1-final")


if __name__ == "__main__":
    with ProcessPoolExecutor(2) as pool:
        print(list(pool.map(fetch, ["Qwen/Qwen2.5-0.5B", "HuggingFaceTB/SmolLM2-135M"])))
