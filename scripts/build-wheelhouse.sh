#!/usr/bin/env bash
# Download the wheels that pinned reproductions need (`pins = [...]` and `fixed_pins = [...]` in a case.md) into a
# gitignored wheelhouse, for machines without a package registry (the GPU machines).
#
#   bash scripts/build-wheelhouse.sh                 # pins of every case
#   bash scripts/build-wheelhouse.sh KB0009 KB0012   # pins of these cases only (keeps a carry small)
#
# Environment: KB_WHEELHOUSE (default .whl-pinned), KB_PIN_PYTHON (default 3.12, the GPU image's
# Python; use your own, e.g. 3.11, for a local CPU check). Wheels only, no dependencies: a pin list
# must name every package whose installed version does not fit the pinned stack (docs/pinned.md).
# Each pin is downloaded on its own, so two cases may pin different versions of one package.
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${KB_WHEELHOUSE:-.whl-pinned}"
pyver="${KB_PIN_PYTHON:-3.12}"
mkdir -p "$dest"
pins=$(python3 - "$@" <<'PY'
import sys
from kb.knowledge.registry import all_cases
wanted = {a.upper() for a in sys.argv[1:]}
pins = {p for c in all_cases() if not wanted or c.id in wanted for r in c.reproductions
        for p in (*r.pins, *(r.fixed_pins or ()))}
print("\n".join(sorted(pins)))
PY
)
if [ -z "$pins" ]; then echo "no pinned reproductions${1:+ in $*}"; exit 0; fi
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$p")
done
for pin in $pins; do
  echo "== $pin"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version "$pyver" \
    --implementation cp "${platforms[@]}" -d "$dest" "$pin"
done
du -sh "$dest"
