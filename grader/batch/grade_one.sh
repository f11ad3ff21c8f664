#!/bin/sh
# grader/batch/grade_one.sh - grade one student of a batch and publish the result: the step both
# engines of `make batch` share (batch.sh runs it JOBS at a time, slurm.sh as the tasks of a job
# array).
#
#   sh grade_one.sh ID ENTRY      grade the student ID handed in as ENTRY (a folder, .zip, .tar.gz)
#   sh grade_one.sh --task LIST   a Slurm array task: the student on line $SLURM_ARRAY_TASK_ID + 1
#                                 of LIST (lines `ID<tab>ENTRY`, the queue's format)
#   sh grade_one.sh --check       whether the sandbox can run here: exit 2 with the reason if not
#
# Settings from the environment, as the front end (lib.sh's batch_settings) exported them: OUT,
# SUBMISSIONS, EX, FORCE, CONFIG (absolute paths), STUDENT_TIMEOUT, TIMEOUT, SANDBOX,
# BATCH_SECRET_PATH. The student's seed must be waiting in OUT/private/seeds/ID (lib.sh's
# batch_seeds): this script never sees the secret.
#
# Only the files a student may edit (each exercise's main.c and kernel.cl; answers.txt, kernel.cu
# and main.cu of 06) are taken, from NN_name/ or exercises/NN_name/ anywhere in the submission,
# into a fresh work folder; the grader, common/ and the reference solutions always come from this
# workbook. The student is graded in a sandbox (bubblewrap: no network, read-only system, its own
# work folder the only writable place, private /tmp and process ids, other students and all
# results hidden) and the result is published atomically into OUT/students/ID: a grading stopped
# half-way (even by kill -9, scancel or a node's failure) leaves nothing there, and is done again
# by the next run.
set -u
who="batch"
. "$(dirname "$0")/lib.sh"
out=${OUT:?grade_one.sh: OUT is not set (run make batch)}
subs=${SUBMISSIONS:?grade_one.sh: SUBMISSIONS is not set (run make batch)}
only=${EX:-}
force=${FORCE:-0}
config=${CONFIG:-}
student_limit=${STUDENT_TIMEOUT:-1800} # seconds for one student's whole grading
run_limit=${TIMEOUT:-}                 # seconds for each run of a student's kernel or program
max_file=1048576                       # bytes: a main.c or kernel.cl larger than this is refused
max_unpacked=${MAX_UNPACKED:-20971520} # bytes: an archive that unpacks to more is refused

# ---------------------------------------------------------------- the sandbox
sandbox=""
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; then
    sandbox=bwrap
    # The grader puts each student program in a sandbox of its own, nested in the batch's: with a
    # /proc of its own it sees its own processes only. The kernel lets a nested sandbox mount one
    # only if a /proc without anything mounted over parts of it is in sight: the machine's, not
    # the one bubblewrap mounts (it covers /proc/sys and others); bound read-write, as bubblewrap
    # writes uid_map through it, and in the machine's process ids (bubblewrap finds its child in
    # /proc by the id it got from clone). Tried as the student's programs run (another uid when
    # root); where the nested mount fails even so, process ids and a /proc of the batch's own,
    # which the grader binds read-only into the students' sandboxes.
    outer_proc="--proc /proc --unshare-pid"
    as_student=""
    [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
        as_student="setpriv --reuid=1073741823 --regid=1073741823 --clear-groups"
    # shellcheck disable=SC2086 # as_student is a command and its words
    if bwrap --ro-bind / / --dev-bind /dev /dev --bind /proc /proc --tmpfs /tmp \
        --unshare-net --die-with-parent $as_student bwrap --ro-bind / / --dev /dev --proc /proc \
        --unshare-pid --unshare-net --die-with-parent true </dev/null >/dev/null 2>&1; then
        outer_proc="--bind /proc /proc"
    fi
elif [ "${SANDBOX:-}" = none ]; then
    [ "${1:-}" = --check ] && echo "batch: WARNING: SANDBOX=none: no sandbox; students are graded" \
        "with time and file-size limits only" >&2
else
    die "bubblewrap is missing or cannot run here$(
        [ -n "${SLURM_JOB_ID:-}" ] && printf ' (node %s)' "$(hostname)") (apt-get install bubblewrap)." \
        "Without it the students' programs can read each other's files, the reference solutions and" \
        "the results, and reach the network; to grade so all the same: make batch SANDBOX=none ..."
fi
[ "${1:-}" = --check ] && exit 0
# the grader makes a cgroup for each student under /sys/fs/cgroup where it may (as root)
cgroup=""
[ -n "$sandbox" ] && [ "$(id -u)" -eq 0 ] && [ -w /sys/fs/cgroup ] && cgroup=/sys/fs/cgroup
# the secret files the sandbox covers with /dev/null (wherever they are): this batch's and the
# usual one
secret_hidden=${BATCH_SECRET_PATH:-}
secret_usual=$(readlink -f -- "$HOME/.config/clmm-grader/secret" 2>/dev/null)
unset BATCH_SECRET_PATH GRADER_SECRET GRADER_SECRET_FILE

# the grader's cache (memory traffic counts, the lock that makes timings on one device take
# turns): one per node on a cluster, where OUT is shared by all
cache=$out/cache
[ -n "${SLURM_JOB_ID:-}" ] && cache=$out/cache/node-$(hostname -s 2>/dev/null || echo unknown)

# why a grader ended without a result, for a status line: the last line of its log that says
# something, without control characters or commas (the gradebook's separator), cut short
last_words() { # last_words LOG
    LC_ALL=C grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 |
        LC_ALL=C sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | LC_ALL=C tr -d '\000-\037\177' |
        tr ',' ';' | cut -c1-200
}

grade_one() { # grade_one ID ENTRY
    id=$1 entry=$2
    final=$out/students/$id
    batch_wanted "$id" || return 0
    w=$out/work/$id
    rm -rf "$w" && mkdir -p "$w/logs" "$cache" || return 1
    stage_entry "$entry" "$w" || return 1
    status=$stage_status
    # what this result is graded from (lib.sh's stamps): a later run that stages the same gets
    # the same stamp
    printf 'settings %s\nupload %s\n' "${BATCH_SETTINGS_STAMP:-$(batch_settings_stamp)}" \
        "$(stage_stamp "$entry" "$w" "")" >"$w/stamp" || return 1
    if [ "$status" = graded ]; then
        # the seed the front end wrote (never on a command line: /proc/*/cmdline is the whole
        # machine's to read), moved into the folder the grader reads it from and removes it
        mv "$out/private/seeds/$id" "$w/seed" 2>/dev/null ||
            { echo "batch: no seed for $id in $out/private/seeds (run make batch again)" >&2; return 1; }
        set --
        if [ -n "$sandbox" ]; then
            # The order matters (each mount covers what came before): first whole folders hidden
            # (/tmp and HOME, where the instructor's secret and files are), then what grading
            # needs bound back (the workbook may live under either), then the other students and
            # every result hidden, and last the student's own folders.
            # shellcheck disable=SC2086 # outer_proc is options and their words
            set -- bwrap --ro-bind / / --dev-bind /dev /dev $outer_proc --tmpfs /tmp
            case ${HOME:-/} in /) ;; *) [ -d "$HOME" ] && set -- "$@" --tmpfs "$HOME" ;; esac
            set -- "$@" --ro-bind "$root" "$root" --tmpfs "$subs" --tmpfs "$out" \
                --bind "$w" "$w" --bind "$out/cache" "$out/cache"
            for hide in "$secret_hidden" "$secret_usual"; do
                [ -n "$hide" ] && [ -f "$hide" ] && set -- "$@" --ro-bind /dev/null "$hide"
            done
            [ -n "$cgroup" ] && set -- "$@" --bind "$cgroup" "$cgroup"
            # no network, the student's work folder the only writable place; HOME there too
            # (POCL keeps its kernel cache under it)
            set -- "$@" --unshare-net --unshare-ipc --die-with-parent --new-session \
                --setenv HOME "$w" --setenv TMPDIR /tmp
        fi
        set -- "$@" "$grader" --root "$root" --submission "$w/sub" --work "$w/grade" \
            --results "$w/logs" --json "$w/results.json" --seed-file "$w/seed" --cache "$cache" \
            --tuning "$out/cache/tuning"
        # a copy in the student's folder: the sandbox hides /tmp and OUT, where the file may be
        if [ -n "$config" ]; then
            cp "$config" "$w/grader.conf" && set -- "$@" --config "$w/grader.conf"
        fi
        [ -n "$run_limit" ] && set -- "$@" --timeout "$run_limit"
        [ -n "$only" ] && set -- "$@" --ex "$only"
        # --foreground keeps the grader in the caller's process group (killing the batch kills
        # it); it does not inherit the batch's lock
        timeout --foreground -k 10 "$student_limit" "$@" >"$w/grade.log" 2>&1 9>&-
        code=$?
        rm -f "$w/seed"
        case $code in
        0 | 1) ;;
        # no verdict rather than a lost point: no results.json, so the next batch run regrades it
        3) status="not graded: the machine was too busy (run make batch again when it is quieter)"
            rm -f "$w/results.json" ;;
        124 | 137) status="error: grading took longer than $student_limit s" ;;
        *) status="error: the grader exited with status $code: $(last_words "$w/grade.log")" ;;
        esac
        [ -s "$w/results.json" ] || [ "$status" != graded ] ||
            status="error: no results.json: $(last_words "$w/grade.log")"
    fi
    rm -f "$out/private/seeds/$id" # (a refused archive never used its seed)
    # publish: everything in place first, then one rename
    mkdir -p "$w/publish" && echo "$status" >"$w/publish/status" && cp "$w/stamp" "$w/publish/stamp" &&
        cp "$w/grade.log" "$w/publish/" 2>/dev/null
    [ -s "$w/results.json" ] && cp "$w/results.json" "$w/publish/results.json.tmp" &&
        mv "$w/publish/results.json.tmp" "$w/publish/results.json"
    cp -r "$w/logs" "$w/publish/logs" 2>/dev/null
    old=$out/students/.old-$id
    rm -rf "$old" && { [ ! -e "$final" ] || mv "$final" "$old"; } &&
        mv "$w/publish" "$final" && rm -rf "$old" "$w"
}

if [ "${1:-}" = --task ]; then
    [ -f "${2:-}" ] || die "grade_one.sh --task LIST: no list ${2:-}"
    line=$(sed -n "$((${SLURM_ARRAY_TASK_ID:?not an array task} + 1))p" "$2")
    [ -n "$line" ] || die "no line $((SLURM_ARRAY_TASK_ID + 1)) in $2"
    set -- "${line%%	*}" "${line#*	}"
    echo "batch: task $SLURM_ARRAY_TASK_ID of job ${SLURM_ARRAY_JOB_ID:-?} grades $1 on $(hostname)"
fi
[ $# -eq 2 ] || die "usage: grade_one.sh ID ENTRY | --task LIST | --check"
grade_one "$1" "$2"
