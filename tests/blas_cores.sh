#!/bin/sh
# tests/blas_cores.sh OUT [N] - the CPU anchor's kernels against a second BLAS, on this machine
# (issue 36): Debian's OpenBLAS with the core it picks itself, with the core an environment set
# (OPENBLAS_CORETYPE as it was), and with the core the grader chooses from the CPU's flags
# (common/clu_cpu_core.c, read back from make bench's OpenBLAS row); BLIS (Debian's libblis4, its
# own pick and its skx build) as the second library. One line each in OUT/blas.csv
# (library,core,n,best_gflops,median_gflops,check), with the CPU and its flags in OUT/cpu.txt.
# Libraries unpacked from .deb files (no network on the device machine): BLAS_LIBS=dir adds
# dir/usr/lib/x86_64-linux-gnu and its blis-pthread/ to the search. Nothing is asserted: it
# measures. About a minute at N = 1024 on 2 cores.
set -u
out=${1:?usage: tests/blas_cores.sh OUT [N]}
n=${2:-1024}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" || exit 2
bin=$out/blas_cores
cc -O2 -std=c11 -o "$bin" "$root/tests/blas_cores.c" -ldl -lm || exit 2
libs=${BLAS_LIBS:+$BLAS_LIBS/usr/lib/x86_64-linux-gnu}
blis=
for d in ${libs:+$libs/blis-pthread} /usr/lib/x86_64-linux-gnu/blis-pthread; do
    [ -e "$d/libblis.so.4" ] && { blis=$d/libblis.so.4; break; }
done
export LD_LIBRARY_PATH=${libs:+$libs:$libs/openblas-pthread:}${LD_LIBRARY_PATH:-}
# BLIS runs one thread unless told (OpenBLAS takes every core by default)
export BLIS_NUM_THREADS=${BLIS_NUM_THREADS:-$(nproc)}
{
    grep -m 1 'model name' /proc/cpuinfo
    echo "cores: $(nproc)"
    grep -m 1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|fma|sse4_2|ssse3)' | tr '\n' ' '
    echo
    echo "OPENBLAS_CORETYPE in the environment: ${OPENBLAS_CORETYPE:-(unset)}"
} >"$out/cpu.txt"
echo "library,core,n,best_gflops,median_gflops,check" >"$out/blas.csv"
was=${OPENBLAS_CORETYPE:-}
# the grader's choice: what make bench's OpenBLAS row says it ran
"$root/build/grader/grader" --bench --n 64 --ex 04_local_B --no-traffic --no-plots \
    --out "$out/bench" >"$out/bench.txt" 2>&1
chosen=$(grep -o 'OpenBLAS [0-9.]* ([A-Za-z0-9]* kernels, from the CPU.s flags' "$out/bench/bench.csv" |
    sed 's/.*(\([A-Za-z0-9]*\) kernels.*/\1/' | head -n 1)
echo "the grader's choice from the flags: ${chosen:-none (OpenBLAS's own stands)}" >>"$out/cpu.txt"
(unset OPENBLAS_CORETYPE; "$bin" libopenblas.so.0 "$n") >>"$out/blas.csv"
[ -z "$was" ] || OPENBLAS_CORETYPE=$was "$bin" libopenblas.so.0 "$n" >>"$out/blas.csv"
[ -z "$chosen" ] || OPENBLAS_CORETYPE=$chosen "$bin" libopenblas.so.0 "$n" >>"$out/blas.csv"
if [ -n "$blis" ]; then
    "$bin" "$blis" "$n" | sed 's/,-,/,(its own pick),/' >>"$out/blas.csv"
    BLIS_ARCH_TYPE=skx "$bin" "$blis" "$n" | sed 's/,-,/,skx,/' >>"$out/blas.csv"
else
    echo "libblis.so.4 not found: apt-get install libblis4-pthread" >>"$out/cpu.txt"
fi
cat "$out/cpu.txt" "$out/blas.csv"
