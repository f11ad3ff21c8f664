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
# The files the intake staged for the student (lib.sh's batch_stamps: each exercise's editable
# files only) are copied into a fresh work folder; the grader, common/ and the reference
# solutions always come from this workbook. The student is graded in a sandbox (bubblewrap: no network, read-only system, its own
# work folder the only writable place, private /tmp and process ids, other students and all
# results hidden) and the result is published atomically into OUT/students/ID: a grading stopped
# half-way (even by kill -9, scancel or a node's failure) leaves nothing there, and is done again
# by the next run; a signal to it or to its grader publishes nothing and stops the batch.
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

# the class's uploads hidden from the sandbox: a folder under an empty one, a platform's zip under
# /dev/null
hide_subs=--tmpfs
[ -f "$subs" ] && hide_subs="--ro-bind /dev/null"

grade_one() { # grade_one ID ENTRY
    id=$1 entry=$2
    final=$out/students/$id
    batch_wanted "$id" || return 0
    # (a folder of the students' own: an id may be any name the batch keeps in work/, "staged")
    w=$out/work/students/$id
    rm -rf "$w" && mkdir -p "$w/logs" "$cache" || return 1
    # the files the front end staged (lib.sh's batch_stamps): what the stamp says was graded is
    # what is graded, and each upload is unpacked once a run; staged again only where a run by
    # hand has none
    staged=$out/work/staged/$id
    if [ -f "$staged/status" ] && [ -d "$staged/sub" ] && [ -n "$(batch_stamp_of "$id")" ]; then
        cp -R "$staged/sub" "$w/sub" || return 1
        status=$(head -n 1 "$staged/status")
        batch_stamp_of "$id" >"$w/stamp" || return 1
    else
        tab=$(printf '\t') one=$(stage_single "${only:-$(batch_config_exercises)}")
        # shellcheck disable=SC2086 # the uploads, split at tabs only
        (IFS=$tab && set -f && stage_entry "$w" "$one" $entry &&
            printf '%s\n' "$stage_status" >"$w/status" &&
            printf 'settings %s\nupload %s\n' "${BATCH_SETTINGS_STAMP:-$(batch_settings_stamp)}" \
                "$(stage_stamp "$w" $entry)" >"$w/stamp") || return 1
        status=$(cat "$w/status")
    fi
    if [ "$status" = graded ]; then
        # the seed the front end wrote (never on a command line: /proc/*/cmdline is the whole
        # machine's to read), moved into the folder the grader reads it from and removes it
        mv "$out/private/seeds/$id" "$w/seed" 2>/dev/null ||
            { say "batch: no seed for $id in $out/private/seeds (run make batch again)" >&2; return 1; }
        set --
        if [ -n "$sandbox" ]; then
            # The order matters (each mount covers what came before): first whole folders hidden
            # (/tmp and HOME, where the instructor's secret and files are), then what grading
            # needs bound back (the workbook may live under either), then the other students and
            # every result hidden, and last the student's own folders.
            # shellcheck disable=SC2086 # outer_proc is options and their words
            set -- bwrap --ro-bind / / --dev-bind /dev /dev $outer_proc --tmpfs /tmp
            case ${HOME:-/} in /) ;; *) [ -d "$HOME" ] && set -- "$@" --tmpfs "$HOME" ;; esac
            set -- "$@" --ro-bind "$root" "$root" $hide_subs "$subs" --tmpfs "$out" \
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
        # it); it does not inherit the batch's lock. In the background, waited for, so that a
        # signal to this script is handled at once (on_signal) and not after the whole grading
        ! stopping || unpublished
        started=$(date +%s)
        timeout --foreground -k 10 "$student_limit" "$@" >"$w/grade.log" 2>&1 9>&- &
        grading=$!
        wait "$grading" 2>/dev/null # (no "Terminated" of dash: the batch says why, once)
        code=$?
        [ -z "$interrupted" ] || unpublished
        grading=""
        rm -f "$w/seed"
        case $code in
        0 | 1) ;;
        # no verdict rather than a lost point: no results.json, so the next batch run regrades it
        3) status="not graded: the machine was too busy (run make batch again when it is quieter)"
            rm -f "$w/results.json" ;;
        # the grader itself died of a signal from outside (a student's crash is the grader's to
        # report, as it does, exiting 0 or 1): the batch was stopped, not the student wrong
        129 | 130 | 143) stopped_by "signal $((code - 128)) to the grader of $id" ;;
        124 | 137)
            # timeout's own kill ends a grading that ran its time; a SIGKILL before that came
            # from outside
            [ $(($(date +%s) - started)) -ge "$student_limit" ] || [ "$code" = 124 ] ||
                stopped_by "SIGKILL to the grader of $id"
            status="error: grading took longer than $student_limit s" ;;
        *) status="error: the grader exited with status $code: $(last_words "$w/grade.log")" ;;
        esac
        [ -s "$w/results.json" ] || [ "$status" != graded ] ||
            status="error: no results.json: $(last_words "$w/grade.log")"
    fi
    rm -f "$out/private/seeds/$id" # (a refused archive never used its seed)
    # publish: everything in place first, then one rename; the staged files beside the result
    # they gave (files/), and every path into the work folder, which goes, rewritten (unwork); the
    # status byte for byte (it may hold a student's file names: echo would obey their backslashes)
    mkdir -p "$w/publish" && printf '%s\n' "$status" >"$w/publish/status" && cp "$w/stamp" "$w/publish/stamp" &&
        cp "$w/grade.log" "$w/publish/" 2>/dev/null
    [ -s "$w/results.json" ] && cp "$w/results.json" "$w/publish/results.json.tmp" &&
        unwork_json "$w/publish/results.json.tmp" && mv "$w/publish/results.json.tmp" "$w/publish/results.json"
    cp -r "$w/logs" "$w/publish/logs" 2>/dev/null
    [ -d "$w/sub" ] && cp -R --preserve=timestamps "$w/sub" "$w/publish/files"
    find "$w/publish/status" "$w/publish/grade.log" "$w/publish/logs" -type f 2>/dev/null |
        while IFS= read -r f; do unwork_text "$f"; done
    # the last moment a stop keeps the earlier result: after it, this one is whole and goes in
    ! stopping || unpublished
    old=$out/students/.old-$id
    rm -rf "$old" && { [ ! -e "$final" ] || mv "$final" "$old"; } &&
        mv "$w/publish" "$final" && published=1 && rm -rf "$old" "$w"
}

# ---------------------------------------------------------------- no path into the work folder
# The work folder goes once the result is published: the published text names the student's files
# as published (files/, logs/, results.json), the config as given, and the build folders, which
# go, as <work>. Replaced as plain text (awk's index, not a pattern: OUT may hold any character)
unwork_text() { # unwork_text FILE (in place)
    grep -qF -- "$w" "$1" || return 0
    W=$w F=$out/students/$id C=${config:-} LC_ALL=C awk '
        function swap(s, from, to,    r, i) {
            r = ""
            while ((i = index(s, from)) > 0) { r = r substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
            return r s
        }
        { s = swap($0, ENVIRON["W"] "/sub", ENVIRON["F"] "/files")
          s = swap(s, ENVIRON["W"] "/logs", ENVIRON["F"] "/logs")
          s = swap(s, ENVIRON["W"] "/results.json", ENVIRON["F"] "/results.json")
          if (ENVIRON["C"] != "") s = swap(s, ENVIRON["W"] "/grader.conf", ENVIRON["C"])
          print swap(s, ENVIRON["W"], "<work>") }' "$1" >"$1.unwork" && mv "$1.unwork" "$1"
}
# the same on every string of a JSON file, which stays valid JSON (jq splits on the text itself);
# one without such a path keeps the grader's layout
unwork_json() { # unwork_json FILE (in place)
    jq -e --arg w "$w" 'any(.. | strings; index($w) != null)' "$1" >/dev/null || return 0
    jq --arg w "$w" --arg f "$out/students/$id" --arg c "${config:-}" '
        def swap($from; $to): split($from) | join($to);
        (.. | strings) |= (swap($w + "/sub"; $f + "/files") | swap($w + "/logs"; $f + "/logs") |
            swap($w + "/results.json"; $f + "/results.json") |
            (if $c != "" then swap($w + "/grader.conf"; $c) else . end) | swap($w; "<work>"))
        ' "$1" >"$1.unwork" && mv "$1.unwork" "$1"
}

# ---------------------------------------------------------------- stopped: nothing published
# A signal (INT, TERM, HUP: Ctrl-C, kill, scancel) to this script or to the grader under it stops
# this student with nothing published: the earlier result in OUT/students/ID stays as it was, and
# the next run grades the student again. Under batch.sh (BATCH_STOP: the marker file it watches)
# the reason goes into the marker and the whole batch stops; a Slurm task says it in its log.
stop_file=${BATCH_STOP:-}
unset BATCH_STOP
interrupted="" grading="" published="" stop_code=143 w=""
stopped_by() { # stopped_by WHY: record why (the first reason stands) and end unpublished
    [ -n "$interrupted" ] || interrupted=$1
    unpublished
}
on_signal() { # on_signal NAME NUMBER (a trap: handled between commands, and ends a wait at once)
    [ -n "$interrupted" ] || { interrupted="SIG$1 to grade_one.sh of ${id:-?}"; stop_code=$((128 + $2)); }
    [ -n "$grading" ] && kill -TERM "$grading" 2>/dev/null
    [ -n "$stop_file" ] && (set -C && printf '%s\n' "$interrupted" >"$stop_file") 2>/dev/null
}
# whether this student is to stop: a signal here, or the batch's marker (another process's)
stopping() { [ -n "$interrupted" ] || { [ -n "$stop_file" ] && [ -e "$stop_file" ]; }; }
unpublished() {
    trap '' INT TERM HUP
    # the grader first, so that nothing writes into the work folder as it goes
    while [ -n "$grading" ] && kill -0 "$grading" 2>/dev/null; do wait "$grading" 2>/dev/null; done
    [ -z "$interrupted" ] && interrupted="the batch was stopped" # (another process's marker)
    [ -n "$stop_file" ] && (set -C && printf '%s\n' "$interrupted" >"$stop_file") 2>/dev/null
    [ -n "${w:-}" ] && rm -rf "$w"
    [ -n "$stop_file" ] || say "batch: ${id:-?}: stopped ($interrupted): nothing published, its" \
        "earlier result stands; a run again grades it" >&2
    exit "$stop_code"
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

if [ "${1:-}" = --task ]; then
    [ -f "${2:-}" ] || die "grade_one.sh --task LIST: no list ${2:-}"
    line=$(sed -n "$((${SLURM_ARRAY_TASK_ID:?not an array task} + 1))p" "$2")
    [ -n "$line" ] || die "no line $((SLURM_ARRAY_TASK_ID + 1)) in $2"
    set -- "${line%%	*}" "${line#*	}"
    say "batch: task $SLURM_ARRAY_TASK_ID of job ${SLURM_ARRAY_JOB_ID:-?} grades $1 on $(hostname)"
fi
[ $# -eq 2 ] || die "usage: grade_one.sh ID ENTRY | --task LIST | --check"
grade_one "$1" "$2"
code=$?
# a signal while staging: the staging finished (or failed), nothing was published (one during the
# last rename let a whole result in)
[ -z "$interrupted" ] || [ -n "$published" ] || unpublished
exit $code
