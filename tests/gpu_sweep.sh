#!/bin/sh
# tests/gpu_sweep.sh OUT [EX] - on a machine with an NVIDIA GPU (the workplace's device, which
# starts bare): one solution's host program run at N = 4096 with each set of tuning values of a
# list, beyond make tune's grid (make tune tries only the row's candidates), to see where a
# kernel's shape could go. Each set: 3 launches of warm-up, 20 timed by the program's own clock
# (the median), C verified by the program. The list is read from GPU_SWEEP_LIST (a file, one set
# of NAME=VALUE a line, # comments), default the capstone's (13_fastest_sgemm) below. What it
# measures goes to OUT/sweep.txt, with the device's clocks, in OUT.tar.gz. Nothing interactive;
# about 14 seconds a set on an H200 (the kernel built, the inputs made and checked on the CPU).
#   GPU_SWEEP_DEVICE (nvidia), GPU_SWEEP_N (4096): a dry run elsewhere, e.g.
#   GPU_SWEEP_DEVICE=pocl GPU_SWEEP_N=256.
set -u
out=${1:?usage: tests/gpu_sweep.sh OUT [EX]}
ex=${2:-13_fastest_sgemm}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
device=${GPU_SWEEP_DEVICE:-nvidia}
n=${GPU_SWEEP_N:-4096}
mkdir -p "$out"
. "$root/tests/gpu_setup.sh"
default_list() {
    cat <<'EOF'
# the defaults (the table's), then TSK apart
TSM=128 TSN=128 TSK=32 WPTM=8 WPTN=8 VWM=4 VWN=4
TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8 VWM=4 VWN=4
TSM=128 TSN=128 TSK=8 WPTM=8 WPTN=8 VWM=4 VWN=4
TSM=128 TSN=128 TSK=32 WPTM=8 WPTN=8 VWM=8 VWN=4
TSM=128 TSN=128 TSK=32 WPTM=8 WPTN=8 VWM=4 VWN=8
# cuBLAS's block on the H200 (256 x 128, 128 sums a work-item, k-depth 8): 16 x 8 a work-item
TSM=256 TSN=128 TSK=8 WPTM=16 WPTN=8 VWM=4 VWN=4
TSM=256 TSN=128 TSK=16 WPTM=16 WPTN=8 VWM=4 VWN=4
TSM=256 TSN=128 TSK=32 WPTM=16 WPTN=8 VWM=4 VWN=4
TSM=256 TSN=128 TSK=8 WPTM=16 WPTN=8 VWM=8 VWN=4
TSM=256 TSN=128 TSK=16 WPTM=16 WPTN=8 VWM=8 VWN=4
TSM=256 TSN=128 TSK=16 WPTM=16 WPTN=8 VWM=4 VWN=8
# the same block, 8 x 16 a work-item
TSM=256 TSN=128 TSK=8 WPTM=8 WPTN=16 VWM=4 VWN=4
TSM=256 TSN=128 TSK=16 WPTM=8 WPTN=16 VWM=4 VWN=4
# 128 x 256
TSM=128 TSN=256 TSK=8 WPTM=8 WPTN=16 VWM=4 VWN=4
TSM=128 TSN=256 TSK=16 WPTM=8 WPTN=16 VWM=4 VWN=4
TSM=128 TSN=256 TSK=16 WPTM=8 WPTN=16 VWM=4 VWN=8
# 128 x 128 at 16 x 8 a work-item (128 work-items)
TSM=128 TSN=128 TSK=16 WPTM=16 WPTN=8 VWM=4 VWN=4
TSM=128 TSN=128 TSK=32 WPTM=16 WPTN=8 VWM=4 VWN=4
TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=16 VWM=4 VWN=4
EOF
}
program=$root/solutions/$ex/$ex
[ -x "$program" ] || { step "no $program"; exit 1; }
list=$out/list.txt
if [ -n "${GPU_SWEEP_LIST:-}" ]; then cp "$GPU_SWEEP_LIST" "$list"; else default_list >"$list"; fi
step "sweep $ex at N = $n"
{
    echo "# $ex at N = $n on $(sed -n 2p "$out/gpu.txt" 2>/dev/null), $(date -u +%Y-%m-%d):"
    echo "# 3 launches of warm-up, 20 timed by the host program's clock (median), C verified"
    echo "GFLOP/s (median) | median ms | verification | values"
} >"$out/sweep.txt"
grep -v '^#' "$list" | while read -r values; do
    [ -n "$values" ] || continue
    defines=""
    for v in $values; do defines="$defines -D $v"; done
    # shellcheck disable=SC2086 # (the defines, one word each)
    said=$(cd "$(dirname "$program")" && timeout 120 "$program" --device "$device" --n "$n" \
        --repeats 20 --warmup 3 $defines 2>&1)
    gflops=$(printf '%s\n' "$said" | sed -n 's/^kernel: median \([0-9.]*\) ms.*  \([0-9.]*\) GFLOP\/s$/\2 | \1/p')
    verdict=$(printf '%s\n' "$said" | sed -n 's/^verification: \([A-Z]*\).*/\1/p')
    [ -n "$gflops" ] || gflops="- | -" verdict="$(printf '%s\n' "$said" | grep -v '^ *$' | tail -n 1 | cut -c1-80)"
    echo "$gflops | $verdict | $values" | tee -a "$out/sweep.txt"
done
[ "$device" = nvidia ] && nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >>"$out/sweep.txt" 2>&1
step "done"
tar -C "$out" -czf "$out.tar.gz" . && rm -rf "$out"
