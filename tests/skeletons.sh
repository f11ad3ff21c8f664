#!/bin/sh
# tests/skeletons.sh - the exercise skeletons as committed, for the tests that need them unfilled:
# in a checkout where a student works, exercises/ holds the student's work, and `make test` must
# not grade that as the skeletons.
#
#   sh tests/skeletons.sh DEST   writes DEST/NN_name/ and says in one line where they came from
#
# In a git checkout: exercises/ of HEAD (git archive), whatever the working tree holds; the line
# says how many files of exercises/ differ from HEAD (the skeleton tests do not see them: commit a
# change to a skeleton to test it). Not a git checkout (a tarball): exercises/ as it stands, the
# programs built there left out, after a line saying that it must hold the unfilled skeletons.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: sh tests/skeletons.sh DEST}
mkdir -p "$dest" || exit 2
# the workbook's own .git (a file in a worktree), not a repository around a copy of it
if [ -e "$root/.git" ] && commit=$(git -C "$root" rev-parse --short -q --verify HEAD 2>/dev/null); then
    git -C "$root" archive HEAD exercises | tar -xf - -C "$dest" --strip-components=1 || exit 2
    changed=$(git -C "$root" status --porcelain -- exercises | wc -l)
    if [ "$changed" -eq 0 ]; then
        echo "skeletons: exercises/ as committed at HEAD ($commit), the same as the working tree"
    else
        echo "skeletons: exercises/ as committed at HEAD ($commit); the working tree's changes" \
            "to it ($changed files) are not tested as skeletons"
    fi
else
    echo "skeletons: not a git checkout: exercises/ is tested as it stands, as the unfilled" \
        "skeletons (filled-in exercises fail the skeleton tests)"
    cp -R "$root/exercises/." "$dest" || exit 2
    for dir in "$dest"/[0-9][0-9]_*/; do
        rm -f "$dir/$(basename "$dir")" # the program `make` built there
    done
fi
