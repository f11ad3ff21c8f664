#!/bin/sh
# grader/batch/batch.sh - `make batch`: grade a whole class with the workbook's grader, on this
# machine (`make batch ENGINE=slurm` is slurm.sh: the same on a Slurm cluster).
#
#   make batch SUBMISSIONS=dir [OUT=dir] [JOBS=n] [EX=04_local_B] [FORCE=1] [ONLY=id,id]
#              [CONFIG=file] [SANDBOX=none] [STATUS=1]
#
# Every entry of SUBMISSIONS is one student: a folder, a .zip or a .tar.gz (.tgz), the student id
# taken from its name. Each is graded by grade_one.sh (what it takes from a submission, its
# sandbox; without bubblewrap the batch refuses to run unless given SANDBOX=none), JOBS at a time,
# and the result is published atomically, so a batch stopped half-way (even by kill -9) finishes
# the rest when run again. Every result has a stamp of what it graded (lib.sh): a run grades the
# students whose upload, config, EX or grader changed since (stale), and says how many; STATUS=1
# lists them without grading. FORCE=1 grades everyone again, ONLY=a,b those students: both mark
# the results stale first, so a run stopped half-way is finished by a plain run.
#
# Hidden seeds come from an instructor secret and the student id, so a regrade uses the same
# inputs (lib.sh: each grader reads its seed from a file it removes, and logs only a fingerprint
# of it): $GRADER_SECRET, or the file $GRADER_SECRET_FILE (default ~/.config/clmm-grader/secret,
# created with random content on first use - keep it out of the students' reach).
#
# CONFIG: the instructor's settings (exercises, sizes, points, limits; see grader/exercise/config.c).
# OUT (default results/batch): gradebook.csv, summary.md, junit.xml (class_files.sh), and
# students/<id>/ with results.json (Gradescope's format), grade.log and a status file.
set -u
who="batch"
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) die "JOBS must be a positive number" ;; esac
batch_settings
# STATUS=1: which results are current, stale or missing, without grading (beside a running batch
# too: its own queue and stamps)
if [ "${STATUS:-0}" = 1 ]; then
    queue=$out/work/.status-$$
    trap 'rm -f "$queue" "$queue.stamps"' EXIT
    batch_queue
    batch_stamps
    current=0 stale=0 new=0 failed=0
    while IFS="$(printf '\t')" read -r id entry; do
        why=$(batch_stale "$id")
        if [ ! -f "$out/students/$id/status" ]; then
            new=$((new + 1))
            echo "batch: new $id (no result yet)"
        elif [ -n "$why" ]; then
            stale=$((stale + 1))
            echo "batch: stale $id: $why"
        elif batch_wanted "$id"; then
            failed=$((failed + 1))
            echo "batch: again $id: $(head -n 1 "$out/students/$id/status")"
        else
            current=$((current + 1))
        fi
    done <"$queue"
    echo "batch: $total students in $subs: $current current, $stale stale, $new new," \
        "$failed to try again (results in $out)"
    exit 0
fi
batch_lock
batch_tuning
batch_secret
sh "$root/grader/batch/grade_one.sh" --check 9>&- || exit 2
batch_queue
batch_force
batch_stamps

# one line per finished student: graded by this run / to grade in it (one file each in
# $out/work/.done, which the workers share), students that lost points or failed, time left
progress() { # progress ID
    status=$(cat "$out/students/$1/status" 2>/dev/null)
    score=$(jq -r '"\(.score)/\(.extra_data.max_score)"' "$out/students/$1/results.json" 2>/dev/null)
    : >"$out/work/.done/$1"
    graded_now=$(ls "$out/work/.done" | wc -l)
    short=$(cat "$out"/students/*/status 2>/dev/null | grep -vc '^graded$')
    lost=$(for f in "$out"/students/*/results.json; do
        [ -s "$f" ] && jq -r 'select(.score < .extra_data.max_score) | 1' "$f" 2>/dev/null; done | wc -l)
    eta=$(( ($(date +%s) - start) * (left - graded_now) / graded_now ))
    printf 'batch: [%s/%s] %s: %s %s | %s lost points, %s not graded | about %s s left\n' \
        "$graded_now" "$left" "$1" "$status" "$score" "$lost" "$short" "$eta"
}

left=0 stale=0
while IFS="$(printf '\t')" read -r id entry; do
    if batch_wanted "$id"; then
        left=$((left + 1))
        [ -n "$(batch_stale "$id")" ] && stale=$((stale + 1))
    fi
done <"$queue"
batch_seeds "$queue"
echo "batch: $total students in $subs, $left to grade ($stale of them stale), $jobs at a time; results in $out"
start=$(date +%s)
rm -rf "$out/work/.done" && mkdir -p "$out/work/.done" || die "cannot create $out/work/.done"

# JOBS workers, each taking every JOBS-th student of the queue
worker=0
while [ $worker -lt "$jobs" ]; do
    (
        line=0
        while IFS="$(printf '\t')" read -r id entry; do
            if [ $((line % jobs)) -eq $worker ] && batch_wanted "$id"; then
                sh "$root/grader/batch/grade_one.sh" "$id" "$entry" 9>&- && progress "$id"
            fi
            line=$((line + 1))
        done <"$queue"
    ) &
    worker=$((worker + 1))
done
wait
echo "batch: graded in $(($(date +%s) - start)) s"
sh "$root/grader/batch/class_files.sh"
