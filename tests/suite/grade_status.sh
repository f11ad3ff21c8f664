#!/bin/sh
# tests/suite/grade_status.sh - make grade's exit status: 0 graded, 2 not graded.
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

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

make_grade_status
