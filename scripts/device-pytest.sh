#!/usr/bin/env bash
# Run case tests on a GPU machine that has no package registry, and bring the evidence back.
#
#   bash scripts/device-pytest.sh -m "gpu or t4x2" cases/
#
# Installs any wheels carried in .whl/ into /tmp/site (see docs/authoring.md), prints the GPUs,
# runs pytest with --kb-record, and, when $OUT is set, writes pytest.log and evidence.tgz (every
# case's evidence/ folder) there. Unpack locally with: tar xzf evidence.tgz
set -u
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
log="${OUT:-/tmp}/pytest.log"
start=$(date +%s)
python3 -m pytest -p no:cacheprovider --kb-record -q -rA "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "pytest wall time: $(( $(date +%s) - start )) s (exit $rc)" | tee -a "$log"
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/evidence.tgz" cases/*/evidence 2>/dev/null
fi
exit "$rc"
