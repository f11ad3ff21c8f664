#!/bin/sh
# tests/suite/host_programs.sh - the host programs: solutions verify, skeletons say "not
# implemented yet", no platform gets one line.
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# host programs: solutions verify at odd sizes, the committed skeletons say "not implemented yet"
# and exit 1
host_programs() {
    ok=0
    skipped=""
    for d in solutions/[0-9][0-9]_*; do
        name=$(basename "$d")
        [ -f "$d/kernel.cl" ] || continue # 06's CUDA twin: graded through the CUDA driver
        # sizes each step takes: 05 multiples of 16, 07 and 08 of 32, 09 and 10 of 64; 11 any
        # M x N x K
        case $name in 05_*) n=48 ;; 00_*) n=1001 ;; 07_* | 08_*) n=96 ;; 09_* | 10_*) n=128 ;;
        11_* | 13_*) n="33 --m 97 --k 65" ;; 12_*) n=256 ;; *) n=97 ;; esac
        # a device without what the program needs (12: sub-groups): one line says so, exit 0
        lacks="^skipped: .* has no sub-groups (cl_khr_subgroups)\$"
        # shellcheck disable=SC2086 # (n may carry --m and --k)
        out=$("$d/$name" --n $n --seed $$ --repeats 2 2>&1)
        status=$?
        if [ $status -eq 0 ] && echo "$out" | grep -q "$lacks"; then
            skipped="$skipped $name"
        else
            echo "$out" | grep -q "verification: PASS" && echo "$out" | grep -q "GFLOP/s" ||
                { echo "$name --n $n did not verify:"; echo "$out"; ok=1; }
        fi
        # the committed skeleton, held to -Werror as our own code is (ROOT: this workbook)
        mkdir -p "$tmp/programs" && cp -R "$SKELETONS/$name" "$tmp/programs/" &&
            make -s -C "$tmp/programs/$name" ROOT="$root" CFLAGS="${STRICT:--Werror}" \
                >"$tmp/programs/$name.txt" 2>&1 ||
            { echo "skeleton $name does not build:"; cat "$tmp/programs/$name.txt"; ok=1; continue; }
        # shellcheck disable=SC2086
        out=$("$tmp/programs/$name/$name" --n $n 2>&1)
        status=$?
        case " $skipped " in
        *" $name "*) [ $status -eq 0 ] && echo "$out" | grep -q "$lacks" ;;
        *) [ $status -eq 1 ] && echo "$out" | grep -q "not implemented yet" ;;
        esac || { echo "skeleton $name: exit $status, output: $out"; ok=1; }
    done
    [ -z "$skipped" ] || echo "skipped where the device lacks what they need:$skipped"
    # no OpenCL platform at all: one line that says what to install, not an error number
    mkdir -p "$tmp/no-icd"
    out=$(OCL_ICD_VENDORS=$tmp/no-icd solutions/01_per_element/01_per_element --n 16 2>&1)
    status=$?
    [ $status -ne 0 ] && echo "$out" | grep -q "no OpenCL platform found: install" &&
        [ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "without a platform: exit $status: $out"; ok=1; }
    return $ok
}

host_programs
