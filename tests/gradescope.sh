#!/bin/sh
# tests/gradescope.sh [--fresh-root] - `make gradescope`'s autograder zip, as Gradescope runs it.
#
# The zip (EX=01_per_element and a CONFIG; a CONFIG with a mistake must fail the make) is unpacked into
# an /autograder tree that a bubblewrap sandbox mounts at /autograder (the real / is not touched):
# setup.sh once, then, each in a fresh copy of that tree as Gradescope gives every submission a
# fresh container, run_autograder on: the solution beside a Makefile and a common/ that would
# forge a full-marks grade if anything ran them; a planted bug; an empty upload; the solution as a
# .zip; and a host program that tries to read the secret and the seed file. Every results.json is
# held to Gradescope's documented fields, and none holds the hidden seed or the secret.
#
# By default the sandbox's root is this machine's (read-only). --fresh-root: a brand-new Debian 12
# root instead, ~/.cache/fresh-machine/bookworm-min.tar (debootstrap's minbase with gcc, make, git;
# ../shared/tools/fresh-machine-check builds it), where setup.sh installs every package from
# Debian's archives (network needed); skipped, with one line, where that root or bwrap is missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
fresh=0
[ "${1:-}" = --fresh-root ] && fresh=1
# (01, not 00: vadd's timed comparison moves 20 ms of memory traffic per command through fresh
# launch sets, all checked, about 15 s of each grading here; 01's is 3 s, and it is timed the same)
ex=01_per_element
if ! command -v bwrap >/dev/null 2>&1 || ! bwrap --ro-bind / / --dev /dev true 2>/dev/null; then
    echo "skip gradescope: bubblewrap is missing or cannot run here (apt-get install bubblewrap)"
    exit 0
fi
tarball=${XDG_CACHE_HOME:-$HOME/.cache}/fresh-machine/bookworm-min.tar
if [ $fresh = 1 ] && [ ! -s "$tarball" ]; then
    echo "skip gradescope --fresh-root: no Debian root at $tarball (../shared/tools/fresh-machine-check builds it)"
    exit 0
fi
tmp=$(mktemp -d)
# KEEP=1 keeps the trees, the results and the outputs, and says where
if [ "${KEEP:-0}" = 1 ]; then trap 'echo "gradescope: kept $tmp"' EXIT; else trap 'rm -rf "$tmp"' EXIT; fi
fails=0
check() { # check DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@" >/dev/null 2>&1; then echo "ok   gradescope: $what"; else echo "FAIL gradescope: $what"; fails=$((fails + 1)); fi
}
started=$(date +%s)

# ---------------------------------------------------------------- the zip
printf 'timeout = 20\n' >"$tmp/grader.conf"
printf 'timeout = twenty\n' >"$tmp/bad.conf"
# in a results folder of the test's own: the workbook's may hold the instructor's zip
make -s -C "$root" gradescope EX=$ex CONFIG="$tmp/bad.conf" RESULTS="$tmp/results" >"$tmp/bad.txt" 2>&1
check "a CONFIG with a mistake fails make gradescope" [ $? -ne 0 ]
zip=$tmp/results/gradescope/autograder.zip
make -s -C "$root" gradescope EX=$ex CONFIG="$tmp/grader.conf" RESULTS="$tmp/results" >"$tmp/make.txt" 2>&1
check "make gradescope EX=$ex CONFIG=... builds the zip" test -s "$zip"
base=$tmp/autograder
mkdir -p "$base/source" "$base/submission" "$base/results"
(cd "$base/source" && unzip -q "$zip") || { cat "$tmp/make.txt"; echo "FAIL gradescope: cannot unzip"; exit 1; }
check "setup.sh and run_autograder at the zip's root, executable" \
    test -x "$base/source/setup.sh" -a -x "$base/source/run_autograder"
check "the workbook is in it, nothing built" test -f "$base/source/Makefile" -a ! -e "$base/source/build"
check "EX and CONFIG baked in" grep -qx "$ex" "$base/source/gradescope/exercises"
check "the secret is the owner's alone (0600)" \
    [ "$(stat -c %a "$base/source/gradescope/secret")" = 600 ]
secret=$(cat "$base/source/gradescope/secret")
check "the secret is 32 random bytes, hex" sh -c "printf '%s' '$secret' | grep -qx '[0-9a-f]\{64\}'"
# Gradescope copies run_autograder to /autograder and runs it there
cp "$base/source/run_autograder" "$base/run_autograder"

# ---------------------------------------------------------------- the sandbox
# sandbox DIR COMMAND: COMMAND (sh -c) as root with DIR at /autograder, /autograder the working
# folder. This machine's root read-only, /autograder a mount point on a tmpfs at /: or the fresh
# Debian root, a copy of its own, writable (setup.sh installs packages into it)
if [ $fresh = 1 ]; then
    froot=$tmp/debian
    mkdir -p "$froot" && tar -C "$froot" -xf "$tarball" || { echo "FAIL gradescope: cannot unpack $tarball"; exit 1; }
    cp /etc/resolv.conf "$froot/etc/resolv.conf" 2>/dev/null
    mkdir -p "$froot/autograder"
    sandbox() {
        bwrap --bind "$froot" / --proc /proc --dev /dev --ro-bind /sys /sys --perms 1777 --tmpfs /tmp \
            --bind "$1" /autograder --chdir /autograder --unsetenv TMPDIR --setenv HOME /root \
            --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh -c "$2"
    }
else
    # every top-level entry of / but those the sandbox makes its own (names without spaces)
    . "$root/grader/batch/root_binds.sh"
    binds=$(root_binds)
    sandbox() {
        # shellcheck disable=SC2086 # binds is options and their words
        bwrap $binds --ro-bind /sys /sys --proc /proc --dev /dev --perms 1777 --tmpfs /tmp \
            --tmpfs /root --bind "$1" /autograder --chdir /autograder --unsetenv TMPDIR \
            --setenv HOME /root sh -c "$2"
    }
fi

# ---------------------------------------------------------------- setup.sh, once
start=$(date +%s)
sandbox "$base" "bash /autograder/source/setup.sh" >"$tmp/setup.txt" 2>&1
code=$?
setup_s=$(($(date +%s) - start))
check "setup.sh installs and builds the grader (exit $code, $setup_s s)" \
    test $code -eq 0 -a -x "$base/source/build/grader/grader" -a -x "$base/source/build/grader/intake"
[ $code -eq 0 ] || { tail -n 30 "$tmp/setup.txt"; exit 1; }

# ---------------------------------------------------------------- one submission
# submit NAME: grade $tmp/upload-NAME/ (filled by the caller) in a fresh copy of the tree, as
# submission number 4242 + n; its results.json in $tmp/NAME.json, its output in $tmp/NAME.txt,
# run_autograder's exit status in $tmp/NAME.code. A machine too busy to grade (not a verdict) is
# tried once more
n=0
submit() {
    n=$((n + 1))
    for _ in 1 2; do
        run=$tmp/run-$1
        rm -rf "$run" && cp -a "$base" "$run" && rmdir "$run/submission" &&
            cp -a "$tmp/upload-$1" "$run/submission" || return 1
        printf '{"id": %s, "created_at": "2026-11-24T03:00:00Z", "users": []}\n' $((4242 + n)) \
            >"$run/submission_metadata.json"
        sandbox "$run" "./run_autograder" >"$tmp/$1.txt" 2>&1
        echo $? >"$tmp/$1.code"
        grep -q "too busy to grade fairly" "$tmp/$1.txt" || break
    done
    cp "$run/results/results.json" "$tmp/$1.json" 2>/dev/null
    return 0
}

# the seed run_autograder derives for submission ID (its own helper): it must appear nowhere the
# student looks
. "$root/grader/batch/stage.sh"
seed_of() { # seed_of ID
    stage_seed "$secret" "gradescope:$1" "$tmp/seed" && cat "$tmp/seed"
}

# Gradescope's documented results.json fields, their types and allowed values; the score the sum
# of the tests', the maximum theirs; the run's output (Gradescope's stdout) hidden from students
schema='def vis: . == "hidden" or . == "after_due_date" or . == "after_published" or . == "visible";
    (.score | type) == "number" and (.max_score | type) == "number"
    and (.output | type) == "string" and (.visibility | vis) and .stdout_visibility == "hidden"
    and (.tests | type) == "array" and (.tests | length) > 0
    and all(.tests[]; (.name | type) == "string" and (.score | type) == "number"
        and (.max_score | type) == "number" and (.status == "passed" or .status == "failed")
        and (.output | type) == "string" and (.visibility | vis) and .score <= .max_score)
    and .score == ([.tests[].score] | add) and .max_score == ([.tests[].max_score] | add)
    and (.leaderboard | type) == "array"
    and all(.leaderboard[]; (.name | type) == "string" and (.value | type) == "number"
        and (.order == "asc" or .order == "desc"))'
common_checks() { # common_checks NAME
    json=$tmp/$1.json
    check "$1: run_autograder exits 0 (exit $(cat "$tmp/$1.code"))" [ "$(cat "$tmp/$1.code")" = 0 ]
    check "$1: results.json has Gradescope's fields, types and visibility values" jq -e "$schema" "$json"
    seed=$(seed_of $((4242 + n)))
    check "$1: the hidden seed is in neither results.json nor the output" \
        sh -c "! grep -qF '$seed' '$json' '$tmp/$1.txt'"
    check "$1: the secret is in neither results.json nor the output" \
        sh -c "! grep -qF '$secret' '$json' '$tmp/$1.txt'"
}

# 1. the solution, beside a Makefile and a common/ that would forge a full-marks grade if run
up=$tmp/upload-solution
mkdir -p "$up/$ex" "$up/common"
cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$up/$ex/"
forged='{"score": 100, "tests": [{"name": "all", "score": 100, "max_score": 100}]}'
for mk in "$up/Makefile" "$up/$ex/Makefile"; do
    printf 'grade:\n\tmkdir -p results && echo %s >results/grade.json && touch /autograder/HOSTILE_RAN\n' \
        "'$forged'" >"$mk"
done
printf '#error the submission common/ was used\n' >"$up/common/clu.h"
printf '__attribute__((constructor)) static void f(void) { }\n' >"$up/common/clu_env.c"
submit solution
common_checks solution
json=$tmp/solution.json
check "solution: the hostile Makefile did not run" test ! -e "$tmp/run-solution/HOSTILE_RAN"
check "solution: only $ex graded, by the grader (its tests, not the forged one)" \
    jq -e --arg e "$ex" 'all(.tests[]; .name | startswith($e + ": "))' "$json"
check "solution: every correctness test and the host program (built on the pristine common/) pass" \
    jq -e '[.tests[] | select(.name | test("correct at|host program"))] |
        length >= 2 and all(.[]; .status == "passed")' "$json"
check "solution: full marks, but for timing on a busy machine" \
    jq -e '.score > 0 and all(.tests[]; .status == "passed" or (.name | test("perf|speed|tim")))' "$json"
check "solution: students see the tests and the leaderboard" \
    jq -e 'all(.tests[]; .visibility == "visible") and .visibility == "visible"' "$json"

# 2. a planted bug: the guard stops one element short (the last element is never written)
up=$tmp/upload-planted
mkdir -p "$up/exercises/$ex"
cp "$root/solutions/$ex/main.c" "$up/exercises/$ex/"
sed 's/for (int k = 0; k < N; k++)/for (int k = 1; k < N; k++)/' "$root/solutions/$ex/kernel.cl" >"$up/exercises/$ex/kernel.cl"
submit planted
common_checks planted
check "planted (exercises/$ex/, its k loop starts at 1): points lost on correctness" \
    jq -e '.score < .max_score and any(.tests[]; (.name | test("correct at")) and .status == "failed")' \
    "$tmp/planted.json"

# 3. an empty upload: 0 and one message saying what was expected
up=$tmp/upload-empty
mkdir -p "$up" && echo "my answers" >"$up/README.txt"
submit empty
common_checks empty
check "empty: score 0, one test that names the folder expected" \
    jq -e --arg e "$ex/" '.score == 0 and (.tests | length) == 1 and (.tests[0].output | contains($e))' \
    "$tmp/empty.json"
check "empty: 0 of the maximum every student has (the solution's, $(jq .max_score "$tmp/solution.json"))" \
    [ "$(jq .max_score "$tmp/empty.json")" = "$(jq .max_score "$tmp/solution.json")" ]

# 4. the solution as an archive upload (exercises/$ex/ inside a .zip)
up=$tmp/upload-archive
mkdir -p "$up" "$tmp/zipped/exercises/$ex"
cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$tmp/zipped/exercises/$ex/"
(cd "$tmp/zipped" && zip -q -r "$up/work.zip" exercises)
submit archive
common_checks archive
check "archive: the .zip is unpacked and graded (correctness and host program pass)" \
    jq -e '[.tests[] | select(.name | test("correct at|host program"))] |
        length >= 2 and all(.[]; .status == "passed")' "$tmp/archive.json"

# 5. a host program that reads what it can of the secret and the seed files, prints it and fails
# (a failed host program's output is shown in its test); a README the student may read is the
# control: the probe does report what it can read
up=$tmp/upload-hostile
mkdir -p "$up/$ex"
cp "$root/solutions/$ex/kernel.cl" "$up/$ex/"
{
    printf '#include <dirent.h>\n#include <stdio.h>\n#include <stdlib.h>\n'
    cat "$root/solutions/$ex/main.c"
    cat <<'PROBE'
static void probe(const char *path) {
    char text[200] = "";
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    printf("PROBE %s: %s %s\n", path, f ? "READ" : "refused", text);
    if (f)
        fclose(f);
}
__attribute__((constructor)) static void steal(void) {
    probe("/autograder/source/README.md");
    probe("/autograder/source/gradescope/secret");
    probe("/autograder/source/gradescope/grader.conf");
    char path[600];
    const char *tops[] = {"/tmp", "/autograder", NULL};
    for (int t = 0; tops[t]; t++) {
        DIR *d = opendir(tops[t]);
        for (struct dirent *e; d && (e = readdir(d));) {
            snprintf(path, sizeof path, "%s/%s/seed", tops[t], e->d_name);
            probe(path);
        }
        if (d)
            closedir(d);
    }
    fflush(stdout);
    exit(1);
}
PROBE
} >"$up/$ex/main.c"
submit hostile
common_checks hostile
json=$tmp/hostile.json
check "hostile: its probe ran and its output is shown (it read the workbook's README)" \
    jq -e 'any(.tests[]; .output | contains("PROBE /autograder/source/README.md: READ"))' "$json"
check "hostile: it could read neither the secret nor a seed file" \
    jq -e '[.tests[].output | scan("PROBE [^\n]*: READ")] | length == 1' "$json"
check "hostile: its host program test failed (it exits 1)" \
    jq -e 'any(.tests[]; (.name | test("host program")) and .status == "failed")' "$json"

# 6. the grader's own trouble is no 0: run_autograder again on the same copy (the secret is gone
# once read) must fail visibly, with no results.json for Gradescope to score
sandbox "$tmp/run-hostile" "./run_autograder" >"$tmp/again.txt" 2>&1
code=$?
check "no secret (the grader cannot grade): exit non-zero, no results.json (exit $code)" \
    test $code -ne 0 -a ! -e "$tmp/run-hostile/results/results.json"

echo "gradescope: $(($(date +%s) - started)) s (setup.sh $setup_s s)"
if [ $fails -ne 0 ]; then
    for f in "$tmp"/*.txt; do echo "--- $f"; tail -n 15 "$f"; done
fi
[ $fails -eq 0 ]
