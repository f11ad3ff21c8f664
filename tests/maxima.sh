#!/bin/sh
# tests/maxima.sh - every student of a class has the same maximum per exercise. The same exercise
# is graded with the same seed and flags for a right kernel (its solution) and a wrong one (the
# solution with a bug planted by sed), and the two results.json must agree on each exercise's
# max_score and on the points left out (the tests the grader cannot run here); max_score +
# left_out must be the exercise's points (the table's), every test listed in both (the same
# names, the same max_score), a skipped test 0 of 0 with its points left out, no other test
# leaving any out.
#   04_local_B with --no-memcheck --no-perf: the switches leave out the same points whatever the
#   kernel, and the report adds them up
# (A right and a wrong kernel with every check on, 13's test against the vendor (OpenBLAS on a
# CPU, CLBlast on a GPU) among them, are tests/run.sh's solutions and skeletons: tests/suite/skeletons.sh
# wants the same maxima and points left out for each exercise, so this costs no grading of its
# own.)
# GRADER=path picks the grader binary (default build/grader/grader), TUNING a make tune folder.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
grader=${GRADER:-$root/build/grader/grader}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# plant EX SED NAME: the solution of EX with the sed expression applied (it must change it)
plant() {
    mkdir -p "$work/$3/$1"
    cp "$root/solutions/$1/"* "$work/$3/$1/"
    sed -i "$2" "$work/$3/$1/kernel.cl"
    cmp -s "$work/$3/$1/kernel.cl" "$root/solutions/$1/kernel.cl" &&
        { echo "FAIL maxima: the sed expression changes nothing in solutions/$1/kernel.cl"; exit 1; }
}

# grade NAME EX FLAGS...: the submission NAME's exercise EX, its results.json as NAME.json
grade() {
    name=$1 ex=$2
    shift 2
    "$grader" --root "$root" --submission "$work/$name" --ex "$ex" --seed 23 \
        --json "$work/$name.json" --work "$work/work-$name" --results "$work/results-$name" \
        ${TUNING:+--tuning "$TUNING"} "$@" >"$work/$name.txt" 2>&1
    status=$?
    [ $status -le 1 ] && [ -s "$work/$name.json" ] ||
        { cat "$work/$name.txt"; echo "FAIL maxima: grading $name exited $status"; failures=$((failures + 1)); }
}

# compare RIGHT WRONG WHAT: the two results agree on every maximum
compare() {
    # per exercise: max_score, left_out, points; per test: name and max_score (and the points a
    # skipped one leaves out), in order
    shape='[.extra_data.exercises | to_entries[] | [.key, .value.max_score, .value.left_out, .value.points]],
           [.tests[] | [.name, .max_score, .extra_data.left_out, .extra_data.verdict == "skipped"]]'
    right=$(jq -c "$shape" "$work/$1.json" 2>/dev/null)
    wrong=$(jq -c "$shape" "$work/$2.json" 2>/dev/null)
    problems=""
    max_right=$(jq .extra_data.max_score "$work/$1.json" 2>/dev/null)
    max_wrong=$(jq .extra_data.max_score "$work/$2.json" 2>/dev/null)
    [ "$max_right" = "$max_wrong" ] ||
        problems="$problems\n  maximum $max_right for the right kernel, $max_wrong for the wrong one"
    [ -n "$right" ] && [ "$right" = "$wrong" ] ||
        problems="$problems\n  the right and the wrong kernel differ:\n  right: $right\n  wrong: $wrong"
    for f in "$1" "$2"; do
        jq -e '(.extra_data.exercises | to_entries | all(.value.max_score + .value.left_out == .value.points))
               and .extra_data.max_score == ([.tests[].max_score] | add)
               and .extra_data.left_out == ([.tests[].extra_data.left_out] | add)
               and all(.tests[] | select(.extra_data.verdict == "skipped"); .max_score == 0 and .score == 0)
               and all(.tests[] | select(.extra_data.verdict != "skipped"); .extra_data.left_out == 0)' \
            "$work/$f.json" >/dev/null ||
            problems="$problems\n  $f: max_score + left_out is not the exercise's points, or a skip scores"
    done
    jq -e '.score < .extra_data.max_score' "$work/$2.json" >/dev/null ||
        problems="$problems\n  the wrong kernel lost no point: nothing was compared"
    if [ -n "$problems" ]; then
        printf 'FAIL maxima %s:%b\n' "$3" "$problems"
        failures=$((failures + 1))
    else
        echo "ok   maxima $3: $(jq -r '"\(.extra_data.max_score) (\(.extra_data.left_out) left out)"' "$work/$1.json") for both, right $(jq .score "$work/$1.json"), wrong $(jq .score "$work/$2.json")"
    fi
}

plant 04_local_B 's/for (int k = 0; k < N; k++)/for (int k = 1; k < N; k++)/' wrong04
mkdir -p "$work/right04" && cp -R "$root/solutions/04_local_B" "$work/right04/"
for s in right04 wrong04; do
    mkdir -p "$work/$s-off" && cp -R "$work/$s/04_local_B" "$work/$s-off/"
    grade "$s-off" 04_local_B --no-memcheck --no-perf
done
compare right04-off wrong04-off "04_local_B --no-memcheck --no-perf"
[ "$failures" -eq 0 ]
