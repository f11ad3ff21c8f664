#!/bin/sh
# grader/batch/slurm.sh - `make batch ENGINE=slurm`: grade a class on a Slurm cluster, each student
# one task of a job array, with the same grading, sandbox and atomic publish as `make batch` on one
# machine (grade_one.sh), and the class files written by a job that waits for the array.
#
#   make batch ENGINE=slurm SUBMISSIONS=dir OUT=dir [PARTITION=p] [GRES=gpu:1] [JOBS=n] [EX=id]
#              [CONFIG=file] [FORCE=1]
#   make batch ENGINE=slurm OUT=dir STATUS=1 [SUBMISSIONS=dir]   (without SUBMISSIONS: the class
#                                                              of the last run on OUT)
#
# Run it on a login node. OUT and this workbook must be on a file system every node sees (the
# tasks run build/grader/grader and publish into OUT/students/): OUT under /tmp, /var/tmp, /dev/shm,
# /run or on a tmpfs is refused. The array's tasks ask for slurm.partition, slurm.gres,
# slurm.time_minutes, slurm.memory_mb and slurm.cpus of CONFIG (grader/exercise/config.c; PARTITION
# and GRES override the first two); JOBS=n lets at most n tasks run at once.
#
# Run again, it submits only the students with no published result whose task is neither pending
# nor running (after scancel, a node's failure, a task out of time, kill -9), and writes the class
# files itself once no task is left. STATUS=1 counts the students done, running, pending, failed
# (their task ended without a result, or the grader gave none) and not submitted, and names the
# failed ones.
#
# The secret behind the seeds stays on the login node: the seeds of the students submitted are
# written to OUT/private/seeds/ (mode 600; lib.sh), never into a job script or an environment
# (scontrol shows them to every user).
#
# Slurm's own record, in OUT/private/slurm/: jobs (one line per array: its job id and its list of
# students, the queue's format), the lists, and logs/ (each task's output).
set -u
# started again once with SIGINT at its default, so that the traps below take it (as batch.sh)
if [ -z "${BATCH_INT_DEFAULT:-}" ] && env --default-signal=INT true 2>/dev/null; then
    BATCH_INT_DEFAULT=1 exec env --default-signal=INT sh "$0" "$@"
fi
unset BATCH_INT_DEFAULT
who="batch"
. "$(dirname "$0")/lib.sh"
status_only=${STATUS:-0}
# STATUS=1 alone: the class the last run on OUT queued
if [ "$status_only" = 1 ] && [ -z "${SUBMISSIONS:-}" ]; then
    [ -f "${OUT:-$root/results/batch}/work/.queue" ] ||
        die "STATUS=1: no class in OUT=${OUT:-$root/results/batch} (give OUT, or SUBMISSIONS too)"
    SUBMISSIONS=$(head -n 1 "${OUT:-$root/results/batch}/work/.queue" | cut -f2)
    SUBMISSIONS=$(dirname "$SUBMISSIONS")
fi
batch_settings
slurm_dir=$out/private/slurm
jobs_file=$slurm_dir/jobs
# this run's view of the queue (a STATUS=1 may run beside a submitting run)
active_file=$slurm_dir/.active.$$
submitted_file=$slurm_dir/.submitted.$$
trap 'rm -f "$active_file" "$submitted_file"' EXIT
# SIGINT, SIGTERM or SIGHUP stops this front end with one line, its own files removed (the EXIT
# trap) and a list never handed to Slurm with them. What Slurm already took runs on: scancel
# stops it (SIGTERM to each task, whose grade_one.sh then publishes nothing, so the student keeps
# an earlier result and a run again submits it)
list=""
slurm_stop() { # slurm_stop NAME NUMBER
    [ -n "$list" ] && ! grep -qF " $list" "$jobs_file" 2>/dev/null && rm -f "$list"
    echo "batch: interrupted by SIG$1: nothing more submitted; make batch ENGINE=slurm again" \
        "resumes (squeue, scancel for what Slurm already runs)" >&2
    exit $((128 + $2))
}
slurm_traps() {
    trap 'slurm_stop INT 2' INT
    trap 'slurm_stop TERM 15' TERM
    trap 'slurm_stop HUP 1' HUP
}
slurm_traps
# While sbatch submits, a signal waits until what it says is recorded: sbatch runs with the three
# ignored, this shell notes the signal and stops after (an array submitted but not in $jobs_file
# would be submitted again by the next run, each student graded twice at once)
slurm_hold() {
    held=""
    trap 'held="INT 2"' INT
    trap 'held="TERM 15"' TERM
    trap 'held="HUP 1"' HUP
}
slurm_release() {
    slurm_traps
    # shellcheck disable=SC2086 # held is a name and a number
    [ -z "$held" ] || slurm_stop $held
}

# ---------------------------------------------------------------- a place every node sees
# A node's own disk or memory is no place for OUT (the tasks of other nodes would publish where
# nobody reads) nor for the workbook (their grader). Slurm cannot tell us which file systems are
# shared; the usual node-local ones are refused by name and by type. ONE_NODE=1: a cluster of
# this one machine (a workstation running Slurm, tests/slurm.sh), whose folders every node sees.
shared_place() { # shared_place WHAT PATH
    # the paths go into a job's command line between single quotes
    case $2 in *\'*) die "$1=$2: a path with a ' cannot be handed to Slurm" ;; esac
    [ "${ONE_NODE:-0}" = 1 ] && return 0
    case $2/ in
    /tmp/* | /var/tmp/* | /dev/shm/* | /run/*)
        die "$1=$2 is on this node only: ENGINE=slurm needs it on a file system every node sees" \
            "(a shared home, project or scratch folder)" ;;
    esac
    [ -n "${TMPDIR:-}" ] && case $2/ in "${TMPDIR%/}"/*)
        die "$1=$2 is under TMPDIR ($TMPDIR), on this node only: ENGINE=slurm needs it on a file" \
            "system every node sees" ;;
    esac
    case $(stat -f -c %T "$2" 2>/dev/null) in tmpfs | ramfs)
        die "$1=$2 is in memory (tmpfs): ENGINE=slurm needs it on a file system every node sees" ;;
    esac
}
shared_place OUT "$out"
shared_place "the workbook" "$root"
shared_place SUBMISSIONS "$subs"
probe=$out/.write-test.$$
: >"$probe" 2>/dev/null && rm -f "$probe" || die "OUT=$out is not writable"

for tool in sbatch squeue; do
    command -v $tool >/dev/null 2>&1 ||
        die "no $tool here: ENGINE=slurm runs on a Slurm cluster's login node (or make batch without it)"
done

# ---------------------------------------------------------------- what Slurm is doing
# $active_file: `JOB TASK STATE` for every task of the recorded arrays still in the queue;
# student_state: done, running, pending, failed or new (never submitted)
slurm_active() {
    mkdir -p "$slurm_dir/logs" || die "cannot create $slurm_dir"
    touch "$jobs_file"
    listed=$(squeue -h -r -u "$(id -un)" --name=clmm-grade -o '%F %K %T' 2>&1) ||
        die "squeue failed, so which students are still being graded is unknown: $listed"
    printf '%s\n' "$listed" | awk 'NR == FNR { mine[$1] = 1; next } ($1 in mine) && $2 ~ /^[0-9]+$/' \
        "$jobs_file" - >"$active_file"
    # every submitted student with the last task given to it
    while read -r job list; do
        awk -F '\t' -v job="$job" '{ print $1 "\t" job " " NR - 1 }' "$list"
    done <"$jobs_file" >"$submitted_file"
}
student_state() { # student_state ID: sets state, and task (JOB_TASK of its last task, or "")
    task=$(awk -F '\t' -v id="$1" '$1 "" == id "" { t = $2 } END { print t }' "$submitted_file")
    state=""
    [ -n "$task" ] && state=$(awk -v t="$task" '$1 " " $2 == t { print $3 }' "$active_file")
    task=$(echo "$task" | tr ' ' _)
    case $state in
    PENDING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | RESV_DEL_HOLD) state=pending ;;
    ?*) state=running ;; # RUNNING, CONFIGURING, COMPLETING, SUSPENDED...: it has a node
    *) if [ -f "$out/students/$1/results.json" ]; then state="done"
        elif [ -n "$task" ] || [ -f "$out/students/$1/status" ]; then state=failed
        else state=new; fi ;;
    esac
}
# why a student has no result, in one line
why_failed() { # why_failed ID TASK
    if [ -f "$out/students/$1/status" ]; then
        head -n 1 "$out/students/$1/status"
    else
        echo "no result: its task ended without one (cancelled, out of time or memory, killed, or" \
            "its node failed); log: $slurm_dir/logs/$2.out"
    fi
}

if [ "$status_only" = 1 ]; then
    batch_queue
    slurm_active
    done_n=0 running_n=0 pending_n=0 failed_n=0 new_n=0 failed_list=""
    while IFS="$(printf '\t')" read -r id entry; do
        student_state "$id"
        eval "${state}_n=\$((${state}_n + 1))"
        [ "$state" = failed ] && failed_list="$failed_list $id:$task"
    done <"$queue"
    echo "batch: $total students in $subs: $done_n done, $running_n running, $pending_n pending," \
        "$failed_n failed, $new_n not submitted (results in $out)"
    for f in $failed_list; do
        say "batch: failed ${f%%:*}: $(why_failed "${f%%:*}" "${f#*:}")"
    done
    [ -s "$out/gradebook.csv" ] && echo "batch: gradebook $out/gradebook.csv (of $(date -r "$out/gradebook.csv"))"
    exit 0
fi

# ---------------------------------------------------------------- submit the students left
batch_lock
batch_queue
batch_force
batch_stamps
slurm_active
# make tune's files, rewritten only while no task may be reading them
[ -s "$active_file" ] || batch_tuning
batch_secret

# the task's request: the config's slurm.* values, PARTITION and GRES from make's command line
settings=$(if [ -n "$config" ]; then "$grader" --config "$config" --slurm-settings
    else "$grader" --slurm-settings; fi) || die "cannot read the Slurm settings of the config"
setting() { printf '%s\n' "$settings" | sed -n "s/^$1=//p"; }
partition=${PARTITION:-$(setting partition)}
gres=${GRES:-$(setting gres)}
minutes=$(setting time_minutes)
for value in "$partition" "$gres"; do
    case $value in *[!A-Za-z0-9_.:,=-]*) die "PARTITION or GRES \"$value\": letters, digits, _ . : , = - only" ;; esac
done
case ${JOBS:-} in
'') throttle="" ;;
*[!0-9]* | 0) die "JOBS must be a positive number (at most JOBS tasks at once)" ;;
*) throttle=%$JOBS ;;
esac
# a student's grading stops a minute before Slurm would stop its task, so that it publishes why
limit=$((minutes * 60 - 60))
[ $limit -ge 60 ] || limit=60
[ "${STUDENT_TIMEOUT:-1800}" -le $limit ] || STUDENT_TIMEOUT=$limit
export STUDENT_TIMEOUT

list=$slurm_dir/list-$(date +%Y%m%d-%H%M%S)-$$
: >"$list"
skipped=0
while IFS="$(printf '\t')" read -r id entry; do
    student_state "$id"
    case $state in
    pending | running) skipped=$((skipped + 1)) ;;
    *) batch_wanted "$id" && printf '%s\t%s\n' "$id" "$entry" >>"$list" ;;
    esac
done <"$queue"
count=$(wc -l <"$list")
[ "$count" -le 1000 ] ||
    die "$count students to submit: more than a job array of Slurm's default MaxArraySize (1001) holds"

waits=$(awk '{ print $1 }' "$active_file" | sort -u | tr '\n' ':')
if [ "$count" -gt 0 ]; then
    batch_seeds "$list"
    set -- sbatch --parsable --job-name=clmm-grade --array="0-$((count - 1))$throttle" \
        --time="$minutes" --mem="$(setting memory_mb)" --cpus-per-task="$(setting cpus)" \
        --output="$slurm_dir/logs/%A_%a.out" --export=ALL
    [ -n "$partition" ] && set -- "$@" --partition="$partition"
    [ -n "$gres" ] && set -- "$@" --gres="$gres"
    slurm_hold
    job=$(trap '' INT TERM HUP && exec "$@" --wrap="sh '$root/grader/batch/grade_one.sh' --task '$list'" 2>&1) ||
        { rm -f "$list"; die "sbatch refused the array: $job"; }
    job=${job%%;*}
    printf '%s %s\n' "$job" "$list" >>"$jobs_file"
    slurm_release
    waits="$waits$job:"
    [ $skipped -gt 0 ] && skipped=" ($skipped still pending or running)" || skipped=""
    echo "batch: submitted job array $job: $count of $total students$skipped," \
        "${partition:-the default partition}${gres:+, $gres}, $minutes min each"
else
    rm -f "$list"
fi

if [ -n "$waits" ]; then
    # the class files once every task has ended, however it ended
    set -- sbatch --parsable --job-name=clmm-class-files --dependency="afterany:${waits%:}" \
        --time=30 --mem=1024 --output="$slurm_dir/logs/class-files-%j.out" --export=ALL
    [ -n "$partition" ] && set -- "$@" --partition="$partition"
    slurm_hold
    final=$(trap '' INT TERM HUP && exec "$@" --wrap="sh '$root/grader/batch/class_files.sh' --lock" 2>&1) ||
        die "sbatch refused the job of the class files: $final"
    slurm_release
    echo "batch: job ${final%%;*} writes the gradebook when they end (or run this again);" \
        "make batch ENGINE=slurm OUT=$out STATUS=1 says how far it is"
else
    echo "batch: every student has a result or a status; nothing left to submit"
    sh "$root/grader/batch/class_files.sh"
fi
