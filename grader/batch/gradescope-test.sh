#!/bin/sh
# grader/batch/gradescope-test.sh - `make gradescope-test SUBMISSION=dir|archive [RESULTS=dir]`:
# the instructor's own autograder zip (RESULTS/gradescope/autograder.zip, what `make gradescope`
# made; ZIP=file another) tried on a sample upload before the students upload theirs, as
# Gradescope runs it: the zip unpacked into a fresh /autograder tree that a bubblewrap sandbox
# mounts at /autograder (this machine's root read-only, a private /tmp and HOME), setup.sh once,
# then run_autograder on the upload in submission/. Prints run_autograder's output (what the
# instructor sees on Gradescope) and the results.json a student would see, then checks that no
# text of results.json names a path that would not exist on Gradescope (the workbook is
# /autograder/source there; a temporary folder of the run is gone once it ends).
# Exit 0: graded and clean; 1: results.json names such a path; 2: no results.json (Gradescope
# would tell the student the autograder failed) or the test could not run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
zip=${ZIP:-${RESULTS:-$root/results}/gradescope/autograder.zip}
upload=${SUBMISSION:-}
die() {
    echo "make gradescope-test: $*" >&2
    exit 2
}
[ -n "$upload" ] && [ -e "$upload" ] ||
    die "SUBMISSION=dir (or a .zip / .tar.gz): a sample upload as a student would send it"
upload=$(cd "$(dirname "$upload")" && pwd)/$(basename "$upload")
[ -s "$zip" ] || die "no $zip: make gradescope first (RESULTS= or ZIP= for another)"
command -v unzip >/dev/null 2>&1 || die "unzip is missing: apt-get install unzip"
command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true 2>/dev/null ||
    die "bubblewrap is missing or cannot run here (apt-get install bubblewrap)"
tmp=$(mktemp -d) || die "cannot create a temporary folder"
trap 'rm -rf "$tmp"' EXIT
base=$tmp/autograder
mkdir -p "$base/source" "$base/submission" "$base/results"
(cd "$base/source" && unzip -q "$zip") || die "cannot unzip $zip"
cp "$base/source/run_autograder" "$base/run_autograder" || die "no run_autograder in $zip"
# Gradescope unzips a .zip upload; any other file stays a file in submission/
if [ -d "$upload" ]; then
    cp -a "$upload/." "$base/submission/"
else
    case $upload in
    *.zip) (cd "$base/submission" && unzip -q "$upload") || die "cannot unzip $upload" ;;
    *) cp "$upload" "$base/submission/" ;;
    esac
fi
printf '{"id": 1, "created_at": "%s", "users": []}\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    >"$base/submission_metadata.json"

# the sandbox: every top-level entry of / read-only but those it makes its own, the tree at
# /autograder (the same as tests/gradescope.sh's)
. "$root/grader/batch/root_binds.sh"
binds=$(root_binds)
sandbox() { # sandbox COMMAND: as root, /autograder the working folder
    # shellcheck disable=SC2086 # binds is options and their words
    bwrap $binds --ro-bind /sys /sys --proc /proc --dev /dev --perms 1777 --tmpfs /tmp \
        --tmpfs /root --bind "$base" /autograder --chdir /autograder --unsetenv TMPDIR \
        --setenv HOME /root sh -c "$1"
}
echo "make gradescope-test: setup.sh (Gradescope runs it once, as it builds the image)"
sandbox "bash /autograder/source/setup.sh" >"$tmp/setup.txt" 2>&1 ||
    { tail -n 30 "$tmp/setup.txt"; die "setup.sh failed (its output above)"; }
echo "make gradescope-test: run_autograder on $upload; its output (the instructor's):"
sandbox "./run_autograder" >"$tmp/run.txt" 2>&1
code=$?
cat "$tmp/run.txt"
json=$base/results/results.json
[ -s "$json" ] || die "run_autograder exited $code with no results.json: the student is told the autograder failed"
echo "make gradescope-test: results.json, as the student sees it:"
jq . "$json"
# every absolute path in its texts and in run_autograder's output must be one that Gradescope
# has: under /autograder as it stands once the run is over (this tree), or of the image's system
# (not the run's own /tmp or HOME, gone with it)
bad=0
{ jq -r '.. | strings' "$json"; cat "$tmp/run.txt"; } |
    grep -oE '(^|[^A-Za-z0-9._~/-])/[A-Za-z0-9._+-]+(/[A-Za-z0-9._+-]+)*' | sed 's/^[^/]//' |
    sort -u >"$tmp/paths"
while IFS= read -r path; do
    case $path in
    /tmp | /tmp/* | /root | /root/*) ;;
    /autograder | /autograder/*) [ -e "$base${path#/autograder}" ] && continue ;;
    *) [ -e "$path" ] && continue ;;
    esac
    echo "make gradescope-test: the autograder names $path, which does not exist on Gradescope" >&2
    bad=1
done <"$tmp/paths"
[ $bad -eq 0 ] && echo "make gradescope-test: run_autograder exited $code; its output and results.json name no path Gradescope lacks"
exit $bad
