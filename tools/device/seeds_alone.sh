#!/usr/bin/env bash
# The seeds' paths each timed alone in its own process (seeds_compiled_bench --path P),
# alternating eager and compiled ROUNDS times per model, so neither path runs in the
# other's wake (allocator state, clocks): the median over processes per model and mode.
# Usage: MODELS="..." ROUNDS=3 tools/device/seeds_alone.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${TT_BUILD_DIR:-build-device}
log=/tmp/seeds_alone.txt
: >"$log"
for model in ${MODELS:-GemmInstanceNormAddMul InstanceNorm2dModel GemmSwishBiasGroupNorm GemmScaleBatchNorm GemmBiasReLU}; do
  for r in $(seq "${ROUNDS:-3}"); do
    for path in eager compiled; do
      timeout 120 "$build/tools/seeds_compiled_bench" --shape full --reps 20 --rounds 3 \
        --model "$model" --path "$path" | grep -E "^$model" |
        awk -v p="$path" '{print $1, $2, p, (p == "eager" ? $4 : $3)}' >>"$log"
    done
  done
done
python3 - "$log" <<'PY'
import statistics, sys
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    m, mode, path, ms = line.split()
    t[(m, mode, path)].append(float(ms))
print("%-24s %-9s %9s %9s %7s   per process (eager | compiled)" % ("model", "precision", "eager ms", "compiled", "ratio"))
for (m, mode, path) in sorted(t):
    if path != "eager":
        continue
    h, c = t[(m, mode, "eager")], t[(m, mode, "compiled")]
    print("%-24s %-9s %9.3f %9.3f %7.3f   %s | %s" % (m, mode, statistics.median(h), statistics.median(c),
          statistics.median(c) / statistics.median(h), " ".join("%.3f" % x for x in h), " ".join("%.3f" % x for x in c)))
PY
