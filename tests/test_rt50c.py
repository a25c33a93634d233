"""rt50c (turn 50, issue #24): qa-runtime-55's misses (corpus/reports-qa-runtime-55.jsonl), each by a rule that
generalises, with the near forms each rule must leave alone (benchmarks/results/runtime-turn50c.txt).

1. A Hub HTTP error on a Space's management endpoint (huggingface_hub's HfApi.restart_space / pause_space /
   request_space_hardware ...: "https://huggingface.co/api/spaces/<owner>/<space>/restart"): a Space app (a leaderboard's
   scheduler restarting itself) made the request, not a run loading or pushing a model: the HfHubHTTPError prior does not
   claim it. A Hub HTTP error on a model's or dataset's endpoint stays hub-access.
2. transformers <= 3.x's "OSError: file <id>/config.json not found" (file_utils.cached_path): the name was read as a
   local folder, which exists and holds no config.json. For a Hub id ("bert-base-uncased/config.json") that is a local
   folder of the model's name shadowing the Hub (hub-access: "make sure you don't have a local directory with the same
   name", as 4.x says); a path of the user's own ("./output/checkpoint-500/config.json") or another program's file stays
   unclaimed by this rule.
"""

from __future__ import annotations

import pytest

from corpus_support import report_text as report
from runtime_support import top_answer


# 1. a Space's management endpoint ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    report("forum:huggingface.co/spaces/openlifescienceai/open_medical_llm_leaderboard/discussions/19"),
    # as a Space's log line prints it (a traceback through huggingface_hub's frames is still decided by the frame
    # prior: frame rules have no excludes, left for later; benchmarks/results/runtime-turn50c.txt)
    "huggingface_hub.utils._errors.HfHubHTTPError: 503 Server Error: Service Unavailable for url: "
    "https://huggingface.co/api/spaces/my-org/my_leaderboard/restart\n",
    "requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: "
    "https://huggingface.co/api/spaces/my-org/chatbot-arena/restart?factory=true\n",
])
def test_space_management_request_is_not_hub_access(text: str) -> None:
    assert top_answer(text) != ("family", "hub-access")


@pytest.mark.parametrize("text", [
    # a model's endpoint (a push at the end of training, a download) stays hub-access
    "huggingface_hub.utils._errors.HfHubHTTPError: 500 Server Error: Internal Server Error for url: "
    "https://huggingface.co/api/models/my-org/llama-sft/commit/main\n",
    "huggingface_hub.utils._errors.HfHubHTTPError: 502 Server Error: Bad Gateway for url: "
    "https://huggingface.co/api/datasets/my-org/sft-data/paths-info/main\n",
])
def test_model_or_dataset_request_stays_hub_access(text: str) -> None:
    assert top_answer(text) == ("family", "hub-access")


# 2. transformers 3.x's "file <id>/config.json not found" -------------------------------------------------------------

OLD_CONFIG_FRAMES = (
    "Traceback (most recent call last):\n"
    "  File \"train.py\", line 14, in <module>\n"
    "    model = BertForSequenceClassification.from_pretrained(NAME, num_labels=2)\n"
    "  File \"/opt/conda/lib/python3.7/site-packages/transformers/modeling_utils.py\", line 855, in from_pretrained\n"
    "    **kwargs,\n"
    "  File \"/opt/conda/lib/python3.7/site-packages/transformers/configuration_utils.py\", line 347, in "
    "from_pretrained\n"
    "    config_dict, kwargs = cls.get_config_dict(pretrained_model_name_or_path, **kwargs)\n"
    "  File \"/opt/conda/lib/python3.7/site-packages/transformers/configuration_utils.py\", line 382, in "
    "get_config_dict\n"
    "    local_files_only=local_files_only,\n"
    "  File \"/opt/conda/lib/python3.7/site-packages/transformers/file_utils.py\", line 958, in cached_path\n"
    "    raise EnvironmentError(\"file {} not found\".format(url_or_filename))\n"
)


@pytest.mark.parametrize("text", [
    report("gh:huggingface/transformers#7600"),
    OLD_CONFIG_FRAMES + "OSError: file roberta-base/config.json not found\n",
    OLD_CONFIG_FRAMES + "OSError: file microsoft/deberta-v3-base/config.json not found\n",
])
def test_old_transformers_hub_id_read_as_a_local_folder_is_hub_access(text: str) -> None:
    assert top_answer(text) == ("family", "hub-access")


@pytest.mark.parametrize("text", [
    # the user's own folder without config.json: not a Hub id shadowed by a folder
    OLD_CONFIG_FRAMES + "OSError: file ./output/checkpoint-500/config.json not found\n",
    OLD_CONFIG_FRAMES + "OSError: file /data/models/my_bert/config.json not found\n",
    # another program's missing file (DeepSpeed-MII's hostfile)
    "Traceback (most recent call last):\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/mii/launch/multi_gpu_server.py\", line 44, in main\n"
    "    raise ValueError(f\"file {hostfile} not found\")\n"
    "ValueError: file /job/hostfile not found\n",
])
def test_other_missing_files_are_not_this_rule(text: str) -> None:
    assert top_answer(text) != ("family", "hub-access")
