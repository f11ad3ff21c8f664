#!/bin/sh
# tests/gpu_steps.sh OUT - on a machine with an NVIDIA GPU (the workplace's device, which starts
# bare): the register-blocking steps (09, 10, 11) tuned with make tune's search on the GPU through
# NVIDIA's OpenCL, each reference graded there with its tuned values, then make bench at
# N = 4096 with those values beside CLBlast (Debian's package, build/debs/libclblast1_*.deb,
# carried with the checkout and unpacked into /tmp) and cuBLAS. What it measures goes to OUT: the
# tuning file, the gradings' reports, bench.csv and bench.md, and what each step took
# (steps.txt), in OUT.tar.gz. Nothing interactive; on an H200 about three minutes an exercise
# tuned (make tune's search most of it), half a minute each graded.
#   GPU_STEPS_DEVICE (nvidia), GPU_STEPS_N (4096), GPU_STEPS_BUDGET (seconds of make tune's search
#   per exercise, 90): a dry run elsewhere, e.g. GPU_STEPS_DEVICE=pocl GPU_STEPS_N=256.
#   GPU_STEPS_TUNE: the exercises to tune (09 10 11), GPU_STEPS_GRADE: to grade (the same),
#   GPU_STEPS_FROM: a tuning file whose values the run starts from (an earlier run's, named as the
#   grader names the device's, e.g. NVIDIA_H200.conf: make tune replaces only what it tunes).
set -u
out=${1:?usage: tests/gpu_steps.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
device=${GPU_STEPS_DEVICE:-nvidia}
n=${GPU_STEPS_N:-4096}
budget=${GPU_STEPS_BUDGET:-90}
tune=${GPU_STEPS_TUNE-09 10 11}
grade=${GPU_STEPS_GRADE-$tune}
mkdir -p "$out/tuning"
[ -z "${GPU_STEPS_FROM:-}" ] || cp "$GPU_STEPS_FROM" "$out/tuning/" || exit 2
. "$root/tests/gpu_setup.sh"
for ex in $tune; do
    step "make tune EX=$ex SUBMISSION=solutions (budget $budget s)"
    start=$(date +%s)
    "$B/grader/grader" --tune --ex $ex --submission solutions --device "$device" --budget "$budget" \
        --tuning "$out/tuning" --work /tmp/gpu-steps-work >"$out/tune$ex.txt" 2>&1
    step "  exit $?, $(($(date +%s) - start)) s"
done
for ex in $grade; do
    step "grade solutions/$ex with the tuned values"
    start=$(date +%s)
    "$B/grader/grader" --submission solutions --ex $ex --no-memcheck --device "$device" \
        --tuning "$out/tuning" --json "$out/grade$ex.json" --results "$out/grade$ex" \
        --work /tmp/gpu-steps-work >"$out/grade$ex.txt" 2>&1
    step "  exit $?, $(($(date +%s) - start)) s: $(sed -n 's/^Score: //p' "$out/grade$ex.txt")"
done
step "bench N = $n with the tuned values"
start=$(date +%s)
"$B/grader/grader" --bench --root "$root" --n "$n" --device "$device" --tuning "$out/tuning" \
    --out "$out/bench" >"$out/bench.txt" 2>&1
step "  exit $?, $(($(date +%s) - start)) s"
step "done"
# one file back (the device returns only a few)
tar -C "$out" -czf "$out.tar.gz" . && rm -rf "$out"
