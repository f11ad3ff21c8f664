#!/bin/sh
# grader/batch/gradescope.sh - the body of Gradescope's run_autograder (the bundle that
# `make gradescope` builds runs it): grade one submission with the autograder's own workbook.
#
#   sh /autograder/source/grader/batch/gradescope.sh [SUBMISSION] [RESULTS]
#
# SUBMISSION (default /autograder/submission) is the student's upload, in any form `make batch`
# takes: NN_name/ or exercises/NN_name/ folders anywhere, or a .zip / .tar.gz (.tgz) holding them.
# Only the files a student may edit (main.c, kernel.cl; answers.txt, kernel.cu, main.cu of 06)
# are taken; nothing else of it is read or run, least of all a Makefile or common/. This workbook
# (/autograder/source, built by setup.sh) grades them, and RESULTS (default
# /autograder/results/results.json) gets Gradescope's results.json.
#
# The bundle's gradescope/ folder holds what `make gradescope` baked in: `exercises` (the ids
# graded; empty: all), `grader.conf` (CONFIG, if given) and `secret`. The hidden seed comes from
# the secret and Gradescope's submission id (submission_metadata.json beside SUBMISSION), so a
# regrade draws the same inputs; the secret file is removed once read (Gradescope gives every
# run a fresh copy of the bundle), before any student code runs.
#
# Exit 0: results.json written (a grade, or 0 with a message when no exercise was found).
# Exit 2: the grader could not grade, or the machine was too busy to grade fairly: no
# results.json, so Gradescope shows the student that the autograder failed and to contact the
# course staff, rather than recording a 0; the reason is in this output (the instructor's).
set -u
source=$(cd "$(dirname "$0")/../.." && pwd)
submission=${1:-/autograder/submission}
results=${2:-/autograder/results/results.json}
metadata=$(dirname "$submission")/submission_metadata.json
baked=$source/gradescope
root=$source
grader=$source/build/grader/grader

die() {
    echo "gradescope: $*" >&2
    echo "gradescope: not graded; the student is told the autograder failed (regrade once fixed)" >&2
    exit 2
}
rm -f "$results"
[ -d "$submission" ] || die "no submission folder $submission"
[ -x "$grader" ] && [ -x "$source/build/grader/intake" ] || die "no grader in $source/build: setup.sh builds it"
command -v jq >/dev/null 2>&1 || die "jq is missing: setup.sh installs it"
. "$source/grader/batch/stage.sh"

# ---------------------------------------------------------------- the secret, read and removed
[ -s "$baked/secret" ] || die "no secret in $baked (run_autograder removes it as it reads it: run" \
    "it on a fresh copy of the bundle)"
chmod 0600 "$baked/secret" && chmod 0700 "$baked" || die "cannot protect $baked/secret"
secret=$(cat "$baked/secret") && rm -f "$baked/secret" || die "cannot read $baked/secret"
[ -n "$secret" ] || die "the secret in $baked is empty"

work=$(mktemp -d /tmp/gradescope.XXXXXX) || die "cannot create a work folder"
trap 'rm -rf "$work"' EXIT
# the grader makes folders below it for the students' programs, which run under their own uid
chmod 0755 "$work"
mkdir -p "$(dirname "$results")" || die "cannot create folders"
sandbox=""
command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true 2>/dev/null && sandbox=bwrap

# ---------------------------------------------------------------- the upload staged
# The intake make batch uses (stage.sh): the submission folder is the student's one upload
# (folders, archives Gradescope kept as files, loose kernel.cl and main.c for an assignment of
# one exercise)
baked_ex=$(cat "$baked/exercises" 2>/dev/null)
stage_entry "$work" "$(stage_single "${baked_ex:-$(sed -n 's/^[[:space:]]*exercises[[:space:]]*=[[:space:]]*\([^#]*\).*/\1/p' \
    "$baked/grader.conf" 2>/dev/null | tail -n 1 | tr ',' ' ')}")" "$submission" || die "cannot stage the upload"
notes=""
case $stage_status in
refused:*) notes="The upload was ${stage_status#refused: }." ;;
empty:*) notes="Its ${stage_status#empty: }." ;;
esac
[ -n "$stage_took" ] && echo "gradescope: the intake $(printf '%s\n' "$stage_took" | paste -sd ';' | sed 's/;/; /g')"
# the exercises baked in (EX of make gradescope); none: the config's, or every one. Each is
# graded, found or not: one the upload lacks scores 0 of its points, so every student's maximum
# is the assignment's
exercises=${baked_ex:-$(cd "$source/solutions" && ls -d [0-9][0-9]_*)}
found=""
for ex in $exercises; do [ -d "$work/sub/$ex" ] && found="$found $ex"; done

# nothing to grade: a 0 that says what was expected, not an error; graded all the same (every
# exercise missing), so that its maximum is every student's
expected=""
if [ -z "$found" ]; then
    expected=$(for ex in $exercises; do printf '%s/ ' "$ex"; done)
    echo "gradescope: no exercise folder in the upload (expected: $expected) $notes"
fi

# ---------------------------------------------------------------- the seed and the grader
# Gradescope's submission id: the same at a regrade. Without one (a run outside Gradescope), the
# staged files' own hash: the same files, the same inputs
id=$(jq -r '.id // empty' "$metadata" 2>/dev/null | tr -cd 'A-Za-z0-9_.-' | cut -c1-64)
if [ -z "$id" ]; then
    id=files-$(cd "$work/sub" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-32)
    echo "gradescope: no submission id in $metadata: the seed comes from the files' hash"
fi
stage_seed "$secret" "gradescope:$id" "$work/seed" || die "cannot write the seed file"
unset secret
set -- "$grader" --root "$source" --submission "$work/sub" --work "$work/grade" \
    --results "$work/logs" --json "$work/grade.json" --seed-file "$work/seed"
[ -f "$baked/grader.conf" ] && set -- "$@" --config "$baked/grader.conf"
for ex in $baked_ex; do set -- "$@" --ex "$ex"; done
which=${baked_ex:-"the config's exercises, or every one"}
echo "gradescope: submission $id: found${found:- nothing}; grading $which"
# its output (this script's stdout) is for the instructor only: results.json hides it. It names
# the work folder, gone once the run ends: the staged upload is shown as the upload, and the
# lines that point at the work folder's logs and JSON are left out (results.json is the record)
"$@" </dev/null >"$work/grader.txt" 2>&1
code=$?
sed -e '/^Reports of each exercise: /d' -e '/^Gradescope results: /d' \
    -e "s|$work/sub|/autograder/submission|g" -e "s|$work|(the autograder's work folder)|g" \
    "$work/grader.txt"
case $code in
0 | 1) ;;
3) die "the machine was too busy to grade fairly (the grader exited 3): regrade the submission" ;;
*) die "the grader could not grade (it exited $code; its output is above)" ;;
esac
[ -s "$work/grade.json" ] || die "the grader wrote no results.json"

if [ -n "$expected" ]; then # (no exercise folder: one test, 0 of the maximum, says what to upload)
    jq --arg expected "${expected% }" --arg notes "$notes" '{
        score: 0, max_score: .extra_data.max_score, extra_data, visibility: "visible",
        stdout_visibility: "hidden",
        output: "Nothing was graded: no exercise folder was found in your upload.",
        tests: [{name: "submission", score: 0, max_score: .extra_data.max_score, status: "failed",
            visibility: "visible",
            output: ("Upload the folders " + $expected + " (or exercises/ holding them, or a .zip or" +
                " .tar.gz of either), each with the files you edited: main.c and kernel.cl" +
                " (06 also answers.txt, kernel.cu, main.cu). Only those files are graded." +
                (if $notes == "" then "" else "\n" + $notes end))}],
        leaderboard: []}' "$work/grade.json" >"$results.tmp" && mv "$results.tmp" "$results" ||
        die "cannot write $results"
    exit 0
fi

# Gradescope's fields on the grader's results: the maximum at the top as well, who sees what
# (the tests, their output, timing and leaderboard: the students; the grader's full output, the
# log above: the instructor only), and a word on exercises not found or archives refused
missing=""
for ex in $baked_ex; do [ -d "$work/sub/$ex" ] || missing="$missing $ex/"; done
jq --arg missing "${missing# }" --arg notes "$notes" '
    .max_score = .extra_data.max_score
    | .visibility = "visible" | .stdout_visibility = "hidden"
    | .tests |= map(.visibility = "visible")
    | .output += (if $missing == "" then "" else "\nNot in your upload (0 points): " + $missing end)
    | .output += (if $notes == "" then "" else "\n" + $notes end)' \
    "$work/grade.json" >"$results.tmp" && mv "$results.tmp" "$results" ||
    die "cannot write $results"
jq -r '"gradescope: \(.score)/\(.max_score) written to results.json"' "$results"
