#!/bin/sh
# tests/suite/solutions.sh - every solution gets full marks (its report and results.json stay in
# SUITE_DIR for the skeletons' step and the README's examples).
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# every solution gets full marks, and results.json says so. The one exception: the capstone's
# points against the vendor (OpenBLAS on a CPU device, CLBlast on a GPU) measure the reference
# against a library on this machine, which no solution can promise everywhere; that test must be
# there and scored (or skipped where the library is missing), and its leaderboard ratio with it
solutions_full_marks() {
    # (graded again after a pause where the machine was too busy to grade fairly, exit 3, as an
    # instructor would: this suite's other lane loads it)
    for attempt in 1 2; do
        "$grader" --submission solutions --json "$tmp/solutions.json" --work "$tmp/work-sol" \
            --tuning "$TUNING" --results "$tmp/results-sol" >"$tmp/solutions.txt" 2>&1
        status=$?
        [ $status -eq 3 ] || break
        echo "not graded: the machine too busy (attempt $attempt), graded again"
        sleep 10
    done
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
    # one ratio to the reference: the one each timing test says it scored is results.json's (which
    # the summary table, the batch's summary and report show)
    jq -e '.extra_data.ratio as $x
           | [.tests[] | (.output | capture("ratio (?<r>[0-9.]+), the median of the rounds")?) as $m
              | select($m != null) | {e: .extra_data.exercise, r: ($m.r | tonumber)}]
           | length > 0 and all(.[]; (($x[.e] // -1) - .r | fabs) <= 0.006)' "$tmp/solutions.json" >/dev/null ||
        { echo "results.json's extra_data.ratio is not the ratio each timing test says"; return 1; }
}

solutions_full_marks
