#!/bin/sh
# grader/batch/batch.sh - `make batch`: grade a whole class with the workbook's grader, on this
# machine (`make batch ENGINE=slurm` is slurm.sh: the same on a Slurm cluster).
#
#   make batch SUBMISSIONS=dir [OUT=dir] [JOBS=n] [EX=04_local_B] [FORCE=1] [ONLY=id,id]
#              [CONFIG=file] [SANDBOX=none] [STATUS=1]
#
# SUBMISSIONS is a folder of downloads (or the platform's own zip of them): each student's
# entries, named by the student id or as Moodle and Canvas name their downloads, found by the
# intake (lib.sh's batch_queue). Each is graded by grade_one.sh (what it takes from a submission, its
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
# A shell cannot trap a signal that was ignored when it started, and a batch started in the
# background of a script starts with SIGINT ignored: started again once with it at its default
# (coreutils' env; without that option, a Ctrl-C still reaches each grade_one.sh, see the workers)
if [ -z "${BATCH_INT_DEFAULT:-}" ] && env --default-signal=INT true 2>/dev/null; then
    BATCH_INT_DEFAULT=1 exec env --default-signal=INT sh "$0" "$@"
fi
unset BATCH_INT_DEFAULT
who="batch"
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) die "JOBS must be a positive number" ;; esac
batch_settings
# STATUS=1: which results are current, stale or missing, without grading (beside a running batch
# too: its own queue and stamps)
if [ "${STATUS:-0}" = 1 ]; then
    queue=$out/work/.status-$$ staged=$out/work/.status-$$.staged
    trap 'rm -rf "$queue" "$queue".* "$staged"' EXIT
    batch_queue
    batch_stamps
    current=0 stale=0 new=0 failed=0
    while IFS="$(printf '\t')" read -r id entry; do
        why=$(batch_stale "$id")
        if [ ! -f "$out/students/$id/status" ]; then
            new=$((new + 1))
            say "batch: new $id (no result yet)"
        elif [ -n "$why" ]; then
            stale=$((stale + 1))
            say "batch: stale $id: $why"
        elif batch_wanted "$id"; then
            failed=$((failed + 1))
            say "batch: again $id: $(head -n 1 "$out/students/$id/status")"
        else
            current=$((current + 1))
        fi
    done <"$queue"
    # the roster's students with no upload: a row of their own in the gradebook, and here
    missing=0
    if [ -s "$queue.missing" ]; then
        # (awk: read with IFS=tab would take an empty lms's tab with the next field)
        missing=$(wc -l <"$queue.missing")
        awk -F '\t' '{ print "batch: missing " $1 ($2 != "" ? " (" $2 ")" : "") ": " substr($4, 1 + 9 * ($4 ~ /^missing: /)) }' \
            "$queue.missing" | visible
    fi
    echo "batch: $total students in $subs: $current current, $stale stale, $new new," \
        "$failed to try again, $missing on the roster with no upload taken (results in $out)"
    exit 0
fi
batch_lock
# ---------------------------------------------------------------- stopped by a signal
# SIGINT, SIGTERM or SIGHUP to any process of the batch stops all of it: the first to get one
# writes why into $stop (created once: the first reason stands) and this front end, told by a
# SIGTERM, stops every worker; each stops its grade_one.sh, which stops its grader and publishes
# nothing, so the students in flight keep their earlier results (and stamps) and the next run
# grades them. No class files then: the next run writes them
stop=$out/work/.interrupted
rm -f "$stop"
BATCH_STOP=$stop
export BATCH_STOP
workers=""
on_signal() { # on_signal NAME NUMBER
    trap '' INT TERM HUP # once: the workers' notices of the same stop change nothing
    (set -C && echo "SIG$1 to the batch" >"$stop") 2>/dev/null
    stopped $((128 + $2))
}
stopped() { # stopped CODE: stop the workers, wait for them, say why, exit with CODE
    for p in $workers; do kill -TERM "$p" 2>/dev/null; done
    wait 2>/dev/null
    say "batch: interrupted ($(head -n 1 "$stop" 2>/dev/null || echo "a signal")): nothing was" \
        "published for the students being graded (their earlier results stand); make batch again" \
        "resumes" >&2
    exit "$1"
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP
batch_tuning
batch_secret
sh "$root/grader/batch/grade_one.sh" --check 9>&- || exit 2
batch_queue
batch_force
batch_stamps

# one line per finished student: graded by this run / to grade in it (one file each in
# $out/work/.done, which the workers share), students that lost points or failed, time left
progress() { # progress ID
    status=$(head -n 1 "$out/students/$1/status" 2>/dev/null)
    score=$(jq -r '"\(.score)/\(.extra_data.max_score)"' "$out/students/$1/results.json" 2>/dev/null)
    : >"$out/work/.done/$1"
    graded_now=$(ls "$out/work/.done" | wc -l)
    short=$(cat "$out"/students/*/status 2>/dev/null | grep -vc '^graded$')
    lost=$(for f in "$out"/students/*/results.json; do
        [ -s "$f" ] && jq -r 'select(.score < .extra_data.max_score) | 1' "$f" 2>/dev/null; done | wc -l)
    eta=$(( ($(date +%s) - start) * (left - graded_now) / graded_now ))
    say "$(printf 'batch: [%s/%s] %s: %s %s | %s with points lost, %s not graded | about %s s left' \
        "$graded_now" "$left" "$1" "$status" "$score" "$lost" "$short" "$eta")"
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

# the capstone's anchor timed against the reference once, before any student's code runs, and
# kept in the class's cache folder, where every grading finds it (grader/grade/anchor.c): one
# figure for the class. Where it cannot be timed now, each grading times it itself.
if [ "$left" -gt 0 ]; then
    set --
    [ -n "$only" ] && set -- --ex "$only"
    [ -n "$config" ] && set -- "$@" --config "$config"
    "$grader" --anchor --root "$root" --cache "$out/cache" --tuning "$out/cache/tuning" "$@" \
        >"$out/work/anchor.txt" 2>&1 && sed 's/^/batch: anchor: /' "$out/work/anchor.txt"
fi

# grade_one.sh with SIGINT at its default: the workers, in the background, ignore it (and cannot
# trap it), and what they start would too
default_int=""
env --default-signal=INT true 2>/dev/null && default_int="env --default-signal=INT"
# JOBS workers, each taking every JOBS-th student of the queue, none once the batch is stopped.
# A worker stopped (SIGTERM, SIGHUP) stops its grade_one.sh; a grade_one.sh that ended by a
# signal (128 + n) was stopped: either way the worker tells this front end ($$), which stops all
worker=0
while [ $worker -lt "$jobs" ]; do
    (
        child=""
        worker_stop() { # worker_stop NAME NUMBER
            trap '' TERM HUP
            (set -C && echo "SIG$1 to a worker of the batch" >"$stop") 2>/dev/null
            [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
            kill -TERM $$ 2>/dev/null
            exit $((128 + $2))
        }
        trap 'worker_stop TERM 15' TERM
        trap 'worker_stop HUP 1' HUP
        line=0
        while IFS="$(printf '\t')" read -r id entry; do
            [ -e "$stop" ] && break
            if [ $((line % jobs)) -eq $worker ] && batch_wanted "$id"; then
                # (in the background and waited for, so that a signal here is handled at once)
                # shellcheck disable=SC2086 # default_int is a command and its words
                $default_int sh "$root/grader/batch/grade_one.sh" "$id" "$entry" 9>&- &
                child=$!
                wait "$child" 2>/dev/null # (no "Terminated" of dash: the batch says why, once)
                code=$?
                child=""
                [ $code -eq 0 ] && progress "$id"
                if [ $code -gt 128 ] || [ -e "$stop" ]; then
                    [ $code -gt 128 ] && (set -C && printf '%s\n' "signal $((code - 128)) to grade_one.sh of $id" \
                        >"$stop") 2>/dev/null
                    kill -TERM $$ 2>/dev/null
                    exit 1
                fi
            fi
            line=$((line + 1))
        done <"$queue"
    ) &
    workers="$workers $!"
    worker=$((worker + 1))
done
wait
# (a stop the traps above did not see through: a worker's notice lost)
[ -e "$stop" ] && stopped 1
echo "batch: graded in $(($(date +%s) - start)) s"
sh "$root/grader/batch/class_files.sh"
