# grader/batch/stage.sh - what `make batch` (lib.sh, grade_one.sh) and Gradescope's run_autograder
# (gradescope.sh) share: a student's uploads turned into a staged submission of editable files
# only, by the one intake (build/grader/intake, grader/intake/), and the hidden seed derived from
# the instructor's secret. Sourced (POSIX sh), not run.
#
# The caller sets: root (the workbook), sandbox ("bwrap" where bubblewrap works, else empty);
# MAX_UNPACKED (bytes, optional) lowers or raises the intake's cap of what an upload unpacks to.
# shellcheck shell=sh disable=SC2154 # (those variables are the caller's)
intake=$root/build/grader/intake
# the only files a student may edit; everything else of an upload is never read or run (the
# intake's list, intake_name.c, which make submit on a student's machine has not built:
# tests/course.sh holds the two equal)
stage_editable="main.c kernel.cl answers.txt kernel.cu main.cu"

# Run an intake command contained: a time limit, no stdin, a cap on every file it writes (the
# caps themselves are the intake's: grader/intake/intake.h) and, where bubblewrap works, a
# sandbox in which DIR is the only writable place (libarchive parses what a student wrote).
# Its output on stdout; exit: the intake's, 124 past the time limit.
stage_contained() { # stage_contained DIR FILE_CAP_BYTES COMMAND...
    stage_dir=$1 stage_cap=$2
    shift 2
    [ -n "$sandbox" ] && set -- bwrap --ro-bind / / --dev /dev --bind "$stage_dir" "$stage_dir" \
        --unshare-net --unshare-ipc --unshare-pid --die-with-parent --new-session "$@"
    (ulimit -f $((stage_cap / 512 + 1)) && exec timeout 120 "$@" </dev/null)
}

# the workbook's exercise folders (the reference's; a handout without one: the skeletons')
stage_exercise_names() {
    (set +f && { cd "$root/solutions" 2>/dev/null || cd "$root/exercises"; } && ls -d [0-9][0-9]_* | tr '\n' ' ')
}

# The one exercise an assignment grades, where it grades one: loose kernel.cl and main.c go
# there. From EXERCISES (words: the batch's EX, or the config's `exercises`), each an exercise
# folder or its number.
stage_single() { # stage_single "WORDS" -> the exercise's folder, or nothing
    set -- $1
    [ $# -eq 1 ] || return 0
    for stage_ex in $(stage_exercise_names); do
        case $1 in "$stage_ex" | "${stage_ex%%_*}") echo "$stage_ex" && return 0 ;; esac
    done
}

# The hidden seed of one submission, from the secret and an id (the same id, the same inputs at a
# regrade), written to FILE for the grader's --seed-file: never on a command line
# (/proc/*/cmdline is the whole machine's to read), a file only its owner reads
stage_seed() { # stage_seed SECRET ID FILE
    stage_hash=$(printf '%s:%s' "$1" "$2" | sha256sum | cut -c1-15)
    (umask 077 && printf '%s\n' "$((0x$stage_hash))" >"$3")
}

# One student's uploads (folders, archives, loose files: absolute paths) staged into DIR/sub, its
# editable files only. Sets stage_status: graded (to be graded), "refused: WHY" or "empty: WHAT
# THE UPLOAD HELD" (nothing to grade: no grader runs, and it says why); stage_took: the intake's
# `took:` lines (which archive of several, which loose files). SINGLE: stage_single's exercise.
# Returns 1 only when DIR cannot be made (ours).
stage_entry() { # stage_entry DIR SINGLE UPLOAD...
    stage_into=$1 stage_one=$2
    shift 2
    rm -rf "$stage_into/scratch" && mkdir -p "$stage_into/scratch" || return 1
    stage_said=$(stage_contained "$stage_into" "${MAX_UNPACKED:-20971520}" "$intake" stage \
        --into "$stage_into/sub" --scratch "$stage_into/scratch" --exercises "$(stage_exercise_names)" \
        --single "$stage_one" ${MAX_UNPACKED:+--max-bytes "$MAX_UNPACKED"} "$@" 2>&1)
    case $? in
    0) stage_status=$(printf '%s\n' "$stage_said" | head -n 1)
        stage_took=$(printf '%s\n' "$stage_said" | sed -n 's/^took: //p') ;;
    124) stage_status="refused: archive refused: unpacking took longer than 120 s" stage_took="" ;;
    *) stage_status="refused: archive could not be unpacked: $(printf '%s\n' "$stage_said" | tail -n 1 |
        LC_ALL=C tr -d '\000-\037\177' | cut -c1-200)" stage_took="" ;;
    esac
    rm -rf "$stage_into/scratch"
    mkdir -p "$stage_into/sub" || return 1
    return 0
}

# What a result was graded from, as one hash: stage_status, the staged files (names and
# contents) and, for a refused upload, its bytes too (a new upload refused for the same reason is
# another one). Two runs that stage the same files give the same stamp: a result with another is
# stale.
stage_stamp() { # stage_stamp DIR UPLOAD... -> the stamp on stdout (after stage_entry)
    stage_into=$1
    shift
    {
        printf '\n%s\n' "$stage_status"
        case $stage_status in
        refused:*) for stage_u in "$@"; do
            if [ -f "$stage_u" ]; then sha256sum <"$stage_u"; else find "$stage_u" | LC_ALL=C sort; fi
        done ;;
        esac
        (cd "$stage_into/sub" && find . -type f | LC_ALL=C sort | while IFS= read -r stage_f; do
            sha256sum "$stage_f"; done)
    } | sha256sum | cut -c1-64
}
