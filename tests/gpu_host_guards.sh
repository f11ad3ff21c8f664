#!/bin/sh
# tests/gpu_host_guards.sh OUT - on a machine with an NVIDIA GPU (the workplace's device, which
# starts bare): the guard zones of the grader's OpenCL layer (child/launch_layer_guards.c) through
# NVIDIA's OpenCL, where no oclgrind can go (issue 34, goal 2):
#   1. the planted host entries graded on the GPU: a write past C's end with C right
#      (host_writes_past_C), a read past A's end (host_reads_past_A), a program's own sub-buffer
#      (host_sub_buffer_kept, full marks);
#   2. what the guards cost: every solution graded twice (--no-memcheck --no-perf), with the layer
#      as built and with one built from the launch_layer.c of before the guards (GUARDS_BEFORE, a
#      file: the device machine gets no .git; default build/gpu/launch_layer_before.c, which
#      `git show 14a39ad:grader/child/launch_layer.c` writes), each host test's seconds (its log's
#      time tail) side by side in OUT/host.txt.
# Everything in OUT.tar.gz. About three minutes on an H200. GPU_GUARDS_DEVICE (nvidia): a dry run
# elsewhere, e.g. GPU_GUARDS_DEVICE=pocl.
set -u
out=${1:?usage: tests/gpu_host_guards.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
device=${GPU_GUARDS_DEVICE:-nvidia}
before=${GUARDS_BEFORE:-$root/build/gpu/launch_layer_before.c}
mkdir -p "$out"
. "$root/tests/gpu_setup.sh"
step "the planted host entries on $device"
DEVICE=$device sh tests/planted.sh host_writes_past_C host_reads_past_A host_sub_buffer_kept \
    >"$out/planted.txt" 2>&1
step "  exit $?: $(grep -cE '^ok   planted' "$out/planted.txt") of 3 as expected"
grep -E '^(ok|FAIL) +planted' "$out/planted.txt" | tee -a "$log"
# the host test's seconds of each exercise: the log's tail times each test from the verdict
# before it (report.c)
host_seconds() { # host_seconds RESULTS
    for f in "$1"/*.log; do
        sed -n "s/^ *\([0-9.]*\) s  host program.*/$(basename "$f" .log) \1/p" "$f"
    done | sort
}
grade() { # grade NAME: every solution, its host tests' seconds into OUT/NAME.txt
    start=$(date +%s)
    "$B/grader/grader" --submission solutions --no-memcheck --no-perf --device "$device" \
        --json "$out/$1.json" --results "$out/$1" --work "/tmp/gpu-guards-$1" >"$out/$1-grade.txt" 2>&1
    step "  $1: exit $?, $(($(date +%s) - start)) s: $(sed -n 's/^Score: //p' "$out/$1-grade.txt")"
    host_seconds "$out/$1" >"$out/$1.txt"
}
step "every solution with the guard zones"
grade guarded
layer=$B/grader/launch_layer.so
cp "$layer" "$out/guarded-layer.so"
step "every solution with the layer of $before (no guard zones)"
cc -std=c11 -O2 -fPIC -shared -fvisibility=hidden -I"$root/common" -I"$root/grader" -o "$layer" \
    "$before" && grade before
cp "$out/guarded-layer.so" "$layer" && rm -f "$out/guarded-layer.so"
{
    echo "host test seconds on $device: exercise, with the guard zones, without (the layer before them)"
    join "$out/guarded.txt" "$out/before.txt"
} >"$out/host.txt"
cat "$out/host.txt" | tee -a "$log"
step "done"
tar -C "$out" -czf "$out.tar.gz" . && rm -rf "$out"
