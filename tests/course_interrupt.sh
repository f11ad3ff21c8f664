#!/bin/sh
# tests/course_interrupt.sh - a batch stopped by a signal (issue 31): SIGINT to the whole process
# group, then SIGTERM to one grade_one.sh alone, each during a FORCE=1 run. Either stops the whole
# batch at once, saying so; the student in flight keeps its earlier result, byte for byte, with no
# "error" of a grader killed; nothing of the batch is left running; and a plain run then grades
# what was left. No published file names the work folders, which are gone.
# The small class of tests/course.sh (three solutions of 04_local_B, short settings): about a
# minute on two cores. tests/course.sh runs it.
. "$(dirname "$0")/course_setup.sh"
ids="ada bob cy"
for id in $ids; do
    mkdir -p "$class/$id/$ex"
    cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$class/$id/$ex/"
done
settings() { printf '%s ' env SUBMISSIONS="$class" OUT="$out" CONFIG="$conf" JOBS=1 GRADER_SECRET=x SANDBOX=none "$@"; }
batch() { # one plain make batch run over the class, in the foreground
    $(settings) sh "$root/grader/batch/batch.sh"
}

# ---------------------------------------------------------------- 1. the class
batch >"$tmp/run1.txt" 2>&1
check "the first run grades the class" [ $? -eq 0 ]

# none of this test's graders or grade_one.sh left (pgrep leaves itself out)
nothing_left() { ! pgrep -f -- "$out/work" >/dev/null && ! pgrep -f -- "grade_one.sh .*$class" >/dev/null; }

# a FORCE=1 run, started in a session of its own (a background job of this script: SIGINT ignored
# where it starts), stopped once a grader runs: stop_batch NAME HOW (group: SIGINT to the process
# group; one: SIGTERM to the grade_one.sh alone). Sets inflight (the student being graded) and rc
stop_batch() {
    rm -rf "$tmp/before" && cp -a "$out/students" "$tmp/before"
    setsid sh -c "$(settings FORCE=1) sh '$root/grader/batch/batch.sh'" >"$tmp/$1.txt" 2>&1 &
    leader=$!
    inflight=""
    for _ in $(seq 1 300); do
        for id in $ids; do
            pgrep -f -- "--submission $out/work/students/$id/sub" >/dev/null && inflight=$id
        done
        [ -n "$inflight" ] && break
        sleep 0.1
    done
    sleep 1 # well into its grading
    case $2 in
    group) kill -INT -"$leader" ;;
    one) kill -TERM "$(pgrep -f -- "grade_one.sh $inflight ")" ;;
    esac
    stopped_at=$(date +%s)
    while kill -0 "$leader" 2>/dev/null && [ $(($(date +%s) - stopped_at)) -lt 20 ]; do sleep 0.1; done
    took=$(($(date +%s) - stopped_at))
    wait "$leader"
    rc=$?
    leader=""
}
# the published folder of ID as it was before the run (FORCE=1 trades its stamp for `forced`)
kept() { # kept ID
    diff -r -x stamp -x forced "$tmp/before/$1" "$out/students/$1" >"$tmp/kept.diff" 2>&1 &&
        [ -f "$out/students/$1/forced" ] && [ ! -f "$out/students/$1/stamp" ]
}
no_error() { ! grep -l -e 'status 130' -e 'status 143' -e '^error' "$out"/students/*/status 2>/dev/null | grep -q .; }

for how in group one; do
    case $how in
    group) said="SIGINT to the process group" ;;
    one) said="SIGTERM to one grade_one.sh" ;;
    esac
    stop_batch "$how" "$how"
    check "$said: a grader was running (for ${inflight:-nobody})" [ -n "$inflight" ]
    check "$said: the batch ends in $took s, not 0 ($rc)" [ "$rc" -ne 0 ] && [ "$took" -le 10 ]
    check "$said: it says it was interrupted and make batch again resumes" \
        grep -q '^batch: interrupted (.*make batch again resumes' "$tmp/$how.txt"
    check "$said: no status is an error" no_error
    check "$said: $inflight's result is byte for byte as before, stale" kept "${inflight:-none}"
    check "$said: no student after it started" [ "$(grep -c '^batch: \[' "$tmp/$how.txt")" -eq 0 ]
    check "$said: nothing of the batch left running" nothing_left
done

# ---------------------------------------------------------------- 2. a plain run resumes
batch >"$tmp/run2.txt" 2>&1
check "a plain run grades what was stopped: 3 to grade (3 of them stale)" \
    grep -q ', 3 to grade (3 of them stale)' "$tmp/run2.txt"
full=$(for id in $ids; do jq -r 'select(.score == .extra_data.max_score and .score > 0) | 1' \
    "$out/students/$id/results.json" 2>/dev/null; done | wc -l)
check "then every student graded, full marks ($full of 3)" [ "$full" -eq 3 ]
check "and every status graded, every stamp there" \
    sh -c "for id in $ids; do [ \"\$(cat '$out'/students/\$id/status)\" = graded ] && [ -f '$out'/students/\$id/stamp ] || exit 1; done"

# ---------------------------------------------------------------- 3. no path into the work folders
check "no published file names $out/work/" sh -c "! grep -rlF '$out/work/' '$out/students' '$out/gradebook.csv' \
    '$out/junit.xml' '$out/report.html' '$out/summary.md'"
check "the graded files are published beside their result (files/)" \
    cmp -s "$class/ada/$ex/kernel.cl" "$out/students/ada/files/$ex/kernel.cl"
check "grade.log names them there" grep -qF "$out/students/ada/files" "$out/students/ada/grade.log"
check "results.json still JSON" sh -c "jq -e .score '$out/students/ada/results.json' >/dev/null"

if [ $fails -gt 0 ]; then
    for f in run1 group one run2; do
        echo "---- $f"
        tail -n 15 "$tmp/$f.txt" 2>/dev/null
    done
    head -n 20 "$tmp/kept.diff" 2>/dev/null
fi
echo "course interrupt: $fails failed"
[ $fails -eq 0 ]
