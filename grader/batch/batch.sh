#!/bin/sh
# grader/batch/batch.sh - `make batch`: grade a whole class with the workbook's grader.
#
#   make batch SUBMISSIONS=dir [OUT=dir] [JOBS=n] [EX=04_local_B] [FORCE=1] [CONFIG=file]
#              [SANDBOX=none]
#
# Every entry of SUBMISSIONS is one student: a folder, a .zip or a .tar.gz (.tgz), the student id
# taken from its name. Only the files a student may edit (each exercise's main.c and kernel.cl;
# answers.txt, kernel.cu and main.cu of 06) are taken, from NN_name/ or exercises/NN_name/ anywhere in the submission, into a fresh work
# folder; the grader, common/ and the reference solutions always come from this workbook.
# Each student is graded in a sandbox (bubblewrap: no network, read-only system, its own work
# folder the only writable place, private /tmp and process ids, other students and all results
# hidden; without bubblewrap the batch refuses to run unless given SANDBOX=none) and the result
# is published atomically, so a batch stopped half-way (even by kill -9)
# finishes the rest when run again; FORCE=1 grades everyone again.
#
# Hidden seeds come from an instructor secret and the student id, so a regrade uses the same
# inputs (each grader reads its seed from a file it removes, and logs only a fingerprint of it): $GRADER_SECRET, or the file $GRADER_SECRET_FILE (default ~/.config/clmm-grader/secret,
# created with random content on first use - keep it out of the students' reach).
#
# CONFIG: the instructor's settings (exercises, sizes, points, limits; see grader/exercise/config.c).
# OUT (default results/batch): gradebook.csv, summary.md, junit.xml, and students/<id>/ with
# results.json (Gradescope's format), grade.log and a status file.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
grader=$root/build/grader/grader
unpacker=$root/build/grader/unpack # unpacks a .zip or .tar.gz, checking every member
subs=${SUBMISSIONS:-}
out=${OUT:-$root/results/batch}
jobs=${JOBS:-1}
only=${EX:-}
force=${FORCE:-0}
student_limit=${STUDENT_TIMEOUT:-1800} # seconds for one student's whole grading
run_limit=${TIMEOUT:-}                 # seconds for each run of a student's kernel or program
config=${CONFIG:-}
max_file=1048576                       # bytes: a main.c or kernel.cl larger than this is refused
max_unpacked=${MAX_UNPACKED:-20971520} # bytes: an archive that unpacks to more is refused

die() {
    echo "batch: $*" >&2
    exit 2
}
[ -n "$subs" ] || die "usage: make batch SUBMISSIONS=dir [OUT=dir] [JOBS=n] [EX=id] [FORCE=1]"
[ -d "$subs" ] || die "SUBMISSIONS=$subs is not a folder"
[ -x "$grader" ] || die "no grader at $grader: run make grader"
[ -x "$unpacker" ] || die "no unpacker at $unpacker: run make all"
if [ -n "$config" ]; then
    [ -f "$config" ] || die "CONFIG=$config is not a file"
    config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
    # a mistake in it stops the batch before anyone is graded
    "$grader" --config "$config" --help >/dev/null || die "CONFIG=$config has an error (above)"
fi
case $jobs in '' | *[!0-9]* | 0) die "JOBS must be a positive number" ;; esac
subs=$(cd "$subs" && pwd)
mkdir -p "$out/students" "$out/work" "$out/cache" || die "cannot create $out"
out=$(cd "$out" && pwd)
case $out/ in "$subs"/*) die "OUT must not be inside SUBMISSIONS" ;; esac
# one batch at a time on an OUT folder
exec 9>"$out/.lock"
flock -n 9 || die "another batch is running on $out (or wait for it: its lock is $out/.lock)"
# make tune's files (results/tuning/<device>.conf, or TUNING's) as the graders read them: the
# reference's lines only. A `submission` line tuned one student's kernel on this machine: for a
# class it would time every student's kernel at that student's values
rm -rf "$out/cache/tuning" && mkdir -p "$out/cache/tuning" || die "cannot create $out/cache/tuning"
for f in "${TUNING:-$root/results/tuning}"/*.conf; do
    [ -f "$f" ] && grep -v '^[^#[:space:]]*[[:space:]][[:space:]]*submission[[:space:]]' "$f" \
        >"$out/cache/tuning/${f##*/}"
done

# ---------------------------------------------------------------- the secret behind the seeds
if [ -n "${GRADER_SECRET:-}" ]; then
    secret=$GRADER_SECRET
else
    secret_file=${GRADER_SECRET_FILE:-$HOME/.config/clmm-grader/secret}
    if [ ! -s "$secret_file" ]; then
        mkdir -p "$(dirname "$secret_file")" && (umask 077 && od -An -tx1 -N32 /dev/urandom |
            tr -d ' \n' >"$secret_file") || die "cannot create the secret $secret_file"
        echo "batch: created the seed secret $secret_file (keep it: regrades need it)"
    fi
    secret=$(cat "$secret_file")
fi
# the secret files the batch's sandbox covers with /dev/null (wherever they are): this batch's
# and the usual one (a batch given GRADER_SECRET may have one there from an earlier run)
secret_hidden=$(readlink -f -- "${GRADER_SECRET_FILE:-$HOME/.config/clmm-grader/secret}" 2>/dev/null)
secret_usual=$(readlink -f -- "$HOME/.config/clmm-grader/secret" 2>/dev/null)
# the graders (and the students' programs below them) get neither the secret nor where it is
unset GRADER_SECRET GRADER_SECRET_FILE

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
    echo "batch: WARNING: SANDBOX=none: no sandbox; students are graded with time and file-size" \
        "limits only" >&2
else
    die "bubblewrap is missing or cannot run here (apt-get install bubblewrap). Without it the" \
        "students' programs can read each other's files, the reference solutions and the" \
        "results, and reach the network; to grade so all the same: make batch SANDBOX=none ..."
fi
# the grader makes a cgroup for each student under /sys/fs/cgroup where it may (as root)
cgroup=""
[ -n "$sandbox" ] && [ "$(id -u)" -eq 0 ] && [ -w /sys/fs/cgroup ] && cgroup=/sys/fs/cgroup

# ---------------------------------------------------------------- one student
exercises=$(cd "$root/solutions" && ls -d [0-9][0-9]_*)
# the upload staged (editable files only), archives unpacked, the seed: shared with Gradescope's
. "$root/grader/batch/stage.sh"

# why a grader ended without a result, for a status line: the last line of its log that says
# something, without control characters or commas (the gradebook's separator), cut short
last_words() { # last_words LOG
    LC_ALL=C grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 |
        LC_ALL=C sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | LC_ALL=C tr -d '\000-\037\177' |
        tr ',' ';' | cut -c1-200
}

# one line per finished student: done/total, students that lost points or failed, time left
progress() { # progress ID STATUS SCORE
    done_count=$(ls "$out/students" | wc -l)
    short=$(cat "$out"/students/*/status 2>/dev/null | grep -vc '^graded$')
    lost=$(for f in "$out"/students/*/results.json; do
        [ -s "$f" ] && jq -r 'select(.score < .extra_data.max_score) | 1' "$f" 2>/dev/null; done | wc -l)
    graded_now=$((done_count - done_at_start))
    left=$((total - done_count))
    eta="?"
    [ $graded_now -gt 0 ] && eta=$(( ($(date +%s) - start) * left / graded_now ))
    printf 'batch: [%s/%s] %s: %s %s | %s lost points, %s not graded | about %s s left\n' \
        "$done_count" "$total" "$1" "$2" "$3" "$lost" "$short" "$eta"
}

grade_one() { # grade_one ID ENTRY
    id=$1 entry=$2
    final=$out/students/$id
    if [ -f "$final/results.json" ] && [ "$force" != 1 ]; then
        return 0
    fi
    w=$out/work/$id
    rm -rf "$w" && mkdir -p "$w/sub" "$w/unpacked" "$w/logs" || return 1
    status="graded"
    src=$entry
    case $entry in
    *.zip | *.tar.gz | *.tgz)
        if ! why=$(stage_unpack "$entry" "$w/unpacked"); then
            status="refused: $why"
        fi
        src=$w/unpacked ;;
    esac
    if [ "$status" = graded ] && stage_has_line_break "$src"; then
        status="refused: a file or folder name holds a line break"
    fi
    if [ "$status" = graded ]; then
        stage_exercises "$src" "$w/sub"
        # the grader reads it from a file only root and the grader read, and removes it as it starts
        stage_seed "$secret" "$id" "$w/seed" || return 1
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
            --results "$w/logs" --json "$w/results.json" --seed-file "$w/seed" --cache "$out/cache" \
            --tuning "$out/cache/tuning"
        # a copy in the student's folder: the sandbox hides /tmp and OUT, where the file may be
        if [ -n "$config" ]; then
            cp "$config" "$w/grader.conf" && set -- "$@" --config "$w/grader.conf"
        fi
        [ -n "$run_limit" ] && set -- "$@" --timeout "$run_limit"
        [ -n "$only" ] && set -- "$@" --ex "$only"
        # --foreground keeps the grader in the batch's process group (killing the batch kills it);
        # it does not inherit the batch's lock
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
    # publish: everything in place first, then one rename
    mkdir -p "$w/publish" && echo "$status" >"$w/publish/status" &&
        cp "$w/grade.log" "$w/publish/" 2>/dev/null
    [ -s "$w/results.json" ] && cp "$w/results.json" "$w/publish/results.json.tmp" &&
        mv "$w/publish/results.json.tmp" "$w/publish/results.json"
    cp -r "$w/logs" "$w/publish/logs" 2>/dev/null
    old=$out/students/.old-$id
    rm -rf "$old" && { [ ! -e "$final" ] || mv "$final" "$old"; } &&
        mv "$w/publish" "$final" && rm -rf "$old" "$w"
    progress "$id" "$status" "$(jq -r '"\(.score)/\(.extra_data.max_score)"' \
        "$final/results.json" 2>/dev/null)"
}

# ---------------------------------------------------------------- the queue
queue=$out/work/.queue
: >"$queue"
for entry in "$subs"/*; do
    [ -e "$entry" ] || continue
    name=$(basename "$entry")
    case $name in
    *.tar.gz) id=${name%.tar.gz} ;;
    *.tgz) id=${name%.tgz} ;;
    *.zip) id=${name%.zip} ;;
    *) [ -d "$entry" ] || { echo "batch: skipped $name: not a folder, .zip or .tar.gz" >&2; continue; }
        id=$name ;;
    esac
    case $id in
    '' | *[!A-Za-z0-9._-]* | .*) echo "batch: skipped $name: the id must be letters, digits, . _ -" >&2
        continue ;;
    esac
    if cut -f1 "$queue" | grep -qxF -- "$id"; then
        echo "batch: skipped $name: student id $id is taken by another entry" >&2
        continue
    fi
    printf '%s\t%s\n' "$id" "$entry" >>"$queue"
done
total=$(wc -l <"$queue")
[ "$total" -gt 0 ] || die "no submissions in $subs"
left=0
while IFS="$(printf '\t')" read -r id entry; do
    [ -f "$out/students/$id/results.json" ] && [ "$force" != 1 ] || left=$((left + 1))
done <"$queue"
echo "batch: $total students in $subs, $left to grade, $jobs at a time; results in $out"
start=$(date +%s)
done_at_start=$(ls "$out/students" | wc -l)

# JOBS workers, each taking every JOBS-th student of the queue
worker=0
while [ $worker -lt "$jobs" ]; do
    (
        line=0
        while IFS="$(printf '\t')" read -r id entry; do
            [ $((line % jobs)) -eq $worker ] && grade_one "$id" "$entry"
            line=$((line + 1))
        done <"$queue"
    ) &
    worker=$((worker + 1))
done
wait
echo "batch: graded in $(($(date +%s) - start)) s"

# ---------------------------------------------------------------- gradebook, summary, JUnit
csv=$out/gradebook.csv
# every column but the status comes from the student's results.json (the grader's data: each
# test's exercise and verdict, the device), never from the wording of its log
# One gradebook cell, safe to open in a spreadsheet: text that would start a formula (= + - @, a
# tab or a carriage return; a student id may begin with -) gets a leading ', and a cell with a
# comma, a quote or a line break is quoted (RFC 4180).
cr=$(printf '\r')
cell() { # cell TEXT
    text=$1
    case $text in [-=+@]* | "	"* | "$cr"*) text="'$text" ;; esac
    case $text in
    *[,\"]* | *"$cr"* | *"$nl"*) printf '"%s"' "$(printf '%s' "$text" | sed 's/"/""/g')" ;;
    *) printf '%s' "$text" ;;
    esac
}
nl=$(printf '\nx') nl=${nl%x}
{
    printf 'student'
    for ex in $exercises; do printf ',%s' "$ex"; done
    printf ',total,max,status,device'
    for ex in $exercises; do printf ',%s GFLOP/s' "$ex"; done
    printf '\n'
    while IFS="$(printf '\t')" read -r id entry; do
        dir=$out/students/$id
        status=$(cat "$dir/status" 2>/dev/null || echo "not graded")
        device=$(jq -r '.extra_data.device // empty' "$dir/results.json" 2>/dev/null)
        cell "$id"
        for ex in $exercises; do
            printf ',%s' "$(jq -r --arg e "$ex" '[.tests[] | select(.extra_data.exercise == $e) | .score] |
                if length == 0 then "" else add end' "$dir/results.json" 2>/dev/null)"
        done
        printf ',%s,%s,%s,%s' "$(jq -r .score "$dir/results.json" 2>/dev/null || echo 0)" \
            "$(jq -r .extra_data.max_score "$dir/results.json" 2>/dev/null)" \
            "$(cell "$status")" "$(cell "$device")"
        for ex in $exercises; do
            printf ',%s' "$(jq -r --arg e "$ex GFLOP/s" '.leaderboard[] | select(.name == $e) | .value' \
                "$dir/results.json" 2>/dev/null)"
        done
        printf '\n'
    done <"$queue"
} >"$csv.tmp" && mv "$csv.tmp" "$csv"

all_json=$(while IFS="$(printf '\t')" read -r id entry; do
    f=$out/students/$id/results.json
    [ -s "$f" ] && jq -c --arg id "$id" '. + {student: $id}' "$f" 2>/dev/null
done <"$queue")

printf '%s\n' "$all_json" | jq -rs --arg total "$total" -f "$root/grader/batch/summary.jq" \
    >"$out/summary.md.tmp" 2>/dev/null && mv "$out/summary.md.tmp" "$out/summary.md"

# XML 1.0 has no place for control characters other than tab and line breaks: they become ?
printf '%s\n' "$all_json" | jq -rs '
  def xml: gsub("[\u0001-\u0008\u000b\u000c\u000e-\u001f]"; "?") | @html;
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
  "<testsuites>",
  (.[] | "  <testsuite name=\"\(.student | xml)\" tests=\"\(.tests | length)\" failures=\"\([.tests[] | select(.status == "failed")] | length)\">",
    (.tests[] | "    <testcase classname=\"\(.extra_data.exercise | xml)\" name=\"\(.name | xml)\">" +
      (if .status == "failed" then "<failure message=\"\(.score)/\(.max_score)\">\(.output | xml)</failure>" else "" end) +
      "</testcase>"),
    "  </testsuite>"),
  "</testsuites>"
' >"$out/junit.xml.tmp" 2>/dev/null && mv "$out/junit.xml.tmp" "$out/junit.xml"

echo "batch: gradebook $csv, summary $out/summary.md, JUnit $out/junit.xml"
