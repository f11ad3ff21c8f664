#!/bin/sh
# tests/gpu_grade_times.sh OUT - on a machine with an NVIDIA GPU (the workplace's device, which
# starts bare): every solution of the workbook graded in one run of the grader through NVIDIA's
# OpenCL (--no-memcheck: the device machine has no oclgrind), and where that run's time went:
# each exercise's log ends with the seconds of each of its tests, counted from the verdict before
# it (report.c's tail), gathered into OUT/times.txt, slowest first, with the run's whole. Also
# the reports and the summary; all of it in OUT.tar.gz. Nothing interactive; about three
# minutes on an H200.
#   GPU_TIMES_DEVICE (nvidia): a dry run elsewhere, e.g. GPU_TIMES_DEVICE=pocl.
set -u
out=${1:?usage: tests/gpu_grade_times.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
device=${GPU_TIMES_DEVICE:-nvidia}
mkdir -p "$out"
. "$root/tests/gpu_setup.sh"
step "grade every solution (--no-memcheck)"
start=$(date +%s)
"$B/grader/grader" --submission solutions --no-memcheck --device "$device" \
    --json "$out/grade.json" --results "$out/grade" --work /tmp/gpu-times-work >"$out/grade.txt" 2>&1
status=$?
whole=$(($(date +%s) - start))
step "  exit $status, $whole s: $(sed -n 's/^Score: //p' "$out/grade.txt")"
# times.txt: the exercises by their whole, then every test by its seconds, slowest first
{
    echo "every solution graded in $whole s (exit $status) on $device"
    echo "== exercises"
    sed -n 's/^   time: \([0-9.]*\) s to grade \(.*\); .*/\1 \2/p' "$out"/grade/*.log | sort -g -r
    echo "== tests, slowest first"
    for log in "$out"/grade/*.log; do
        ex=$(basename "$log" .log)
        sed -n '/^   time: /,$p' "$log" | sed -n "s/^ *\([0-9.]*\) s  \(.*\)/\1 $ex: \2/p"
    done | sort -g -r
} >"$out/times.txt"
cat "$out/times.txt"
step "done"
tar -C "$out" -czf "$out.tar.gz" . && rm -rf "$out"
