#!/bin/sh
# tests/check_skeletons.sh - every exercise folder holds the same files as its solution, and the
# two differ only inside TODO(student) blocks; each exercise has at least one such block.
# The exercises are the skeletons as committed ($SKELETONS, as tests/run.sh exports them, or
# tests/skeletons.sh's own export): a student's work in exercises/ is no skeleton.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skeletons=${SKELETONS:-}
if [ -z "$skeletons" ]; then
    skeletons=$tmp/skeletons
    sh "$root/tests/skeletons.sh" "$skeletons" || exit 1
fi
# the file with the contents of every TODO(student) block removed (marker lines kept)
strip_blocks() {
    awk '/TODO\(student\) end/ { inside = 0 } !inside { print } /TODO\(student\) begin/ { inside = 1 }' "$1"
}
files_of() { # the files of a folder that git would take, one line
    git -C "$root" ls-files --cached --others --exclude-standard -- "$1" | sed "s|^$1/||" | sort | tr '\n' ' '
}
skeleton_files_of() { # the files of a skeleton folder (an export: what was committed), one line
    (cd "$skeletons/$1" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
}
status=0
for sol in "$root"/solutions/[0-9][0-9]_*; do
    name=$(basename "$sol")
    ex=$skeletons/$name
    bad=0
    if [ ! -d "$ex" ]; then
        echo "FAIL exercises/$name is missing"; status=1; continue
    fi
    if [ "$(files_of "solutions/$name")" != "$(skeleton_files_of "$name")" ]; then
        echo "FAIL $name: solution files [$(files_of "solutions/$name")], exercise files [$(skeleton_files_of "$name")]"
        bad=1
    fi
    for f in README.md Makefile; do
        [ -f "$sol/$f" ] || { echo "FAIL $name: $f missing"; bad=1; }
    done
    # every file: the same outside TODO(student) blocks
    for f in $(files_of "solutions/$name"); do
        [ -f "$ex/$f" ] || continue
        strip_blocks "$sol/$f" >"$tmp/sol"
        strip_blocks "$ex/$f" >"$tmp/ex"
        if ! cmp -s "$tmp/sol" "$tmp/ex"; then
            echo "FAIL $name/$f: exercise and solution differ outside TODO(student) blocks:"
            diff "$tmp/sol" "$tmp/ex" | head -20
            bad=1
        fi
    done
    begins=$(cat "$ex"/* 2>/dev/null | grep -c 'TODO(student) begin')
    ends=$(cat "$ex"/* 2>/dev/null | grep -c 'TODO(student) end')
    if [ $bad -eq 0 ]; then
        echo "ok   $name: exercise = solution outside its $begins TODO(student) blocks"
    else
        status=1
    fi
done
exit $status
