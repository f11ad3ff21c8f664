#!/bin/sh
# tests/run.sh - the whole test suite: `make test` runs it (after building everything with
# -Werror), and CI runs `make test` through .ci/run. Each step prints ok/FAIL; the exit status is
# non-zero if any step failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
grader=$root/build/grader/grader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The skeletons as committed, for every step that needs them unfilled (tests/check_skeletons.sh
# and tests/corpus.sh read $SKELETONS too): in a checkout where a student works, exercises/ holds
# the student's work. One line says where they came from.
SKELETONS=$tmp/skeletons
export SKELETONS
sh tests/skeletons.sh "$SKELETONS" || { echo "cannot export the skeletons"; exit 1; }
# No make tune file: a checkout's results/tuning/ (TUNING for make, --tuning for the grader) would
# time a tuned reference against solutions at the defaults. tests/tune.sh tests the files.
TUNING=$tmp/no-tuning
export TUNING
mkdir -p "$TUNING"
# the CPU seconds (user and system) of this shell's children so far: a step's share of the machine
# (what is left to parallel when the wall time is more than its CPU time over the cores)
# (into $cpu: `times` in a command substitution would report the subshell's children)
cpu_seconds() {
    cpu_file=$(mktemp "$tmp/cpu.XXXXXX") # (a lane's subshell has the suite's $$)
    times >"$cpu_file"
    cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
                         printf "%d", t }' "$cpu_file")
    rm -f "$cpu_file"
}
step() { # step NAME COMMAND...: run one step, remember its failure (in files: a lane runs in a
    # subshell) and its time
    step_name=$1
    shift
    echo "== $step_name"
    start=$(date +%s)
    cpu_seconds
    cpu_start=$cpu
    step_out=$(mktemp "$tmp/step.XXXXXX")
    if "$@" >"$step_out" 2>&1; then
        cat "$step_out"
        echo "-- ok: $step_name ($(($(date +%s) - start)) s)"
    else
        cat "$step_out"
        echo "-- FAIL: $step_name"
        echo "  $step_name" >>"$tmp/failed"
        # the end of a failed step's output again at the suite's end, where a log cut to its
        # head and tail still shows why
        # and what else was busy then (outside load a log cannot show otherwise)
        { echo "== why '$step_name' failed (what its checks said, then its last lines):"
          grep -E -A 2 "check failed|ERROR: AddressSanitizer|runtime error:|^FAIL " "$step_out" | head -n 30
          tail -n 30 "$step_out"
          echo "   the busiest processes when it failed:"
          ps -eo pcpu=,etimes=,user=,args= --sort=-pcpu 2>/dev/null | head -n 6 | cut -c1-160; } >>"$tmp/why"
    fi
    rm -f "$step_out"
    cpu_seconds
    echo "$(($(date +%s) - start)) $((cpu - cpu_start)) $step_name" >>"$tmp/times"
}

format_check() {
    make -s format-check SKELETONS="$SKELETONS"
}

# the unit tests (make unit: each linked with the grader's library), built with -Werror, two at a
# time on this machine's two cores (make's default is one job). They run once, in the sanitizers'
# step, built with ASan and UBSan, which see more than a plain run does (a second, plain run of
# the same tests cost make test half a minute)
jobs=$(nproc 2>/dev/null || echo 2)
unit_tests() {
    make -s -j"$jobs" unit-build
}

# every solution gets full marks, and results.json says so. The one exception: the capstone's
# points against the vendor (OpenBLAS on a CPU device, CLBlast on a GPU) measure the reference
# against a library on this machine, which no solution can promise everywhere; that test must be
# there and scored (or skipped where the library is missing), and its leaderboard ratio with it
solutions_full_marks() {
    "$grader" --submission solutions --json "$tmp/solutions.json" --work "$tmp/work-sol" \
        --tuning "$TUNING" --results "$tmp/results-sol" >"$tmp/solutions.txt" 2>&1
    status=$?
    tail -n 14 "$tmp/solutions.txt"
    vendor='.name | test("speed against (CLBlast|OpenBLAS) ")'
    # the traffic is counted for every matrix row that needs no extension oclgrind lacks (the
    # table's own list: grader --list)
    counted=$("$grader" --list | awk -F '\t' '$2 == "matrix" && $4 == "-"' | wc -l)
    jq -e "[.tests[] | select($vendor)] | length == 1 and
           all(.[]; .status == \"passed\" or (.output | test(\"x (CLBlast|OpenBLAS)'s speed\")))" \
        "$tmp/solutions.json" >/dev/null ||
        { echo "no scored test against the vendor (CLBlast or OpenBLAS)"; return 1; }
    lost_elsewhere=$(jq "[.tests[] | select(($vendor) | not) | .max_score - .score] | add" "$tmp/solutions.json")
    [ $status -eq 0 ] || { [ $status -eq 1 ] && [ "$lost_elsewhere" = 0 ]; } ||
        { cat "$tmp/solutions.txt"; echo "grader exit $status, expected 0 (or 1 for the capstone against the vendor)"; return 1; }
    grep -A 8 -E "^  [a-zA-Z]* *[0-9]*/[0-9]*  speed against (CLBlast|OpenBLAS)" "$tmp/solutions.txt"
    jq -e '.score > 0 and
           all(.tests[] | select(.name | test("speed against (CLBlast|OpenBLAS) ") | not);
               .status == "passed" and .score == .max_score) and
           ([.leaderboard[] | select(.name | endswith(" GFLOP/s"))] | length) ==
             ([.tests[] | select(.name | test("performance"))] | length) and
           ([.leaderboard[] | select(.name | test(" x (CLBlast|OpenBLAS)$"))] | length) ==
             ([.tests[] | select(.name | test("speed against (CLBlast|OpenBLAS) ")) | select(.max_score > 0)] | length) and
           ([.tests[] | select(.output | test("memory traffic per multiply-add"))] | length) == $traffic' \
        --argjson traffic "$counted" "$tmp/solutions.json" >/dev/null ||
        { echo "results.json is not full marks (or not $counted traffic counts)"; return 1; }
}

# the skeletons as given: zero everywhere, "not implemented yet" for each, no grader failure
skeletons_zero() {
    "$grader" --submission "$SKELETONS" --json "$tmp/skeletons.json" --work "$tmp/work-sk" \
        --tuning "$TUNING" --results "$tmp/results-sk" >"$tmp/skeletons.txt" 2>&1
    status=$?
    tail -n 12 "$tmp/skeletons.txt"
    [ $status -eq 1 ] || { cat "$tmp/skeletons.txt"; echo "grader exit $status, expected 1"; return 1; }
    jq -e '.score == 0 and (.tests | length) > 0' "$tmp/skeletons.json" >/dev/null ||
        { echo "skeletons scored points"; return 1; }
    # (less those the device cannot run: 12 needs sub-groups, which POCL 3.1 lacks)
    # the table is the one list of exercises: the folders of solutions/ and exercises/ are its rows
    table=$("$grader" --list | cut -f 1 | sort | tr '\n' ' ')
    for d in solutions "$SKELETONS"; do
        [ "$(ls "$d" | grep -E '^[0-9][0-9]_' | sort | tr '\n' ' ')" = "$table" ] ||
            { echo "$d's exercise folders are not the table's rows ($table)"; return 1; }
    done
    exercises=$(($("$grader" --list | wc -l) -
        $(grep -c "which this exercise needs, so its" "$tmp/skeletons.txt")))
    said=$(grep -c "^   not implemented yet: fill in the TODO(student) parts of" "$tmp/skeletons.txt")
    [ "$said" -eq "$exercises" ] || { echo "'not implemented yet' said $said times for $exercises exercises"; return 1; }
    # the same maximum as the solutions', exercise by exercise (graded on this machine, with the
    # same flags): what a kernel does never moves it. The one thing that may, the machine: where
    # every launch of the capstone's vendor was starved ("too busy to time"), its points leave
    # that grading's maximum; they count back in here, so that nothing else can hide behind it
    busy='[.tests[] | select(.extra_data.verdict == "skipped" and (.name | test("speed against")) and
            (.output | startswith("skipped: the machine was too busy to time")))
          | {key: .extra_data.exercise, value: .extra_data.left_out}]
          | group_by(.key) | map({key: .[0].key, value: (map(.value) | add)}) | from_entries'
    maxima="($busy) as \$busy | .extra_data.exercises | with_entries((\$busy[.key] // 0) as \$b |
            .value |= {max_score: (.max_score + \$b), left_out: (.left_out - \$b), points})"
    sol=$(jq -cS "$maxima" "$tmp/solutions.json" 2>/dev/null)
    sk=$(jq -cS "$maxima" "$tmp/skeletons.json" 2>/dev/null)
    [ -n "$sol" ] && [ "$sol" = "$sk" ] ||
        { echo "the skeletons' maxima differ from the solutions':"; echo "  solutions $sol"; echo "  skeletons $sk"; return 1; }
    jq -e '.extra_data.exercises | all(.max_score + .left_out == .points)' "$tmp/skeletons.json" >/dev/null ||
        { echo "a maximum and its points left out are not the exercise's points"; return 1; }
}

# what a student sees in a fresh exercise folder (the committed skeleton; ROOT: where this
# workbook is): `make grade` there grades that exercise only, and exits 0 having lost points
make_grade_in_folder() {
    make -s -C "$SKELETONS/04_local_B" ROOT="$root" RESULTS="$tmp/results-one" grade \
        >"$tmp/one.txt" 2>&1
    status=$?
    cat "$tmp/one.txt" | tail -n 5
    [ $status -eq 0 ] || { echo "make grade exit $status, expected 0 (graded, points lost)"; return 1; }
    grep -q "04_local_B" "$tmp/one.txt" && ! grep -q "^== 03" "$tmp/one.txt" &&
        grep -q "not implemented yet" "$tmp/one.txt" &&
        jq -e '.score == 0 and .extra_data.max_score > 0' "$tmp/results-one/grade.json" >/dev/null ||
        return 1
    # nothing written: the hint says it all, no picture
    ! ls "$tmp/results-one"/04_local_B-C-*.svg >/dev/null 2>&1 ||
        { echo "a picture of the skeleton's C, which holds nothing"; return 1; }
    c_pictures
}

# a wrong C at each failing size is drawn (results/ID-C-SIZE.svg) and named in the report: 01 with
# C transposed (tests/planted/transposed_index), a few seconds without the timed and oclgrind runs
c_pictures() {
    w=$tmp/wrong-01
    mkdir -p "$w" && cp -r solutions/01_per_element "$w/" &&
        cp tests/planted/transposed_index/kernel.cl "$w/01_per_element/" || return 1
    "$grader" --submission "$w" --ex 01_per_element --no-perf --no-memcheck --tuning "$TUNING" \
        --work "$w/work" --results "$w/results" >"$w/report.txt" 2>&1
    failed_sizes=$(grep -c "^  FAIL 0/[0-9]*  correct at N=" "$w/report.txt")
    named=$(grep -c "^ *picture: $w/results/01_per_element-C-[0-9]*\.svg$" "$w/report.txt")
    [ "$failed_sizes" -gt 0 ] && [ "$named" -eq "$failed_sizes" ] ||
        { cat "$w/report.txt"; echo "$named pictures named for $failed_sizes wrong sizes"; return 1; }
    for f in $(sed -n 's/^ *picture: //p' "$w/report.txt"); do
        if command -v xmllint >/dev/null; then
            xmllint --noout "$f" || { echo "$f: not well-formed"; return 1; }
        else
            grep -q "<svg " "$f" && tail -n 1 "$f" | grep -q "^</svg>$" ||
                { echo "$f: not an SVG"; return 1; }
        fi
        grep -q 'class="w"' "$f" || { echo "$f: no wrong cell drawn"; return 1; }
    done
    echo "ok   $named pictures of 01's transposed C: $(ls "$w/results"/*.svg | xargs -n1 basename | tr '\n' ' ')"
}

# make grade's exit status (README: 0 graded, with full marks or not; 2 not graded, and no
# grade.json left from before): full marks in a folder (06's solution: the quiz, no timing),
# points lost (make_grade_in_folder above), an exercise that does not exist, a missing folder, no
# such device (in a folder)
make_grade_status() {
    ok=0
    r=$tmp/results-status
    mkdir -p "$r"
    make -s -C solutions/06_cuda_memory_model RESULTS="$r" grade >"$tmp/status-full.txt" 2>&1
    status=$?
    [ $status -eq 0 ] && jq -e '.score == .extra_data.max_score and .score > 0' "$r/grade.json" >/dev/null ||
        { tail -n 5 "$tmp/status-full.txt"; echo "full marks: make grade exit $status, expected 0"; ok=1; }
    for args in "EX=99_none" "SUBMISSION=$tmp/no-such-folder"; do
        echo '{"score": 1}' >"$r/grade.json"
        # shellcheck disable=SC2086 # (one NAME=value)
        make -s grade RESULTS="$r" $args >"$tmp/status-none.txt" 2>&1
        status=$?
        [ $status -eq 2 ] && [ ! -e "$r/grade.json" ] && grep -q "^make grade: no grade given" "$tmp/status-none.txt" ||
            { tail -n 5 "$tmp/status-none.txt"; echo "$args: make grade exit $status, expected 2 and no grade.json"; ok=1; }
    done
    DEVICE=no-such-device make -s -C solutions/06_cuda_memory_model RESULTS="$r" grade \
        >"$tmp/status-none.txt" 2>&1
    status=$?
    [ $status -eq 2 ] && [ ! -e "$r/grade.json" ] ||
        { tail -n 5 "$tmp/status-none.txt"; echo "in a folder, no such device: make grade exit $status, expected 2"; ok=1; }
    return $ok
}

# README.md's examples (tests/readme_examples.sh) are what the grader prints now, timings aside:
# from the runs above, not graded again
readme_examples() {
    sh tests/readme_examples.sh check "$tmp/solutions.txt" "$tmp/skeletons.txt" \
        "$tmp/results-sk/04_local_B.log"
}

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

# The grader and the unit tests built with AddressSanitizer and UBSan (make asan): the unit tests
# (their one run), and the planted submissions (tests/planted.sh fails any that shows a sanitizer
# report). The sanitizers' shadow memory needs the jail's RLIMIT_DATA raised (memory_mb).
# A representative subset of the planted set by default (a build error, a crashing and an escaping
# host program, wrong and out-of-bounds kernels, oclgrind's race check, the timed runs, sizes of
# M x N x K), for time. (10's entries, which load the grader's tiles plugin, are left out: their
# memory check runs the ASan harness under oclgrind at N = 128, where ASan's allocator serves
# oclgrind's shadow memory and the run passes planted.sh's time limit; the plugin is C++ inside
# oclgrind, and the grader's reading of it is test_grader's, under ASan here.)
# ASAN_PLANTED=all runs every one, ASAN_PLANTED="NAME..." those.
asan_planted="does_not_compile host_crashes host_escapes transposed_index past_end_of_C
    missing_barrier host_local_too_small perf_cache_cheat edge_loads_skipped"
sanitizers() { # the ASan build and the planted subset under it (the unit tests: sanitized_units)
    make -s -j"$jobs" asan || return 1
    printf 'memory_mb = 67108864 # 64 TiB: ASan reserves about 20 TiB of address space\n' \
        >"$tmp/asan.conf"
    names=${ASAN_PLANTED:-$asan_planted}
    [ "$names" = all ] && names=""
    # shellcheck disable=SC2086 # (a list of names)
    GRADER=$root/build/asan/grader/grader GRADER_CONFIG=$tmp/asan.conf sh tests/planted.sh $names
}

# the unit tests' one run, built with ASan and UBSan (by sanitizers). Those named in quiet_units
# judge a run beside nothing else (a busy machine's verdict is another: the spinners' timeout, a
# limit's seconds, the fairness of two groups' CPU): they run before the lanes, on a quiet
# machine; the others in the second lane. sanitized_units quiet|others
quiet_units="test_jail test_cgroup test_grader"
sanitized_units() {
    ok=0
    for bin in build/asan/unit/test_*; do
        case $bin in *.d) continue ;; esac # (the compiler's dependency files)
        name=$(basename "$bin")
        case " $quiet_units " in
        *" $name "*) [ "$1" = quiet ] || continue ;;
        *) [ "$1" = others ] || continue ;;
        esac
        # (a failure's own lines first: a test run twice, in two groups, has the first's far above
        # the tail)
        "$bin" >"$tmp/asan-$name.txt" 2>&1 ||
            { grep -E -B 3 -A 3 "check failed|^\[  (FAILED|ERROR) +\] [a-z]" "$tmp/asan-$name.txt" | head -n 40
              tail -n 40 "$tmp/asan-$name.txt"; ok=1; }
        if grep -qE "ERROR: AddressSanitizer|runtime error:" "$tmp/asan-$name.txt"; then
            grep -E -A 30 "ERROR: AddressSanitizer|runtime error:" "$tmp/asan-$name.txt" | head -n 60
            ok=1
        fi
        grep -E "^\[  (PASSED|FAILED)" "$tmp/asan-$name.txt" | sed "s/^/$name: /"
    done
    return $ok
}

# a check the grader cannot run is not the student's failure: without oclgrind it stops (exit 2,
# one line naming what to install); --no-memcheck leaves those points out of the maximum
missing_tool() {
    mkdir -p "$tmp/no-tools"
    out=$(PATH=$tmp/no-tools "$grader" --submission solutions --ex 00 --work "$tmp/work-nt" \
        --results "$tmp/results-nt" 2>&1)
    status=$?
    [ $status -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q "apt-get install oclgrind" ||
        { echo "without oclgrind: exit $status: $out"; return 1; }
    "$grader" --submission solutions --ex 02 --no-memcheck --no-perf --json "$tmp/nm.json" \
        --work "$tmp/work-nm" --results "$tmp/results-nm" >"$tmp/nm.txt" 2>&1 ||
        { cat "$tmp/nm.txt"; echo "--no-memcheck: the solution lost points"; return 1; }
    jq -e '.score == .extra_data.max_score and .extra_data.max_score == ([.tests[].max_score] | add) and
           ([.tests[] | select(.name | test("memory check|performance")) | select(.max_score == 0 and
             (.output | startswith("skipped")))] | length) == 2' "$tmp/nm.json" >/dev/null ||
        { echo "--no-memcheck: the memory check and timing are not left out of the maximum"; return 1; }
}

# make batch with JOBS > 1: two students' timings never overlap on one device. Each timed
# comparison takes a lock of the cache folder (one per device, mode 600). With it held from
# outside, an untimed grading finishes, and a timed one waits on it (the kernel's /proc/locks shows
# the grader blocked), then times once it is free, keeping its point
timing_lock() {
    cache=$tmp/lock-cache
    mkdir -p "$cache"
    lk() { "$grader" --submission solutions --ex 01 --no-memcheck --cache "$cache" \
        --tuning "$TUNING" --work "$tmp/work-lk" --results "$tmp/results-lk" "$@"; }
    lk >/dev/null 2>&1
    lock=$(ls "$cache"/timing-*.lock 2>/dev/null)
    [ -f "$lock" ] && [ "$(stat -c %a "$lock")" = 600 ] ||
        { echo "no timing lock of mode 600 in the cache folder: '$lock'"; return 1; }
    rm -f "$tmp/release"
    flock "$lock" sh -c 'while [ ! -e "$1" ]; do sleep 0.1; done' _ "$tmp/release" &
    holder=$!
    ok=0
    timeout 120 sh -c "$(printf '%s ' "$grader" --submission solutions --ex 01 --no-memcheck \
        --no-perf --cache "$cache" --tuning "$TUNING" --work "$tmp/work-lk" --results "$tmp/results-lk")" \
        >"$tmp/lock-np.txt" 2>&1 || { echo "--no-perf did not finish beside the held lock"; ok=1; }
    lk >"$tmp/lock.txt" 2>&1 &
    timed=$!
    blocked=0
    for _ in $(seq 1 600); do
        # a waiter is listed as "N: -> FLOCK ADVISORY WRITE PID ..."
        pids=$(awk '$2 == "->" && $3 == "FLOCK" { print $6 }' /proc/locks)
        for p in $pids; do
            # (this step's own grader: another test's may wait on its own lock meanwhile)
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = grader ] &&
                { [ "$p" = "$timed" ] || [ "$(cut -d' ' -f4 "/proc/$p/stat" 2>/dev/null)" = "$timed" ]; } &&
                blocked=1
        done
        [ $blocked -eq 1 ] && break
        kill -0 "$timed" 2>/dev/null || break
        sleep 0.2
    done
    touch "$tmp/release"
    wait "$holder"
    wait "$timed"
    status=$?
    [ $blocked -eq 1 ] || { echo "the timed grading never waited on the held lock"; ok=1; }
    [ $status -eq 0 ] && grep -q "^  ok   1/1  performance" "$tmp/lock.txt" ||
        { tail -n 20 "$tmp/lock.txt"; echo "after the wait, the timing lost its point"; ok=1; }
    return $ok
}

started=$(date +%s)
: >"$tmp/failed"
: >"$tmp/why"
: >"$tmp/times"
step "format (clang-format)" format_check
step "unit tests (cmocka) build with -Werror (run with ASan below)" unit_tests
step "grader/ in layers: no include cycle, none up a layer" sh tests/layers.sh
step "exercises differ from solutions only in TODO(student) blocks" sh tests/check_skeletons.sh
step "the READMEs: links, make targets, tuning defaults (tests/docs.sh)" sh tests/docs.sh
step "the batch's output checker finds each planted fault (tests/outputs.sh --self-test)" \
    sh tests/outputs.sh --self-test
step "host programs" host_programs
step "ASan and UBSan: the unit tests that judge a quiet machine ($quiet_units), alone" \
    sanitized_units quiet

# Two lanes side by side: a grading waits on its children much of the time, and one lane alone
# kept about one of this machine's two cores busy. The timed comparisons in the first lane are
# made beside the second's load, as they are beside any outside load (the grader measures a
# starved round again: make test-speed shows it). The lanes are balanced to end together (about
# 10 minutes each on the 2-core VM). The second lane's output is printed when both are done.
lane_sanitizers_and_tools() {
    step "ASan and UBSan: the build, and planted bugs under it" sanitizers
    step "ASan and UBSan: the other unit tests" sanitized_units others
    step "make bench at a small N" bench_small
    step "the plots fit their canvas, no text over another (headless Chromium)" \
        sh tests/plots.sh "$tmp/bench" slides/results/*/
    step "make slides: every deck rendered, tables filled" sh tests/slides.sh "$tmp/bench"
    step "report.html of a small class, in headless Chromium" sh tests/report.sh
    # (the hostile class, tests/corpus.sh, is make test-hostile, and make gradescope's zip graded
    # in a fresh /autograder is make test-gradescope: CI runs both after this suite)
    step "planted bugs lose the right points (those that time nothing, two at a time)" \
        env PLANTED_PART=untimed sh tests/planted.sh
}
echo "(ASan, make bench, the plots, the slides, report.html and the untimed planted set run beside"
echo " these steps; their output follows them)"
lane_sanitizers_and_tools >"$tmp/lane2.txt" 2>&1 &
lane2=$!
step "grading the solutions: full marks" solutions_full_marks
step "planted bugs lose the right points (those that time something, one at a time)" \
    env PLANTED_PART=timed sh tests/planted.sh
step "grading the skeletons: zero, no crash, the solutions' maxima" skeletons_zero
step "a right and a wrong kernel have one maximum (04 with checks switched off)" sh tests/maxima.sh
step "a check that cannot run costs no point" missing_tool
step "timings on one device take turns (a lock per device)" timing_lock
step "a batch's summary: the fastest kernels by their ratio to the reference, against the vendor too" sh tests/summary.sh
step "make grade inside an exercise folder; a wrong C drawn as a picture" make_grade_in_folder
step "make grade's exit status: 0 graded, 2 not graded" make_grade_status
step "README.md's examples are what the grader prints" readme_examples
wait "$lane2"
cat "$tmp/lane2.txt"

echo "== each step's time and CPU time, slowest first (the two lanes overlapped; $(($(date +%s) - started)) s in all)"
sort -rn "$tmp/times" | awk '{ s = $1; c = $2; $1 = $2 = ""; sub(/^ +/, ""); printf "%5d s %5d s CPU  %s\n", s, c, $0 }'
if [ -s "$tmp/failed" ]; then
    cat "$tmp/why"
    printf 'FAILED:\n'
    cat "$tmp/failed"
    exit 1
fi
echo "all tests passed"
