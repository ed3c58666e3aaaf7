#!/usr/bin/env bash
# Runs the named make targets one after another, timing each, and prints a table of each
# stage's wall time at the end (also when a stage fails: the run stops there, and the table
# says which). `make test` uses it; docs/benchmarks.md records the table of a fresh clone.
set -uo pipefail
cd "$(dirname "$0")/.."
make_cmd=${MAKE:-make}
names=()
seconds=()
status=0
total_start=$(date +%s)
for stage in "$@"; do
  start=$(date +%s)
  echo "=== stage $stage ==="
  "$make_cmd" --no-print-directory "$stage"
  rc=$?
  names+=("$stage")
  seconds+=($(( $(date +%s) - start )))
  if [ $rc -ne 0 ]; then
    status=$rc
    names[-1]="$stage (FAILED, rc $rc)"
    break
  fi
done
total=$(( $(date +%s) - total_start ))
echo
echo "stage wall times (s), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
for i in "${!names[@]}"; do
  printf '  %-28s %6d\n' "${names[$i]}" "${seconds[$i]}"
done
printf '  %-28s %6d\n' "total" "$total"
exit $status
