#!/bin/sh
# tests/run.sh - the whole test suite: `make test` runs it (after building everything with
# -Werror), and CI runs `make test` through .ci/run. Each step prints ok/FAIL; the exit status is
# non-zero if any step failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the folder the steps (tests/suite/*.sh) share: one step's results are another's input
SUITE_DIR=$tmp
export SUITE_DIR
jobs=$(nproc 2>/dev/null || echo 2)
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

# the planted entries the ASan step grades: the plain build's planted steps leave them out
asan_planted=$(grep -v '^#' tests/suite/asan_planted)
started=$(date +%s)
: >"$tmp/failed"
: >"$tmp/why"
: >"$tmp/times"
step "format (clang-format)" make -s format-check SKELETONS="$SKELETONS"
step "unit tests (cmocka) build with -Werror (run with ASan below)" make -s -j"$jobs" unit-build
step "grader/ in layers: no include cycle, none up a layer" sh tests/layers.sh
step "exercises differ from solutions only in TODO(student) blocks" sh tests/check_skeletons.sh
step "the READMEs: links, make targets, tuning defaults (tests/docs.sh)" sh tests/docs.sh
step "the batch's output checker finds each planted fault (tests/outputs.sh --self-test)" \
    sh tests/outputs.sh --self-test
step "host programs" sh tests/suite/host_programs.sh
step "ASan and UBSan: the unit tests that judge a quiet machine (test_jail test_cgroup test_grader), alone" \
    sh tests/suite/sanitized_units.sh quiet

# The capstone's anchor (OpenBLAS against the reference) timed on the machine still quiet, and kept
# in the cache folder: the solutions' grading beside the other lane finds it there (a machine busy
# throughout would leave that grading unpublished, exit 3)
# (a machine busy with outside work through the whole timing: timed again, up to three times, a
# quarter of a minute apart, before the step fails; exit 3 is the grader's "too busy")
anchor_timed() {
    for try in 1 2 3; do
        "$root/build/grader/grader" --anchor --tuning "$TUNING"
        status=$?
        [ "$status" -eq 3 ] || return "$status"
        [ "$try" -lt 3 ] && { echo "(too busy to time: again in 15 s)"; sleep 15; }
    done
    return 3
}
step "the capstone's anchor timed on a quiet machine (grader --anchor)" anchor_timed

# Two lanes side by side: a grading waits on its children much of the time, and one lane alone
# kept about one of this machine's two cores busy. The timed comparisons in the first lane are
# made beside the second's load, as they are beside any outside load (the grader measures a
# starved round again: make test-speed shows it). The lanes are balanced to end together (about
# 10 minutes each on the 2-core VM). The second lane's output is printed when both are done.
lane_sanitizers_and_tools() {
    step "ASan and UBSan: the build, and planted bugs under it" sh tests/suite/sanitizers.sh
    step "ASan and UBSan: the other unit tests" sh tests/suite/sanitized_units.sh others
    step "make bench at a small N" sh tests/suite/bench_small.sh
    step "the plots fit their canvas, no text over another (headless Chromium)" \
        sh tests/plots.sh "$tmp/bench" slides/results/*/
    step "make slides: every deck rendered, tables filled" sh tests/slides.sh "$tmp/bench"
    step "report.html of a small class, in headless Chromium" sh tests/report.sh
    # (the hostile class, tests/corpus.sh, is make test-hostile, and make gradescope's zip graded
    # in a fresh /autograder is make test-gradescope: CI runs both after this suite)
    step "planted bugs lose the right points (those that time nothing, two at a time)" \
        env PLANTED_PART=untimed PLANTED_EXCEPT="$asan_planted" sh tests/planted.sh
}
echo "(ASan, make bench, the plots, the slides, report.html and the untimed planted set run beside"
echo " these steps; their output follows them)"
lane_sanitizers_and_tools >"$tmp/lane2.txt" 2>&1 &
lane2=$!
step "grading the solutions: full marks" sh tests/suite/solutions.sh
step "planted bugs lose the right points (those that time something, one at a time)" \
    env PLANTED_PART=timed PLANTED_EXCEPT="$asan_planted" sh tests/planted.sh
step "the hidden sizes in one harness (a GPU's way here): the same verdicts as runs alone" \
    env GRADER_SIZES_IN_ONE_RUN=1 PLANTED_DIR=tests/planted sh tests/planted.sh never_ending \
    only_multiple_of_16 write_past_C_at_large_N_only crashes_at_large_N_only one_argument_too_many
step "grading the skeletons: zero, no crash, the solutions' maxima" sh tests/suite/skeletons.sh
step "a right and a wrong kernel have one maximum (04 with checks switched off)" sh tests/maxima.sh
step "a check that cannot run costs no point" sh tests/suite/missing_tool.sh
step "timings on one device take turns (a lock per device)" sh tests/suite/timing_lock.sh
step "a batch's summary: the fastest kernels by their ratio to the reference, against the vendor too" sh tests/summary.sh
step "make grade inside an exercise folder; a wrong C drawn as a picture" sh tests/suite/grade_in_folder.sh
step "make grade's exit status: 0 graded, 2 not graded" sh tests/suite/grade_status.sh
step "README.md's examples are what the grader prints" \
    sh tests/readme_examples.sh check "$tmp/solutions.txt" "$tmp/skeletons.txt" "$tmp/results-sk/04_local_B.log"
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
