# family: api-drift
# set: runtime-40
# mode: logprefix
# expect: cannot import name
# note: a containerised job's log; an upload step still importing Repository from huggingface_hub
from huggingface_hub import Repository

repo = Repository(local_dir="/tmp/out40", clone_from="someone/model")
