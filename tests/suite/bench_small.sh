#!/bin/sh
# tests/suite/bench_small.sh - make bench at a small N, its table, CSV and plots well formed
# (into SUITE_DIR/bench, for the plots' and the slides' steps).
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# make bench at a small N: the whole table, the CSV and the plots, well formed; no timing asserted
bench_small() {
    out=$tmp/bench
    "$grader" --bench --n 64 --tuning "$TUNING" --out "$out" >"$tmp/bench.txt" 2>&1
    status=$?
    tail -n 30 "$tmp/bench.txt"
    [ $status -eq 0 ] || { echo "bench exit $status"; return 1; }
    ok=0
    for row in "Sequential C (not OpenCL)" "C(i,j) per work-item, all global" \
        "C row per work-item, all global" "C row per work-item, A row private" \
        "C row per work-item, A private, B local" "using local, 8x8" "using local, 16x16" \
        "using local, 32x32" "using local, 64x64" "OpenBLAS sgemm" "CLBlast SGEMM"; do
        # a measured cell: a number with its percentage of the measured peak
        grep -F "$row" "$out/bench.md" | grep -Eq '\| [0-9]+\.[0-9]+ \([0-9.]+%\) \|' ||
            { echo "bench.md: no measured figure for '$row'"; ok=1; }
    done
    grep -q "cuBLAS SGEMM.*n/a" "$out/bench.md" || { echo "bench.md: cuBLAS row not n/a"; ok=1; }
    grep -Eq '^\| FP32 peak \(measured\) \| [0-9]+\.[0-9] \|' "$out/bench.md" || { echo "no peak"; ok=1; }
    grep -Eq '^\| Memory bandwidth.* \| [0-9]+\.[0-9] \|' "$out/bench.md" || { echo "no bandwidth"; ok=1; }
    # memory traffic of the lecture's argument: 01 reads 2 floats per multiply-add, 05 (16x16) 1/8
    grep -F "C(i,j) per work-item" "$out/bench.md" | grep -q "| 2.000 / " || { echo "01 traffic"; ok=1; }
    grep -F "using local, 16x16" "$out/bench.md" | grep -q "| 0.125 / " || { echo "05 traffic"; ok=1; }
    # the CSV: its header, and every row with as many fields, positive figures, min <= median <= max
    [ "$(head -n 1 "$out/bench.csv")" = "kind,case,device,driver,n,options,repeats,min_s,median_s,max_s,value,unit,pct_peak,flops_per_byte,key,timed_n,tuning,step" ] ||
        { echo "bench.csv header"; ok=1; }
    # (quoted text fields may hold commas: drop them before splitting)
    sed 's/"[^"]*"/text/g' "$out/bench.csv" | awk -F, 'NR > 1 && (NF != 18 || $11 <= 0 || ($1 != "peak" && $1 != "bandwidth" &&
        ($8 > $9 || $9 > $10 || $7 < 3))) { bad++; print "bad row: " $0 }
        END { exit bad > 0 || NR < 14 }' || { echo "bench.csv rows"; ok=1; }
    for svg in bench-bars.svg bench-steps.svg bench-roofline-1.svg; do
        [ -s "$out/$svg" ] && grep -q "<svg" "$out/$svg" && tail -c 200 "$out/$svg" | grep -q "</svg>" ||
            { echo "plot $svg missing or cut"; ok=1; }
    done
    # without the vendor libraries the rows are skipped with a reason, and the run still succeeds
    BENCH_NO_VENDOR=openblas,clblast "$grader" --bench --n 32 --no-traffic --no-plots --tuning "$TUNING" \
        --out "$tmp/bench-novendor" >"$tmp/bench2.txt" 2>&1 ||
        { echo "bench without vendors failed"; cat "$tmp/bench2.txt"; ok=1; }
    # 12's traffic: not counted, and bench.md says why (oclgrind has no sub-groups)
    grep -q "^- Sub-group broadcasts.*not counted: oclgrind has no cl_khr_subgroups" "$out/bench.md" ||
        { echo "bench.md: no reason for 12's traffic"; ok=1; }
    grep -q "OpenBLAS.*disabled by BENCH_NO_VENDOR" "$tmp/bench-novendor/bench.md" &&
        grep -q "CLBlast.*disabled by BENCH_NO_VENDOR" "$tmp/bench-novendor/bench.md" ||
        { echo "skipped vendor rows give no reason"; ok=1; }
    return $ok
}

# make bench's rows of a student's own kernels (--submission, --ex; make bench in an exercise's
# folder): beside the reference's, measured where right, named wrong where wrong (the skeleton
# writes nothing), neither failing the run; the other exercises' rows left out
bench_yours() {
    sub=$tmp/bench-sub
    rm -rf "$sub" && mkdir -p "$sub" || return 1
    cp -r "$root/solutions/04_local_B" "$SKELETONS/09_register_blocking" "$sub/" || return 1
    n=$((16 * ($(od -An -N1 -tu1 /dev/urandom) % 4 + 2)))
    ok=0
    for ex in 04_local_B 09_register_blocking; do
        at=$n
        [ $ex = 04_local_B ] || at=128 # (09's tiles: a multiple of 128)
        "$grader" --bench --n $at --ex $ex --submission "$sub" --no-traffic --no-plots --no-vendor \
            --tuning "$TUNING" --out "$tmp/bench-$ex" >"$tmp/bench-$ex.txt" 2>&1 ||
            { echo "bench --submission --ex $ex: exit $?"; tail -n 20 "$tmp/bench-$ex.txt"; ok=1; }
        md=$tmp/bench-$ex/bench.md
        grep -q "^your kernels ($sub" "$tmp/bench-$ex.txt" || { echo "$ex: not said whose"; ok=1; }
        [ "$(grep -c '^| Yours: ' "$md")" = 1 ] || { echo "$ex: not one row of yours"; ok=1; }
        [ "$(grep -Ec '^\| (Yours: )?(C row per|Block oriented|More work|2-D register|Any size)' "$md")" = 2 ] ||
            { echo "$ex: other exercises' rows, or no reference row"; ok=1; }
    done
    grep -Eq '^\| Yours: C row per work-item, A private, B local \| [0-9]+\.[0-9]+ \(' \
        "$tmp/bench-04_local_B/bench.md" || { echo "04 (a solution) not measured as yours"; ok=1; }
    grep -q "^- Yours: 2-D register blocking.*wrong result" "$tmp/bench-09_register_blocking/bench.md" ||
        { echo "09's skeleton not named wrong"; ok=1; }
    # the exercise folder's make bench passes its folder and id (make -n: nothing run)
    make -n -C "$root/exercises/11_any_size" bench N=$n 2>&1 | tr -d '\\\n' |
        grep -q -- "--ex 11_any_size *--submission $root/exercises" ||
        { echo "exercises/11_any_size: make bench does not take the folder's kernel"; ok=1; }
    make -n -C "$root" bench N=$n 2>&1 | tr -d '\\\n' | grep -q -- "--submission" &&
        { echo "make bench at the root takes a submission unasked"; ok=1; }
    [ $ok -eq 0 ] && echo "ok   make bench --submission: yours beside the reference at N = $n"
    return $ok
}

bench_small && bench_yours
