#!/bin/sh
# tests/gpu_capstone.sh OUT - on a machine with an NVIDIA GPU (the workplace's device, which starts
# bare): the capstone graded through NVIDIA's OpenCL with its anchor, CLBlast, brought as Debian's
# package unpacked into /tmp (build/debs/libclblast1_*.deb, carried with the checkout), then make
# bench at N = 4096 beside CLBlast and cuBLAS. Everything it measures goes to OUT: the grader's
# reports and results.json of two gradings of solutions/13 (the first times the anchor against
# the reference and keeps it, the second is held against the kept figure), bench.csv, and what
# each step took, in OUT.tar.gz. Nothing interactive; about five minutes on an H200.
set -u
out=${1:?usage: tests/gpu_capstone.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
mkdir -p "$out"
device=nvidia
. "$root/tests/gpu_setup.sh"
for i in 1 2; do
    step "grade solutions/13 ($i of 2)"
    start=$(date +%s)
    "$B/grader/grader" --submission solutions --ex 13 --no-memcheck --device nvidia --json "$out/grade$i.json" \
        --results "$out/grade$i" --work /tmp/gpu-work >"$out/grade$i.txt" 2>&1
    step "  exit $?, $(($(date +%s) - start)) s"
done
step "bench N = 4096"
start=$(date +%s)
"$B/grader/grader" --bench --root "$root" --n 4096 --device nvidia --out "$out/bench" >"$out/bench.txt" 2>&1
step "  exit $?, $(($(date +%s) - start)) s"
ls "$B"/grade-cache/anchor-* >/dev/null 2>&1 && cp "$B"/grade-cache/anchor-* "$out/"
step "done"
# one file back (the device returns few files)
tar -C "$out" -czf "$out.tar.gz" . && rm -rf "$out"
