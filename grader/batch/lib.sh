# grader/batch/lib.sh - what both engines of `make batch` share (sourced, not run): the settings
# read from the environment, the class's queue and the seeds. batch.sh (one machine) and slurm.sh
# (a Slurm cluster) are thin front ends over it; grade_one.sh grades one student and
# class_files.sh writes the gradebook, summary and JUnit.
#
# The front end sets `who` (the prefix of its messages) before sourcing this file.
root=$(cd "$(dirname "$0")/../.." && pwd)
grader=$root/build/grader/grader
unpacker=$root/build/grader/unpack # unpacks a .zip or .tar.gz, checking every member
# what a student's upload becomes (its editable files only) and the seeds' derivation, shared
# with Gradescope's run_autograder
. "$root/grader/batch/stage.sh"

die() {
    echo "${who:-batch}: $*" >&2
    exit 2
}

# ---------------------------------------------------------------- the front end's settings
# Read SUBMISSIONS, OUT, EX, FORCE, CONFIG (and JOBS) from the environment, check them, and create
# OUT's folders. Afterwards subs, out, only, force, config hold absolute, checked values, exported
# under their own names for grade_one.sh and class_files.sh (an array task of Slurm gets them
# through sbatch's environment)
batch_settings() {
    subs=${SUBMISSIONS:-}
    out=${OUT:-$root/results/batch}
    only=${EX:-}
    force=${FORCE:-0}
    config=${CONFIG:-}
    ONLY=$(printf '%s' "${ONLY:-}" | tr -d ' ')
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
    subs=$(cd "$subs" && pwd)
    mkdir -p "$out/students" "$out/work" "$out/cache" || die "cannot create $out"
    out=$(cd "$out" && pwd)
    case $out/ in "$subs"/*) die "OUT must not be inside SUBMISSIONS" ;; esac
    if [ -n "${ROSTER:-}" ]; then
        [ -f "$ROSTER" ] || die "ROSTER=$ROSTER is not a file"
        ROSTER=$(cd "$(dirname "$ROSTER")" && pwd)/$(basename "$ROSTER")
    fi
    SUBMISSIONS=$subs OUT=$out EX=$only FORCE=$force CONFIG=$config
    export SUBMISSIONS OUT EX FORCE CONFIG ONLY ROSTER
}

# one batch at a time on an OUT folder (fd 9 holds the lock until the front end exits)
batch_lock() {
    exec 9>"$out/.lock"
    flock -n 9 || die "another batch is running on $out (or wait for it: its lock is $out/.lock)"
}

# make tune's files (results/tuning/<device>.conf, or TUNING's) as the graders read them: the
# reference's lines only. A `submission` line tuned one student's kernel on this machine: for a
# class it would time every student's kernel at that student's values
batch_tuning() {
    rm -rf "$out/cache/tuning" && mkdir -p "$out/cache/tuning" || die "cannot create $out/cache/tuning"
    for f in "${TUNING:-$root/results/tuning}"/*.conf; do
        [ -f "$f" ] && grep -v '^[^#[:space:]]*[[:space:]][[:space:]]*submission[[:space:]]' "$f" \
            >"$out/cache/tuning/${f##*/}"
    done
}

# ---------------------------------------------------------------- the queue
# $out/work/.queue: one line `ID<tab>ENTRY` per student, in the order of SUBMISSIONS; total its
# length. Every entry of SUBMISSIONS is one student: a folder, a .zip or a .tar.gz (.tgz), named
# by the student's id, or as a learning platform's download names it:
#   Moodle  `Full Name_1234_assignsubmission_file_...` (a folder, or the file itself), 1234 the
#           assignment's participant number (its grading worksheet's "Participant 1234")
#   Canvas  `name_12345_67890_file.zip`, `name_LATE_12345_67890_file.zip`: 12345 the user's
#           Canvas ID, LATE its flag that the upload came after the due date
# Such a number maps to the ROSTER id whose `lms` field is that number (or which is that number),
# else it is the id. A Moodle folder holding one archive and no exercise is that archive.
# $queue.info: `ID<tab>NAME<tab>LMS<tab>LATE<tab>UPLOAD` per student (LATE: canvas or empty).
# ROSTER=file: lines `id[,name[,lms number]]` (# comments, a header line `id,...`): every id gets
# a row in the gradebook ($queue.missing: `ID<tab>NAME<tab>LMS<tab>WHY` for those with no entry).
batch_roster() {
    roster=$out/work/.roster
    : >"$roster.$$"
    if [ -n "${ROSTER:-}" ]; then
        [ -f "$ROSTER" ] || die "ROSTER=$ROSTER is not a file"
        # fields trimmed; a quoted name "Last, First" keeps its comma
        sed 's/\r$//' "$ROSTER" | awk '
            /^[[:space:]]*(#|$)/ { next }
            # CSV fields: a quoted one ("Last, First") keeps its commas
            { n = 0; f = ""; q = 0
              for (i = 1; i <= length($0); i++) {
                  c = substr($0, i, 1)
                  if (c == "\"") q = !q
                  else if (c == "," && !q) { v[++n] = f; f = "" }
                  else f = f c
              }
              v[++n] = f
              for (i = 1; i <= 3; i++) { if (i > n) v[i] = ""; gsub(/^[[:space:]]+|[[:space:]]+$/, "", v[i]); gsub(/\t/, " ", v[i]) } }
            NR == 1 && tolower(v[1]) == "id" { next }
            { print v[1] "\t" v[2] "\t" v[3] }' >"$roster.$$" || die "cannot read ROSTER=$ROSTER"
        bad=$(cut -f1 "$roster.$$" | grep -v -x '[A-Za-z0-9_][A-Za-z0-9._-]*' | head -n 1)
        [ -z "$bad" ] || die "ROSTER=$ROSTER: id \"$bad\": letters, digits, . _ - only"
        dup=$(cut -f1 "$roster.$$" | sort | uniq -d | head -n 1)
        [ -z "$dup" ] || die "ROSTER=$ROSTER: id $dup is there twice"
    fi
    mv "$roster.$$" "$roster"
}

# the roster's id of an LMS number (the number when none), and its name
batch_roster_id() { # batch_roster_id NUMBER -> ID<tab>NAME
    awk -F '\t' -v n="$1" '$3 == n || $1 == n { print $1 "\t" $2; found = 1; exit }
        END { if (!found) print n "\t" }' "$out/work/.roster"
}

batch_queue() {
    queue=${queue:-$out/work/.queue}
    batch_roster
    # built aside, then renamed: a Slurm job writing the class files may be reading the old one
    next=$queue.$$
    : >"$next"
    : >"$next.info"
    for entry in "$subs"/*; do
        [ -e "$entry" ] || continue
        name=$(basename "$entry")
        full="" lms="" late=""
        # a learning platform's name: the number after the student's name
        lms_name=$(printf '%s' "$name" | sed -n -E \
            -e 's/^(.*)_([0-9]+)_assignsubmission_[a-z]+_(.*)$/moodle\t\2\t\1\t/p' \
            -e 't' -e 's/^([^_]+)_(LATE_)?([0-9]+)_([0-9]+)_(.+)$/canvas\t\3\t\1\t\2/p')
        if [ -n "$lms_name" ]; then
            lms=$(printf '%s' "$lms_name" | cut -f2)
            full=$(printf '%s' "$lms_name" | cut -f3 | tr -d '\000-\037\177')
            [ -n "$(printf '%s' "$lms_name" | cut -f4)" ] && late=canvas
            mapped=$(batch_roster_id "$lms")
            id=${mapped%%	*}
            [ -n "${mapped#*	}" ] && full=${mapped#*	}
            # a Moodle folder that holds one archive (the upload itself) and no exercise
            if [ -d "$entry" ] && [ -z "$(find "$entry" -maxdepth 3 -type d -name '[0-9][0-9]_*' | head -n 1)" ]; then
                inner=$(find "$entry" -maxdepth 1 -type f \( -name '*.zip' -o -name '*.tar.gz' -o -name '*.tgz' \))
                [ -n "$inner" ] && [ "$(printf '%s\n' "$inner" | wc -l)" -eq 1 ] && entry=$inner
            fi
            case $entry in *.zip | *.tar.gz | *.tgz) ;; *)
                [ -d "$entry" ] || { echo "$who: skipped $name: not a folder, .zip or .tar.gz" >&2
                    continue; } ;;
            esac
        else
            case $name in
            *.tar.gz) id=${name%.tar.gz} ;;
            *.tgz) id=${name%.tgz} ;;
            *.zip) id=${name%.zip} ;;
            *) [ -d "$entry" ] || { echo "$who: skipped $name: not a folder, .zip or .tar.gz" >&2; continue; }
                id=$name ;;
            esac
            full=$(awk -F '\t' -v id="$id" '$1 == id { print $2; exit }' "$out/work/.roster")
        fi
        case $id in
        '' | *[!A-Za-z0-9._-]* | .*) echo "$who: skipped $name: the id must be letters, digits, . _ -" >&2
            continue ;;
        esac
        if cut -f1 "$next" | grep -qxF -- "$id"; then
            echo "$who: skipped $name: student id $id is taken by another entry" >&2
            continue
        fi
        if [ -s "$out/work/.roster" ] && ! cut -f1 "$out/work/.roster" | grep -qxF -- "$id"; then
            echo "$who: $name: $id is not on the roster (graded all the same)" >&2
        fi
        printf '%s\t%s\n' "$id" "$entry" >>"$next"
        printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$full" "$lms" "$late" "$name" | tr -d '\r' >>"$next.info"
    done
    # the roster's students with no entry
    awk -F '\t' 'NR == FNR { have[$1] = 1; next } !($1 in have) { print $1 "\t" $2 "\t" $3 "\tmissing: nothing submitted" }' \
        "$next" "$out/work/.roster" >"$next.missing"
    mv "$next.info" "$queue.info" && mv "$next.missing" "$queue.missing" && mv "$next" "$queue" ||
        die "cannot write $queue"
    total=$(wc -l <"$queue")
    [ "$total" -gt 0 ] || die "no submissions in $subs"
}

# ---------------------------------------------------------------- stamps: what a result graded
# A published result's `stamp` file (grade_one.sh) says what it was graded from: `settings HASH`
# (the grader's build and references, the config, EX) and `upload HASH` (stage.sh's stage_stamp:
# the staged files, or why there were none). The front end stages every upload again (cheap: the
# editable files only) and compares: a result whose stamp differs is stale and graded again.

# the settings line's hash: the grader, its plugin and layer, the references and the library it
# grades with, the config's text and EX (a result graded under others is stale)
batch_settings_stamp() {
    {
        sha256sum "$grader" "$root"/build/grader/*.so 2>/dev/null | cut -c1-64
        (cd "$root" && find solutions common -type f \( -name '*.[ch]' -o -name '*.cl' -o -name '*.cu' \) |
            LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done)
        # (deadlines and the late penalty change no grade: class_files.sh applies them)
        if [ -n "$config" ]; then grep -Ev '^[[:space:]]*(late\.|([0-9][0-9]_[A-Za-z0-9_]*\.)?deadline[[:space:]]*=)' "$config" | sha256sum
        else echo "no config"; fi
        printf 'exercises %s\n' "$only"
    } | sha256sum | cut -c1-64
}

# $queue.stamps: one line `ID<tab>STAMP` per student of the queue, the stamp its result must have
# to be current (an upload staged as grade_one.sh stages it, in a sandbox where bubblewrap runs)
batch_stamps() {
    settings_stamp=$(batch_settings_stamp)
    BATCH_SETTINGS_STAMP=$settings_stamp
    export BATCH_SETTINGS_STAMP
    max_file=1048576 max_unpacked=${MAX_UNPACKED:-20971520}
    sandbox=""
    command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true 2>/dev/null && sandbox=bwrap
    stamps=$queue.stamps
    next=$stamps.$$
    : >"$next"
    : >"$next.times"
    rm -rf "$out/work/staged"
    while IFS="$(printf '\t')" read -r id entry; do
        s=$out/work/.stage-$$
        rm -rf "$s"
        stage_entry "$entry" "$s" || die "cannot stage $entry into $s"
        printf '%s\t%s\n' "$id" "$(stage_stamp "$entry" "$s" "")" >>"$next"
        printf '%s\t%s\n' "$id" "$(batch_submitted "$id" "$entry" "$s")" >>"$next.times"
        # the staged files kept for the similarity report (similarity.sh)
        rm -rf "$out/work/staged/$id" && mkdir -p "$out/work/staged" && mv "$s/sub" "$out/work/staged/$id" ||
            die "cannot keep the staged files of $id in $out/work/staged"
    done <"$queue"
    rm -rf "$out/work/.stage-$$"
    mv "$next.times" "$queue.times" && mv "$next" "$stamps" || die "cannot write $stamps"
}

# When an upload came, and what says so: EPOCH<tab>SOURCE. The platform's own record first (the
# time its download gave the file: the upload's on Moodle and Canvas), else the newest time of the
# editable files (an archive's member times, which the student's clock wrote; a folder's file
# times). Canvas's LATE flag is kept beside it ($queue.info) and counts even when the time does not
# tell
batch_submitted() { # batch_submitted ID ENTRY STAGED
    lms=$(awk -F '\t' -v id="$1" '$1 == id { print $3; exit }' "$queue.info")
    if [ -n "$lms" ]; then
        printf '%s\tthe platform download'"'"'s file time\n' "$(stat -c %Y "$2")"
        return
    fi
    newest=$(find "$3/sub" -type f -printf '%T@\n' 2>/dev/null | sort -n | tail -n 1)
    [ -n "$newest" ] || return 0
    case $2 in
    *.zip | *.tar.gz | *.tgz) how="archive member times: the student's clock" ;;
    *) how="the files' times" ;;
    esac
    printf '%s\t%s\n' "${newest%.*}" "$how"
}

# the stamp a current result of ID has (empty when the front end computed none)
batch_stamp_of() { # batch_stamp_of ID
    [ -f "${queue:-$out/work/.queue}.stamps" ] || return 0
    printf 'settings %s\nupload %s\n' "${BATCH_SETTINGS_STAMP:-}" \
        "$(awk -F '\t' -v id="$1" '$1 == id { print $2; exit }' "${queue:-$out/work/.queue}.stamps")"
}

# why the result of ID is stale (nothing when it is current or there is none)
batch_stale() { # batch_stale ID
    d=$out/students/$1
    [ -f "$d/status" ] || return 0
    if [ ! -f "$d/stamp" ]; then
        if [ -f "$d/forced" ]; then echo "forced (FORCE=1 or ONLY=)"
        else echo "no stamp (graded before stamps, or by hand)"; fi
    elif [ "$(sed -n 1p "$d/stamp")" != "settings ${BATCH_SETTINGS_STAMP:-}" ]; then
        echo "the grader, the config or EX changed"
    elif [ "$(cat "$d/stamp")" != "$(batch_stamp_of "$1")" ]; then
        echo "the upload changed"
    fi
}

# whether a student needs grading: no result, a stale one, or none a run again could change
# (graded, refused, empty: those stand; an error or "not graded" is tried again); ONLY=ids: those
# only
batch_wanted() { # batch_wanted ID
    if [ -n "${ONLY:-}" ]; then
        case ,$ONLY, in *,"$1",*) ;; *) return 1 ;; esac
    fi
    [ -f "$out/students/$1/status" ] || return 0
    [ -z "$(batch_stale "$1")" ] || return 0
    case $(head -n 1 "$out/students/$1/status") in
    graded) [ ! -f "$out/students/$1/results.json" ] ;;
    refused:* | empty:*) return 1 ;;
    *) return 0 ;;
    esac
}

# FORCE=1 (everyone) or ONLY=ids (those): their results marked stale before anything is graded,
# so that a run stopped half-way leaves the rest stale, and a run again without FORCE grades them
batch_force() {
    [ -n "${ONLY:-}" ] || [ "$force" = 1 ] || return 0
    if [ -n "${ONLY:-}" ]; then
        for id in $(printf '%s' "$ONLY" | tr ',' ' '); do
            cut -f1 "$queue" | grep -qxF -- "$id" || die "ONLY=$ONLY: no student $id in $subs"
        done
    fi
    while IFS="$(printf '\t')" read -r id entry; do
        d=$out/students/$id
        [ -d "$d" ] || continue
        if [ -n "${ONLY:-}" ]; then case ,$ONLY, in *,"$id",*) ;; *) continue ;; esac; fi
        touch "$d/forced" && rm -f "$d/stamp" || die "cannot mark $d stale"
    done <"$queue"
}

# ---------------------------------------------------------------- the secret behind the seeds
# Hidden seeds come from the instructor's secret and the student id. The secret never leaves the
# front end: it writes each student's seed, before grading, to $out/private/seeds/ID (a folder of
# mode 700, files of mode 600, hidden from every sandbox), which grade_one.sh hands to the grader
# (which removes it as it starts). Neither the secret nor the seeds are ever on a command line, in
# an environment or in a Slurm job script (scontrol shows those).
batch_secret() {
    if [ -n "${GRADER_SECRET:-}" ]; then
        secret=$GRADER_SECRET
    else
        secret_file=${GRADER_SECRET_FILE:-$HOME/.config/clmm-grader/secret}
        if [ ! -s "$secret_file" ]; then
            mkdir -p "$(dirname "$secret_file")" && (umask 077 && od -An -tx1 -N32 /dev/urandom |
                tr -d ' \n' >"$secret_file") || die "cannot create the secret $secret_file"
            echo "$who: created the seed secret $secret_file (keep it: regrades need it)"
        fi
        secret=$(cat "$secret_file")
    fi
    # the secret file the sandboxes cover with /dev/null (grade_one.sh covers the usual one too:
    # a batch given GRADER_SECRET may have one there from an earlier run); a path, not a secret
    BATCH_SECRET_PATH=$(readlink -f -- "${GRADER_SECRET_FILE:-$HOME/.config/clmm-grader/secret}" 2>/dev/null)
    export BATCH_SECRET_PATH
    # the graders (and the students' programs below them) get neither the secret nor where it is
    unset GRADER_SECRET GRADER_SECRET_FILE
    (umask 077 && mkdir -p "$out/private/seeds") && chmod 700 "$out/private" ||
        die "cannot create $out/private"
}

# write the seed of every student in the queue that batch_wanted says needs grading
batch_seeds() { # batch_seeds LIST (the queue's format)
    while IFS="$(printf '\t')" read -r id entry; do
        batch_wanted "$id" || continue
        stage_seed "$secret" "$id" "$out/private/seeds/$id" ||
            die "cannot write a seed into $out/private/seeds"
    done <"$1"
}
