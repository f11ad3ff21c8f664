# grader/batch/stage.sh - what `make batch` (lib.sh, grade_one.sh) and Gradescope's run_autograder
# (gradescope.sh) share: a student's upload turned into a staged submission of editable files
# only, and the hidden seed derived from the instructor's secret. Sourced (POSIX sh), not run.
#
# The caller sets: root (the workbook), unpacker (build/grader/unpack), max_file and
# max_unpacked (bytes), sandbox ("bwrap" where bubblewrap works, else empty).
# shellcheck shell=sh disable=SC2154 # (those variables are the caller's)

# the only files a student may edit; everything else of an upload is never read or run
stage_editable="main.c kernel.cl answers.txt kernel.cu main.cu"

# archives: build/grader/unpack checks each member as it writes it (only plain files and folders,
# no absolute path or .., the cap counted on the bytes it writes, not on what the headers claim);
# a time limit, no stdin, a cap per file, and where bubblewrap works a sandbox in which DIR is the
# only writable place (libarchive parses what a student wrote)
stage_unpack() { # stage_unpack ARCHIVE DIR -> 0, or 1 with the reason on stdout (run in a subshell)
    unpack_dir=$2
    set -- "$unpacker" --max-bytes "$max_unpacked" "$1" "$2"
    [ -n "$sandbox" ] && set -- bwrap --ro-bind / / --dev /dev --bind "$unpack_dir" "$unpack_dir" \
        --unshare-net --unshare-ipc --unshare-pid --die-with-parent --new-session "$@"
    said=$( (ulimit -f $((max_unpacked / 512 + 1)) && timeout 120 "$@" </dev/null 2>&1))
    case $? in
    0) return 0 ;;
    1) printf '%s\n' "$said" | grep -m 1 '^archive refused: ' || echo "archive refused" ;;
    124) echo "archive refused: unpacking took longer than 120 s" ;;
    *) echo "archive could not be unpacked: $(printf '%s\n' "$said" | tail -n 1 | cut -c1-200)" ;;
    esac
    return 1
}

# copy one editable file into the staged submission, if it is a plain file of sane size
stage_take() { # stage_take FROM TO
    [ -f "$1" ] && [ ! -L "$1" ] || return 1
    [ "$(wc -c <"$1")" -le "$max_file" ] || return 1
    # its time too: the upload's time where nothing better says when it came (grade_one.sh)
    cp --preserve=timestamps "$1" "$2"
}

# 0 when a file or folder name under DIR holds a line break (the finder below reads names by line)
stage_has_line_break() { # stage_has_line_break DIR
    stage_nl=$(printf '\nx') stage_nl=${stage_nl%x}
    find "$1" -name "*$stage_nl*" 2>/dev/null | grep -q .
}

# Every exercise's folder found in SRC (NN_name/, exercises/NN_name/, top/exercises/NN_name/: the
# one nearest the top, never under a solutions/) gives its editable files to DEST/NN_name/. An
# exercise DEST has already is left alone, so a second SRC only adds what the first lacked.
stage_exercises() { # stage_exercises SRC DEST
    for stage_ex in $(cd "$root/solutions" && ls -d [0-9][0-9]_*); do
        [ -d "$2/$stage_ex" ] && continue
        stage_found=$(find "$1" -maxdepth 4 -type d -name "$stage_ex" ! -path '*/solutions/*' \
            2>/dev/null | awk '{ print length($0) " " $0 }' | sort -n | head -n 1 | cut -d' ' -f2-)
        [ -n "$stage_found" ] || continue
        mkdir -p "$2/$stage_ex"
        for stage_f in $stage_editable; do stage_take "$stage_found/$stage_f" "$2/$stage_ex/$stage_f"; done
    done
}

# The hidden seed of one submission, from the secret and an id (the same id, the same inputs at a
# regrade), written to FILE for the grader's --seed-file: never on a command line
# (/proc/*/cmdline is the whole machine's to read), a file only its owner reads
stage_seed() { # stage_seed SECRET ID FILE
    stage_hash=$(printf '%s:%s' "$1" "$2" | sha256sum | cut -c1-15)
    (umask 077 && printf '%s\n' "$((0x$stage_hash))" >"$3")
}

# An upload (a folder, .zip, .tar.gz) staged into DIR/sub, its editable files only (an archive's
# members unpacked into DIR/unpacked first). Sets stage_status: graded (to be graded), "refused:
# WHY", or "empty: no exercise folder" (nothing to grade: no grader runs, and it says why)
stage_entry() { # stage_entry ENTRY DIR
    stage_status=graded
    stage_src=$1
    mkdir -p "$2/sub" "$2/unpacked" || return 1
    case $1 in
    *.zip | *.tar.gz | *.tgz)
        stage_why=$(stage_unpack "$1" "$2/unpacked") || stage_status="refused: $stage_why"
        stage_src=$2/unpacked ;;
    esac
    if [ "$stage_status" = graded ] && stage_has_line_break "$stage_src"; then
        stage_status="refused: a file or folder name holds a line break"
    fi
    if [ "$stage_status" = graded ]; then
        stage_exercises "$stage_src" "$2/sub"
        [ -n "$(ls "$2/sub")" ] || stage_status="empty: no exercise folder"
    fi
    return 0
}

# What a result was graded from, as one hash: SETTINGS (the grader's version, the config, the
# exercise list), the staged files (names and contents) and stage_status; for a refused upload
# its bytes too (a new upload refused for the same reason is another one). Two runs that stage
# the same files with the same settings give the same stamp: a result with another is stale.
stage_stamp() { # stage_stamp ENTRY DIR SETTINGS -> the stamp on stdout (after stage_entry)
    {
        printf '%s\n%s\n' "$3" "$stage_status"
        case $stage_status in
        refused:*) if [ -f "$1" ]; then sha256sum <"$1"; else find "$1" | LC_ALL=C sort; fi ;;
        esac
        (cd "$2/sub" && find . -type f | LC_ALL=C sort | while IFS= read -r stage_f; do
            sha256sum "$stage_f"; done)
    } | sha256sum | cut -c1-64
}
