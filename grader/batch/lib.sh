# grader/batch/lib.sh - what both engines of `make batch` share (sourced, not run): the settings
# read from the environment, the class's queue and the seeds. batch.sh (one machine) and slurm.sh
# (a Slurm cluster) are thin front ends over it; grade_one.sh grades one student and
# class_files.sh writes the gradebook, summary and JUnit.
#
# The front end sets `who` (the prefix of its messages) before sourcing this file.
root=$(cd "$(dirname "$0")/../.." && pwd)
grader=$root/build/grader/grader
# what a student's upload becomes (its editable files only) and the seeds' derivation, shared
# with Gradescope's run_autograder
. "$root/grader/batch/stage.sh"

# One line for the terminal. Printed with printf, never echo: dash's echo obeys backslashes, so a
# student's file named `a\033[2J` would become escape bytes; control characters a name or a
# status may hold are shown as ? (visible: a filter of the same), so that none reaches the
# terminal.
visible() { LC_ALL=C tr '\000-\011\013-\037\177' '?'; }
say() { printf '%s\n' "$*" | visible; }
die() {
    say "${who:-batch}: $*" >&2
    exit 2
}
# a handout (make handout) grades nothing but a student's own work: a class is graded against the
# reference solutions, in the instructor's workbook
[ -d "$root/solutions" ] || die "this workbook is a handout (no solutions/): grade a class in the instructor's workbook, which has the reference solutions"

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
    # a folder of downloads, or the platform's own zip of them (Moodle's "download all")
    [ -d "$subs" ] || { [ -f "$subs" ] && case $subs in *.zip | *.ZIP) true ;; *) false ;; esac; } ||
        die "SUBMISSIONS=$subs is not a folder or a .zip"
    [ -x "$grader" ] || die "no grader at $grader: run make grader"
    [ -x "$intake" ] || die "no intake at $intake: run make all"
    if [ -n "$config" ]; then
        [ -f "$config" ] || die "CONFIG=$config is not a file"
        config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
        # a mistake in it stops the batch before anyone is graded
        "$grader" --config "$config" --help >/dev/null || die "CONFIG=$config has an error (above)"
    fi
    if [ -d "$subs" ]; then subs=$(cd "$subs" && pwd)
    else subs=$(cd "$(dirname "$subs")" && pwd)/$(basename "$subs"); fi
    mkdir -p "$out/students" "$out/work" "$out/cache" || die "cannot create $out"
    out=$(cd "$out" && pwd)
    case $out/ in "$subs"/*) die "OUT must not be inside SUBMISSIONS" ;; esac
    if [ -n "${ROSTER:-}" ]; then
        [ -f "$ROSTER" ] || die "ROSTER=$ROSTER is not a file"
        ROSTER=$(cd "$(dirname "$ROSTER")" && pwd)/$(basename "$ROSTER")
    fi
    # WORKSHEET=file: Moodle's grading worksheet, whose "Last modified (submission)" is when each
    # participant's upload came, as Moodle recorded it
    if [ -n "${WORKSHEET:-}" ]; then
        [ -f "$WORKSHEET" ] || die "WORKSHEET=$WORKSHEET is not a file"
        WORKSHEET=$(cd "$(dirname "$WORKSHEET")" && pwd)/$(basename "$WORKSHEET")
        said=$("$intake" worksheet "$WORKSHEET" 2>&1 >/dev/null) || die "WORKSHEET=$WORKSHEET: $said"
    fi
    # GRADEBOOK=file: Canvas's gradebook export, whose assignment column (ASSIGNMENT) canvas.csv
    # fills: checked before any grading, so that a wrong file stops the batch at once
    if [ -n "${GRADEBOOK:-}" ]; then
        [ -f "$GRADEBOOK" ] || die "GRADEBOOK=$GRADEBOOK is not a file"
        GRADEBOOK=$(cd "$(dirname "$GRADEBOOK")" && pwd)/$(basename "$GRADEBOOK")
        said=$(: | "$intake" gradebook-fill "$GRADEBOOK" "${ASSIGNMENT:-Workbook}" /dev/stdin 2>&1 >/dev/null) ||
            die "GRADEBOOK=$GRADEBOOK: $said"
    fi
    SUBMISSIONS=$subs OUT=$out EX=$only FORCE=$force CONFIG=$config
    export SUBMISSIONS OUT EX FORCE CONFIG ONLY ROSTER WORKSHEET GRADEBOOK
}

# one batch at a time on an OUT folder (fd 9 holds the lock until the front end exits). The
# class files' writer (class_files.sh, the job that ends a Slurm array) holds it for seconds: a
# run started meanwhile waits for it, up to a minute, rather than refusing.
batch_lock() {
    exec 9>"$out/.lock"
    flock -n 9 && return 0
    printf '%s\n' "batch: $out is locked (its class files being written, or another batch): waiting up to 60 s" >&2
    flock -w 60 9 || die "another batch is running on $out (or wait for it: its lock is $out/.lock)"
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
# $out/work/.queue: one line `ID<tab>UPLOAD<tab>UPLOAD...` per student (absolute paths), in the
# order of SUBMISSIONS; total its length. The intake (build/grader/intake class) walks
# SUBMISSIONS (a folder, or the platform's zip, unpacked into $queue.intake) into students:
# every entry named by a student id (a folder, a .zip or .tar.gz), or as a learning platform's
# download names it, read where the platform writes it (grader/intake/intake_name.c):
#   Moodle  `Full Name_1234_assignsubmission_file_...` (a folder, or the files themselves), 1234
#           the participant number (the grading worksheet's "Participant 1234"): the first
#           `_N_assignsubmission_`, whatever the student's own file name holds
#   Canvas  `login_12345_67890_file.zip`, `login_LATE_12345_67890_file.zip`: 12345 the user's
#           Canvas ID, LATE its flag that the upload came after the due date; several files of
#           one user (kernel.cl beside main.c) are one student's
# A name that reads both ways is listed and skipped, never guessed. Such a number maps to the
# ROSTER id whose `lms` field is that number (else the one which is that number), else it is the id.
# $queue.info: `ID<tab>NAME<tab>LMS<tab>LATE<tab>UPLOADS<tab>PLATFORM` per student (LATE: canvas or
# empty; PLATFORM: the download's, moodle, canvas or plain);
# $queue.times: `ID<tab>EPOCH<tab>SOURCE`, when the upload came as the instructor's disk says
# (never a time inside an archive), or Moodle's own record where WORKSHEET (its grading worksheet)
# has one; $queue.skipped: the entries that are nobody's, and why.
# ROSTER=file: lines `id[,name[,lms number[,extension days[,adjustment]]]]` (# comments, a header
# line `id,...`): every id gets a row in the gradebook ($queue.missing: `ID<tab>NAME<tab>LMS<tab>WHY`
# for those with no entry). $out/work/.roster: `ID<tab>NAME<tab>LMS<tab>EXTENSION<tab>ADJUSTMENT`.
batch_roster() {
    roster=$out/work/.roster
    : >"$roster.$$"
    if [ -n "${ROSTER:-}" ]; then
        [ -f "$ROSTER" ] || die "ROSTER=$ROSTER is not a file"
        # fields trimmed; a quoted name "Last, First" keeps its comma
        # (Excel's "CSV UTF-8" begins with a byte order mark, which would be the first id's)
        LC_ALL=C sed "1s/^$(printf '\357\273\277')//; s/\r\$//" "$ROSTER" | awk '
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
              for (i = 1; i <= 5; i++) { if (i > n) v[i] = ""; gsub(/^[[:space:]]+|[[:space:]]+$/, "", v[i]); gsub(/\t/, " ", v[i]) } }
            NR == 1 && tolower(v[1]) == "id" { next }
            { print v[1] "\t" v[2] "\t" v[3] "\t" v[4] "\t" v[5] }' >"$roster.$$" || die "cannot read ROSTER=$ROSTER"
        # an extension: whole days past every deadline, 0 or more; an adjustment: points added to
        # the total (a minus takes some off), as a plain decimal
        bad=$(awk -F '\t' '($4 != "" && $4 !~ /^[0-9]+$/) || ($5 != "" && $5 !~ /^-?[0-9]+(\.[0-9]+)?$/) {
            print $1 ": extension \"" $4 "\", adjustment \"" $5 "\""; exit }' "$roster.$$")
        [ -z "$bad" ] || die "ROSTER=$ROSTER: $bad: an extension is whole days (0 or more), an adjustment points (-1.5, 2)"
        bad=$(cut -f1 "$roster.$$" | grep -v -x '[A-Za-z0-9_][A-Za-z0-9._-]*' | head -n 1)
        [ -z "$bad" ] || die "ROSTER=$ROSTER: id \"$bad\": letters, digits, . _ - only"
        dup=$(cut -f1 "$roster.$$" | sort | uniq -d | head -n 1)
        [ -z "$dup" ] || die "ROSTER=$ROSTER: id $dup is there twice"
        # a platform's number names one student: an lms number once in its column, and never
        # another row's id (a download of it would be either's). Compared as strings: awk would
        # take 01001 for 1001
        bad=$(awk -F '\t' 'NR == FNR { ids[$1] = 1
                if ($3 == "") next
                if ($3 in by) { print "lms number " $3 " is on two rows (" by[$3] ", " $1 "): each student has their own"; exit }
                by[$3] = $1; next }
            $3 != "" && $3 "" != $1 "" && ($3 in ids) {
                print $1 "'"'"'s lms number " $3 " is also the id of another row: correct that lms, or give the row " $3 " an id that is no platform number"; exit }' \
            "$roster.$$" "$roster.$$")
        [ -z "$bad" ] || die "ROSTER=$ROSTER: $bad"
    fi
    mv "$roster.$$" "$roster"
}

# the roster's id of an LMS number, and its name: the row whose lms it is, else the row whose id
# it is (batch_roster refuses a roster where both are rows, but not each other's), else the number
# itself. As strings: awk compares numbers as numbers, 01001 equal to 1001
batch_roster_id() { # batch_roster_id NUMBER -> ID<tab>NAME
    awk -F '\t' -v n="$1" '$3 "" == n "" { lms = $1 "\t" $2; exit }
        $1 "" == n "" && own == "" { own = $1 "\t" $2 }
        END { print (lms != "" ? lms : own != "" ? own : n "\t") }' "$out/work/.roster"
}

batch_queue() {
    queue=${queue:-$out/work/.queue}
    batch_roster
    # built aside, then renamed: a Slurm job writing the class files may be reading the old one
    next=$queue.$$
    : >"$next"
    : >"$next.info"
    : >"$next.times"
    : >"$next.skipped"
    rm -rf "$queue.intake" && mkdir -p "$queue.intake" || die "cannot create $queue.intake"
    sandbox=""
    command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true 2>/dev/null && sandbox=bwrap
    # (a platform's zip holds every upload: each file under the class cap, 4 GB)
    stage_contained "$queue.intake" 4294967296 "$intake" class "$subs" "$queue.intake" \
        >"$next.records" 2>"$next.said"
    case $? in
    0) ;;
    1) die "SUBMISSIONS=$subs: $(tail -n 1 "$next.records")" ;;
    *) die "SUBMISSIONS=$subs could not be read: $(tail -n 1 "$next.said")" ;;
    esac
    : >"$next.worksheet"
    [ -n "${WORKSHEET:-}" ] && "$intake" worksheet "$WORKSHEET" >"$next.worksheet" 2>/dev/null
    sed -n 's/^skipped //p' "$next.said" | while IFS= read -r line; do
        say "$who: skipped $line" >&2
        printf '%s\n' "$line" >>"$next.skipped"
    done
    # (read at the unit separator: a tab is blank to read, and empty fields would merge)
    tab=$(printf '\t') us=$(printf '\037')
    tr '\t' '\037' <"$next.records" | while IFS="$us" read -r key platform number person late epoch source uploads; do
        uploads=$(printf '%s' "$uploads" | tr '\037' '\t')
        lms="" full=""
        if [ "$platform" = plain ]; then
            id=$key
            full=$(awk -F '\t' -v id="$id" '$1 "" == id "" { print $2; exit }' "$out/work/.roster")
        else
            lms=$number full=$person
            if [ "$platform" = moodle ]; then
                said=$(awk -F '\t' -v n="$number" '$1 "" == n "" { print $2; exit }' "$next.worksheet")
                [ -n "$said" ] && epoch=$said source="Moodle's grading worksheet"
            fi
            mapped=$(batch_roster_id "$lms")
            id=${mapped%%"$tab"*}
            [ -n "${mapped#*"$tab"}" ] && full=${mapped#*"$tab"}
        fi
        names=$(printf '%s\n' "$uploads" | tr '\t' '\n' | sed 's,.*/,,' | paste -sd '|' | sed 's/|/, /g')
        if cut -f1 "$next" | grep -qxF -- "$id"; then
            say "$who: skipped $names: student id $id is taken by another entry" >&2
            printf '%s: student id %s is taken by another entry\n' "$names" "$id" >>"$next.skipped"
            continue
        fi
        if [ -s "$out/work/.roster" ] && ! cut -f1 "$out/work/.roster" | grep -qxF -- "$id"; then
            say "$who: $names: $id is not on the roster (graded all the same)" >&2
        fi
        printf '%s\t%s\n' "$id" "$uploads" >>"$next"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$full" "$lms" "${late:+canvas}" "$names" "$platform" \
            >>"$next.info"
        printf '%s\t%s\t%s\n' "$id" "$epoch" "$source" >>"$next.times"
    done
    rm -f "$next.records" "$next.said" "$next.worksheet"
    # the roster's students with no entry; one whose id or lms number is a part of a skipped
    # upload's name (between _, or before a .: bob.rar, a name read two ways) is not said to have
    # handed in nothing: that upload may be theirs, and skipped.txt has it
    awk -F '\t' 'FILENAME == ARGV[1] { i = index($0, ": "); name[FNR] = i ? substr($0, 1, i - 1) : $0; why[FNR] = $0; next }
        FILENAME == ARGV[2] { have[$1] = 1; next }
        function named(key, i, k, t, tok) {
            if (key == "") return 0
            for (i in name) {
                k = split(name[i], tok, "_")
                for (t = 1; t <= k; t++) if (tok[t] "" == key "" || index(tok[t], key ".") == 1) return i
            }
            return 0
        }
        !($1 in have) { s = named($1); if (!s) s = named($3)
            print $1 "\t" $2 "\t" $3 "\tmissing: " (s ? "nothing graded: an upload that names them was skipped (" why[s] ")" : "nothing submitted") }' \
        "$next.skipped" "$next" "$out/work/.roster" >"$next.missing"
    for part in info times skipped missing; do
        mv "$next.$part" "$queue.$part" || die "cannot write $queue.$part"
    done
    mv "$next" "$queue" || die "cannot write $queue"
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
# to be current. Every upload is staged here, once a run (the intake, in a sandbox where
# bubblewrap runs), into $staged/ID: sub/ (the editable files, which grade_one.sh grades and the
# similarity report reads), status and took (what the intake said). STATUS=1 stages beside a
# running batch into a folder of its own.
batch_stamps() {
    settings_stamp=$(batch_settings_stamp)
    BATCH_SETTINGS_STAMP=$settings_stamp
    export BATCH_SETTINGS_STAMP
    sandbox=""
    command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true 2>/dev/null && sandbox=bwrap
    staged=${staged:-$out/work/staged}
    single=$(stage_single "${only:-$(batch_config_exercises)}")
    stamps=$queue.stamps
    next=$stamps.$$
    : >"$next"
    rm -rf "$staged" && mkdir -p "$staged" || die "cannot create $staged"
    tab=$(printf '\t')
    while IFS="$tab" read -r id uploads; do
        s=$staged/$id
        mkdir -p "$s" || die "cannot create $s"
        # shellcheck disable=SC2086 # the uploads, split at tabs only
        (IFS=$tab && set -f && stage_entry "$s" "$single" $uploads && printf '%s\n' "$stage_status" >"$s/status" &&
            printf '%s\n' "$stage_took" >"$s/took" && printf '%s\t%s\n' "$id" "$(stage_stamp "$s" $uploads)" >>"$next") ||
            die "cannot stage the uploads of $id into $s"
    done <"$queue"
    mv "$next" "$stamps" || die "cannot write $stamps"
}

# the config's `exercises` line (the exercises it grades), or nothing
batch_config_exercises() {
    [ -n "${config:-}" ] && [ -f "$config" ] || return 0
    sed -n 's/^[[:space:]]*exercises[[:space:]]*=[[:space:]]*\([^#]*\).*/\1/p' "$config" | tail -n 1 | tr ',' ' '
}

# the stamp a current result of ID has (empty when the front end computed none)
batch_stamp_of() { # batch_stamp_of ID
    [ -f "${queue:-$out/work/.queue}.stamps" ] || return 0
    printf 'settings %s\nupload %s\n' "${BATCH_SETTINGS_STAMP:-}" \
        "$(awk -F '\t' -v id="$1" '$1 "" == id "" { print $2; exit }' "${queue:-$out/work/.queue}.stamps")"
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
            printf '%s\n' "$who: created the seed secret $secret_file (keep it: regrades need it)"
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

# write the seed of every student in the queue that batch_wanted says needs grading: from the
# secret, the id and the upload's stamp (its staged files' hash), so that a resubmission draws its
# hidden sizes, data and memory-check size afresh, and the same files get the same ones again
batch_seeds() { # batch_seeds LIST (the queue's format)
    while IFS="$(printf '\t')" read -r id entry; do
        batch_wanted "$id" || continue
        upload=$(awk -F '\t' -v id="$id" '$1 "" == id "" { print $2; exit }' "${queue:-$out/work/.queue}.stamps" 2>/dev/null)
        stage_seed "$secret" "$id${upload:+:$upload}" "$out/private/seeds/$id" ||
            die "cannot write a seed into $out/private/seeds"
    done <"$1"
}
