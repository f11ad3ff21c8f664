#!/bin/sh
# grader/batch/gradescope-bundle.sh - `make gradescope [EX="id ..."] [CONFIG=file] [RESULTS=dir]`:
# the autograder zip to upload to Gradescope, results/gradescope/autograder.zip (RESULTS: in
# RESULTS/gradescope/ instead).
#
# Gradescope unpacks the zip into /autograder/source, runs its setup.sh once to build the image,
# and runs run_autograder (copied to /autograder/run_autograder) in a fresh copy of that image
# for every submission. The zip holds this workbook (the files git tracks; outside a git
# checkout, everything but build/ and results/), setup.sh and run_autograder at its root, and
# gradescope/: `exercises` (EX, one line), `grader.conf` (CONFIG) and `secret` (new random bytes,
# mode 0600) behind the hidden seeds. grader/batch/gradescope.sh is what run_autograder runs.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
grader=$root/build/grader/grader
out=${RESULTS:-$root/results}/gradescope
zip=$out/autograder.zip

die() {
    echo "gradescope: $*" >&2
    exit 2
}
[ -d "$root/solutions" ] ||
    die "this workbook is a handout (no solutions/): make gradescope in the instructor's workbook, whose zip has the reference solutions"
[ -x "$grader" ] || die "no grader at $grader: run make grader"
command -v zip >/dev/null 2>&1 || die "zip is missing: apt-get install zip"

# EX: ids or their numbers (04 or 04_local_B), each an exercise of this workbook
exercises=""
set -f # EX's words are names, never patterns
# shellcheck disable=SC2086 # EX is meant to split
set -- ${EX:-}
set +f
for ex in "$@"; do
    match=""
    for dir in "$root/solutions/$ex" "$root/solutions/$ex"_*; do
        case ${dir##*/} in [0-9][0-9]_*) [ -d "$dir" ] && match=${dir##*/} && break ;; esac
    done
    [ -n "$match" ] || die "EX: no exercise $ex (the exercises: $(cd "$root/solutions" && echo [0-9][0-9]_*))"
    exercises="$exercises${exercises:+ }$match"
done
# CONFIG: checked here, so that a mistake fails this make, not the students' submissions
config=${CONFIG:-}
if [ -n "$config" ]; then
    [ -f "$config" ] || die "CONFIG=$config is not a file"
    "$grader" --config "$config" --help >/dev/null || die "CONFIG=$config has an error (above)"
fi

stage=$out/stage
rm -rf "$stage" "$zip" && mkdir -p "$stage/gradescope" || die "cannot create $stage"
trap 'rm -rf "$stage"' EXIT
# the workbook: what git tracks (as it is in the working tree), or a copy without what is built
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
        xargs -0 tar -cf -) | tar -xf - -C "$stage" || die "cannot copy the workbook's tracked files"
else
    (cd "$root" && tar -cf - --exclude=./build --exclude=./results --exclude=./.git .) |
        tar -xf - -C "$stage" || die "cannot copy the workbook"
fi

printf '%s\n' "$exercises" >"$stage/gradescope/exercises"
[ -n "$config" ] && { cp "$config" "$stage/gradescope/grader.conf" || die "cannot copy $config"; }
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$stage/gradescope/secret") &&
    [ -s "$stage/gradescope/secret" ] || die "cannot make the secret"

# setup.sh: run once by Gradescope as root, from any folder
cat >"$stage/setup.sh" <<'SETUP'
#!/bin/sh
# Gradescope's setup.sh (from `make gradescope`): the packages the grader needs, then the grader.
set -u
cd "$(dirname "$0")" || exit 1
export DEBIAN_FRONTEND=noninteractive
# a compiler and make first: common/deps.sh takes them as given (Gradescope's images have them)
if ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    apt-get update -q && apt-get install -y -q --no-install-recommends gcc make libc6-dev || exit 1
fi
sh common/deps.sh batch || exit 1
make -s -j"$(nproc)" grader "$PWD/build/grader/intake" || exit 1
# the secret: root's alone (the students' programs run under another uid)
chown -R 0:0 gradescope && chmod 0700 gradescope && chmod 0600 gradescope/secret || exit 1
echo "setup.sh: the grader is built; exercises: $(cat gradescope/exercises)"
SETUP
cat >"$stage/run_autograder" <<'RUN'
#!/bin/sh
# Gradescope's run_autograder (from `make gradescope`): grader/batch/gradescope.sh says what it does.
exec sh /autograder/source/grader/batch/gradescope.sh /autograder/submission \
    /autograder/results/results.json
RUN
chmod 0755 "$stage/setup.sh" "$stage/run_autograder"
chmod 0700 "$stage/gradescope"

(cd "$stage" && zip -q -r -X "$zip" .) || die "zip failed"
echo "gradescope: $zip ($(du -k "$zip" | cut -f1) KB): exercises ${exercises:-all}${config:+, config $config}," \
    "a new secret (in the zip's gradescope/secret: keep the zip to regrade)"
