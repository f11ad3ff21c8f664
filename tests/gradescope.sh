#!/bin/sh
# tests/gradescope.sh - the Gradescope recipe (grader/batch/gradescope.sh) on an /autograder-like tree:
# a clean copy of the workbook as source/, and a submission holding one exercise's solution files
# beside a Makefile and a common/ that would forge a 100% grade.json if anything ran them. The
# results.json must be the grader's own: its score the sum of its tests', its maximum theirs.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
ex=${EX:-00_vadd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ag=$tmp/autograder
mkdir -p "$ag/source" "$ag/submission/$ex" "$ag/submission/common" "$ag/results"
# the autograder's pristine copy: what git tracks, nothing built or left over here
(cd "$root" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$ag/source" || exit 1
cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$ag/submission/$ex/"
forged='{"score": 100, "tests": [{"name": "all", "score": 100, "max_score": 100}]}'
for mk in "$ag/submission/Makefile" "$ag/submission/$ex/Makefile"; do
    printf 'grade:\n\tmkdir -p results && echo %s >results/grade.json && touch %s/HOSTILE_RAN\n' \
        "'$forged'" "$tmp" >"$mk"
done
printf '#error the submission common/ was used\n' >"$ag/submission/common/clu.h"
printf '__attribute__((constructor)) static void f(void) { }\n' >"$ag/submission/common/clu_env.c"

EX=$ex sh "$ag/source/grader/batch/gradescope.sh" "$ag/submission" "$ag/results/results.json" \
    >"$tmp/run.txt" 2>&1
status=$?
json=$ag/results/results.json
fails=0
check() { # check DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@" >/dev/null; then echo "ok   gradescope: $what"; else echo "FAIL gradescope: $what"; fails=$((fails + 1)); fi
}
check "the recipe succeeds (exit $status)" [ $status -eq 0 ]
check "results.json written" test -s "$json"
check "the hostile Makefile did not run" test ! -e "$tmp/HOSTILE_RAN"
check "score is the sum of the tests' scores" \
    jq -e '(.tests | length) > 0 and .score == ([.tests[].score] | add)' "$json"
check "the maximum is the sum of the tests' maxima" \
    jq -e '.extra_data.max_score == ([.tests[].max_score] | add) and .score <= .extra_data.max_score' \
    "$json"
check "only $ex graded, by the grader (its tests, not the forged one)" \
    jq -e --arg e "$ex" 'all(.tests[]; .name | startswith($e + ": "))' "$json"
check "the host program built against the pristine common/ and passed" \
    jq -e 'any(.tests[]; (.name | test("host program")) and .status == "passed")' "$json"
[ $fails -eq 0 ] || tail -n 30 "$tmp/run.txt"
[ $fails -eq 0 ]
