#!/bin/sh
# tests/handout_run.sh - the test suite of a handout (make handout makes it the handout's
# tests/run.sh, which `make test` runs): what runs without the reference solutions. The
# instructor's tests/course.sh runs it in a fresh clone of a handout.
#   - the C held to clang-format, grader/ in its layers;
#   - the unit tests that need no solution (the instructor's suite runs them under ASan and UBSan);
#   - every skeleton graded: no crash, 0 points, each exercise's maximum the table's, and the
#     points that need the reference named as the instructor's grading's.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ ! -d solutions ] || { echo "tests/handout_run.sh is a handout's suite: this workbook has solutions/ (make test runs tests/run.sh)"; exit 2; }
failed=""
step() { # step NAME COMMAND...
    name=$1
    shift
    echo "== $name"
    start=$(date +%s)
    if "$@" >"$tmp/step.txt" 2>&1; then
        cat "$tmp/step.txt"
        echo "-- ok: $name ($(($(date +%s) - start)) s)"
    else
        cat "$tmp/step.txt"
        echo "-- FAIL: $name"
        failed="$failed
  $name"
    fi
}
# the skeletons as committed: exercises/ is the student's work
SKELETONS=$tmp/skeletons
sh tests/skeletons.sh "$SKELETONS" || { echo "cannot export the skeletons"; exit 1; }

units() {
    status=0
    for bin in build/tests/test_*; do
        case $bin in *.d) continue ;; esac
        unit=$(basename "$bin")
        if ! "$bin" >"$tmp/$unit.txt" 2>&1; then
            tail -n 40 "$tmp/$unit.txt"
            status=1
        fi
        grep -E "^\[  (PASSED|FAILED)" "$tmp/$unit.txt" | sed "s/^/$unit: /"
    done
    return $status
}

# every exercise of the table graded on its skeleton (the memory check off: a skeleton's kernel
# writes nothing, so it would not run)
skeletons() {
    build/grader/grader --root "$root" --submission "$SKELETONS" --no-memcheck --results "$tmp/results" \
        --json "$tmp/grade.json" >"$tmp/grade.txt" 2>&1
    status=$?
    sed -n '/^Case /,$p' "$tmp/grade.txt"
    bad=0
    [ "$status" -eq 1 ] || { echo "FAIL the grader exited $status (1: points lost)"; bad=1; }
    jq -e '.score == 0' "$tmp/grade.json" >/dev/null || { echo "FAIL a skeleton scored"; bad=1; }
    # each exercise's maximum, with what is left out, is the table's
    build/grader/grader --list | while IFS="$(printf '\t')" read -r id _ points _; do
        got=$(jq --arg id "$id" '[.tests[] | select(.name | startswith($id + ":")) | .max_score] | add' \
            "$tmp/grade.json")
        left=$(grep -E "^  (ok|FAIL|skip) .*\(([0-9]+) points? (left out of the maximum|the instructor's grading decides)\)" \
            "$tmp/results/$id.log" | sed -E 's/.*\(([0-9]+) points? .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
        [ $((got + left)) -eq "$points" ] ||
            { echo "FAIL $id: maximum $got and $left left out, where the table says $points"; exit 1; }
    done || bad=1
    grep -q "^The instructor's grading decides [0-9]* more points" "$tmp/grade.txt" ||
        { echo "FAIL the report does not name the instructor's points"; bad=1; }
    jq -e '.extra_data.instructors > 0' "$tmp/grade.json" >/dev/null ||
        { echo "FAIL results.json has no instructors' points"; bad=1; }
    return $bad
}

step "format (clang-format)" make -s format-check SKELETONS="$SKELETONS"
step "grader/ in layers: no include cycle, none up a layer" sh tests/layers.sh
step "unit tests" units
step "grading the skeletons: zero, no crash, the table's maxima, the instructor's points named" skeletons
if [ -n "$failed" ]; then
    printf 'FAILED:%s\n' "$failed"
    exit 1
fi
echo "all tests passed"
