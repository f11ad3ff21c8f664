#!/bin/sh
# tests/suite/missing_tool.sh - a check the grader cannot run costs no point.
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

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

missing_tool
