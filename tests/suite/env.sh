# shellcheck shell=sh disable=SC2034 # (what it sets is read by the steps that source it)
# tests/suite/env.sh - what make test's steps (tests/suite/*.sh) share, sourced by each: root (the
# workbook, also the working directory), grader, jobs (this machine's cores), tmp (SUITE_DIR,
# the folder tests/run.sh shares between its steps, or a folder of the step's own, removed at its
# end), TUNING (no make tune file: tests/tune.sh tests those) and SKELETONS (the skeletons as
# committed: tests/skeletons.sh).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
grader=$root/build/grader/grader
jobs=$(nproc 2>/dev/null || echo 2)
if [ -n "${SUITE_DIR:-}" ]; then
    tmp=$SUITE_DIR
else
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
fi
if [ -z "${TUNING:-}" ]; then
    TUNING=$tmp/no-tuning
    mkdir -p "$TUNING"
    export TUNING
fi
if [ -z "${SKELETONS:-}" ]; then
    SKELETONS=$tmp/skeletons
    sh tests/skeletons.sh "$SKELETONS" || { echo "cannot export the skeletons"; exit 1; }
    export SKELETONS
fi
