#!/bin/sh
# run_packs.sh - several device packs in one call, each under its own time limit, each pack's
# output written to its own file in OUT while it runs, so a call that reaches the device's limit
# still returns what the packs before it printed (a pipeline through `tail` returns nothing then).
#
#   run_packs.sh OUT BUDGET_S "LABEL|LIMIT_S|COMMAND" ...
#
# A pack starts only if its LIMIT_S fits in what is left of BUDGET_S (keep BUDGET_S some 20 s
# under the call's limit); it is skipped otherwise, saying so. Each pack prints a status line
# (exit code, seconds) and the last 12 lines of its output; OUT/summary.txt collects the status
# lines. At most 7 packs: the device returns 8 files.
set -u
out=$1 budget=$2; shift 2
mkdir -p "$out"
t0=$(date +%s)
: > "$out/summary.txt"
for p in "$@"; do
  label=${p%%|*} rest=${p#*|}
  limit=${rest%%|*} cmd=${rest#*|}
  left=$(( budget - ($(date +%s) - t0) ))
  if [ "$limit" -gt "$left" ]; then
    echo "skipped $label: needs $limit s, $left s left" | tee -a "$out/summary.txt"
    continue
  fi
  s=$(date +%s)
  timeout "$limit" sh -c "$cmd" > "$out/$label.log" 2>&1
  rc=$?
  echo "$label: exit $rc after $(( $(date +%s) - s )) s$( [ $rc = 124 ] && echo ' (its limit)')" | tee -a "$out/summary.txt"
  tail -12 "$out/$label.log" | sed 's/^/  /'
done
echo "all packs: $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
