#!/bin/sh
# grader/batch/submit.sh - the student's side of handing in (`make submit`): one .tar.gz of the
# exercise folders the student changed, the form `make batch`, Slurm and Gradescope all take.
#
#   SUBMISSION=exercises RESULTS=results [ID=name] [PRISTINE=dir] sh grader/batch/submit.sh
#
# A folder counts as changed when one of the files a student edits (stage.sh's list: main.c,
# kernel.cl; answers.txt, kernel.cu, main.cu of 06) differs from the skeleton: in a git checkout
# the skeleton is the upstream branch the workbook was cloned from (else HEAD), so work the
# student committed counts too; elsewhere PRISTINE, a fresh copy of the workbook's exercises/
# (without one every exercise folder is taken, which grades the same, only slower). A changed
# folder goes in with all its editable files (the grader needs both main.c and kernel.cl), and
# nothing else: a Makefile or notes are never read by the grader. (When it came is the
# platform's record, or the upload's own time on the instructor's disk, never its members'.)
# Exit 0: RESULTS/ID.tar.gz written (its path is the last line); 2: nothing to hand in.
# shellcheck disable=SC2154 # (stage_editable is stage.sh's)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
src=${SUBMISSION:-$root/exercises}
results=${RESULTS:-$root/results}
id=${ID:-submission}
pristine=${PRISTINE:-}
# shellcheck source=grader/batch/stage.sh disable=SC1091
. "$root/grader/batch/stage.sh"
die() {
    echo "make submit: $*" >&2
    exit 2
}
[ -d "$src" ] || die "no folder $src (SUBMISSION=dir: the folder of your NN_name/ exercise folders)"
src=$(cd "$src" && pwd)
case $id in *[!A-Za-z0-9._-]* | "" | .*) die "ID=$id: letters, digits, . _ - only" ;; esac

# the skeleton to compare with: git's upstream (else HEAD), or PRISTINE, or none
base=""
if [ -z "$pristine" ] && git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    base=$(git -C "$src" rev-parse -q --verify '@{upstream}' 2>/dev/null ||
        git -C "$src" rev-parse -q --verify HEAD 2>/dev/null)
fi
changed() { # changed FOLDER FILE: 0 when the student's FILE differs from the skeleton's
    if [ -n "$base" ]; then
        # a file the skeleton lacks, or one that differs (work tree or committed alike)
        (cd "$src/$1" && git cat-file -e "$base:./$2" 2>/dev/null) || return 0
        ! (cd "$src/$1" && git diff --quiet "$base" -- "$2" 2>/dev/null)
    elif [ -n "$pristine" ]; then
        ! cmp -s "$src/$1/$2" "$pristine/$1/$2"
    else
        return 0
    fi
}

list=$(mktemp) || die "cannot create a temporary file"
trap 'rm -f "$list"' EXIT
for dir in "$src"/[0-9][0-9]_*/; do
    [ -d "$dir" ] || continue
    ex=$(basename "$dir")
    take=0
    for f in $stage_editable; do
        [ -f "$dir$f" ] && changed "$ex" "$f" && take=1
    done
    [ $take -eq 1 ] || continue
    for f in $stage_editable; do
        [ -f "$dir$f" ] || continue
        [ "$(wc -c <"$dir$f")" -le 1048576 ] ||
            echo "make submit: $ex/$f is over 1 MB: the grader will not read it" >&2
        echo "$ex/$f" >>"$list"
    done
    echo "make submit: $ex"
done
[ -s "$list" ] || die "no exercise folder in $src differs from the skeleton: nothing to hand in"
if [ -n "$base" ]; then
    echo "make submit: (the exercises whose files differ from git's $(git -C "$src" rev-parse --abbrev-ref '@{upstream}' 2>/dev/null || echo HEAD))"
elif [ -n "$pristine" ]; then
    echo "make submit: (the exercises whose files differ from $pristine)"
else
    echo "make submit: (not a git checkout and no PRISTINE=dir: every exercise folder taken)"
fi
mkdir -p "$results" || die "cannot create $results"
archive=$(cd "$results" && pwd)/$id.tar.gz
if ! tar -czf "$archive.part" -C "$src" --owner=0 --group=0 --numeric-owner -T "$list" ||
    ! mv "$archive.part" "$archive"; then
    rm -f "$archive.part"
    die "cannot write $archive"
fi
echo "make submit: upload this file (Gradescope, your course's page) or hand it to your instructor:"
echo "$archive"
