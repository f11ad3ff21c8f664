#!/bin/sh
# tests/suite/skeletons.sh - the skeletons grade to zero with the solutions' maxima (after
# tests/suite/solutions.sh, in the same SUITE_DIR).
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"
[ -s "$tmp/solutions.json" ] || { echo "no $tmp/solutions.json: run tests/suite/solutions.sh first (SUITE_DIR=$tmp)"; exit 1; }

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
    # same flags): neither what a kernel does nor the machine's load moves it (a grading the load
    # makes unfair is not published at all: exit 3)
    maxima='.extra_data.exercises | map_values({max_score, left_out, points})'
    sol=$(jq -cS "$maxima" "$tmp/solutions.json" 2>/dev/null)
    sk=$(jq -cS "$maxima" "$tmp/skeletons.json" 2>/dev/null)
    [ -n "$sol" ] && [ "$sol" = "$sk" ] ||
        { echo "the skeletons' maxima differ from the solutions':"; echo "  solutions $sol"; echo "  skeletons $sk"; return 1; }
    jq -e '.extra_data.exercises | all(.max_score + .left_out == .points)' "$tmp/skeletons.json" >/dev/null ||
        { echo "a maximum and its points left out are not the exercise's points"; return 1; }
}

skeletons_zero
