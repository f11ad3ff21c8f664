#!/bin/sh
# grader/batch/gradescope.sh - Gradescope's run_autograder: grade a submission with a pristine workbook.
#
#   sh /autograder/source/grader/batch/gradescope.sh [SUBMISSION] [RESULTS]   (EX=id: one exercise)
#
# SUBMISSION (default /autograder/submission) is the student's upload: only the files a student
# may edit (main.c, kernel.cl; answers.txt, kernel.cu, main.cu of 06) are taken from its NN_name/
# folders, as `make batch` takes them; nothing else of it is run or read, least of all a Makefile
# or common/ (one line in a Makefile the autograder ran would write any grade.json it liked).
# This workbook (the autograder's own copy, /autograder/source) builds and runs the grader, which
# writes Gradescope's results.json to RESULTS (default /autograder/results/results.json).
set -u
source=$(cd "$(dirname "$0")/../.." && pwd)
submission=${1:-/autograder/submission}
results=${2:-/autograder/results/results.json}
editable="main.c kernel.cl answers.txt kernel.cu main.cu"
max_file=1048576

[ -d "$submission" ] || { echo "gradescope: no submission folder $submission" >&2; exit 2; }
stage=$(mktemp -d) || exit 2
trap 'rm -rf "$stage"' EXIT
for ex in $(cd "$source/solutions" && ls -d [0-9][0-9]_*); do
    # the exercise folder nearest the top: NN_name/, exercises/NN_name/, a-copy/exercises/...
    found=$(find "$submission" -maxdepth 4 -type d -name "$ex" ! -path '*/solutions/*' 2>/dev/null |
        awk '{ print length($0) " " $0 }' | sort -n | head -n 1 | cut -d' ' -f2-)
    [ -n "$found" ] || continue
    mkdir -p "$stage/$ex"
    for f in $editable; do
        # plain files of sane size only: no links out of the upload
        [ -f "$found/$f" ] && [ ! -L "$found/$f" ] && [ "$(wc -c <"$found/$f")" -le $max_file ] &&
            cp "$found/$f" "$stage/$ex/$f"
    done
done
chmod -R a+rX "$stage"
rm -f "$source/results/grade.json"
# make grade exits 0 with a grade (full marks or not) and 2 without one (then no grade.json);
# its seed is drawn afresh for this submission: it shows in this output and the logs under
# $source/results/, which stay the instructor's, never in the results.json students see
make -s -C "$source" grade SUBMISSION="$stage" EX="${EX:-}"
[ -s "$source/results/grade.json" ] || { echo "gradescope: the grader wrote no grade.json" >&2; exit 2; }
mkdir -p "$(dirname "$results")" && cp "$source/results/grade.json" "$results"
