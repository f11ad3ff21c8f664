#!/bin/sh
# tests/corpus.sh - the hostile class: every entry of tests/corpus/ graded in one `make batch`,
# each beside a good submission, and every verdict checked.
#
#   sh tests/corpus.sh                 assemble, grade (killed half-way with kill -9, then run
#                                      again to finish), check every verdict and the gradebook
#   CORPUS_KEEP=DIR sh tests/corpus.sh  the same, and keep the class and results in DIR
#   sh tests/corpus.sh assemble DIR    only assemble the class into DIR (to grade by hand:
#                                      make batch SUBMISSIONS=DIR CONFIG=tests/corpus.conf)
#
# An entry is the reference solution of 04_local_B with one change, described by its `expect`:
#   kernel skeleton | main skeleton   take that file from the committed exercises/ (the unfilled
#                                     skeleton: $SKELETONS, or tests/skeletons.sh's export)
#   kernel_sed EXPR | main_sed EXPR   a GNU sed expression applied to the solution's file
#   kernel.cl (a file)                replaces the kernel; @WORKBOOK_ROOT@ becomes the real path
#   attack.c (a file)                 static int attack(int argc, char **argv), called first in
#                                     main(); a non-zero return fails the host program on purpose
#                                     (so a snoop that succeeds loses points). It may use
#                                     WORKBOOK_ROOT, SUBMISSIONS_DIR, OUT_DIR, LISTENER_PORT and
#                                     INSTRUCTOR_HOME (the batch's $HOME).
#   form folder|repo|zip|tar|dotdot|link|fifo|oversize|zip_understated|tar_owner_space|folder_bomb
#                                     how it is handed in (default folder); zip_understated and
#                                     tar_owner_space hide 54 MB of zeros (3 files of 18 MB) in
#                                     headers that lie; folder_bomb makes 1,040 folders from 82
#                                     members
#   score N                           its total; refused TEXT: its status instead
#   output TEST | TEXT                that test's output holds TEXT
#   needs_sandbox                     checked only where bubblewrap can run
#   alone                             no neighbour: it can only hurt its own grade (a wrong,
#                                     refused or racy kernel), so a neighbour proves nothing
# Every entry that could reach beyond itself (resources, files, the network, the machine's
# processes) gets a neighbour `<id>_next`, a good folder graded at the same time by another
# worker, which must get full marks: nothing leaks across.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
ex=04_local_B
corpus=$root/tests/corpus

# the entry's expect value of KEY ("" if none)
value() { sed -n "s/^$2 //p" "$corpus/$1/expect" | head -n 1; }

# the unsigned little-endian number of BYTES bytes at OFFSET of FILE
le() { od -An -tu"$2" -j "$1" -N"$2" --endian=little "$3" | tr -d ' '; }

# understate ZIP: claim 1000 bytes as the unpacked size of every larger member, in its local and
# its central header (Info-ZIP's zip writes no data descriptors and no archive comment)
understate() {
    size=$(wc -c <"$1")
    eocd=$((size - 22))
    [ "$(le $eocd 4 "$1")" = 101010256 ] || { echo "corpus: $1 has no plain end record" >&2; return 1; }
    members=$(le $((eocd + 10)) 2 "$1")
    at=$(le $((eocd + 16)) 4 "$1")
    while [ "$members" -gt 0 ]; do
        [ "$(le $((at + 24)) 4 "$1")" -gt 1000 ] &&
            for field in $((at + 24)) $(($(le $((at + 42)) 4 "$1") + 22)); do
                printf '\350\003\000\000' | dd of="$1" bs=1 seek="$field" conv=notrunc status=none
            done
        at=$((at + 46 + $(le $((at + 28)) 2 "$1") + $(le $((at + 30)) 2 "$1") + $(le $((at + 32)) 2 "$1")))
        members=$((members - 1))
    done
}

# 54 MB of zeros in three files of 18 MB, each under a cap per file
padding() { for i in 1 2 3; do head -c 18874368 /dev/zero >"$1/padding$i.bin"; done; }

assemble() { # assemble CLASS OUT PORT
    class=$1 out=$2 port=$3
    stage=$(mktemp -d)
    mkdir -p "$class"
    # the skeletons as committed: exercises/ may hold a student's work
    skeletons=${SKELETONS:-$stage/skeletons}
    [ -n "${SKELETONS:-}" ] || sh "$root/tests/skeletons.sh" "$skeletons" || return 1
    for dir in "$corpus"/*/; do
        id=$(basename -- "$dir")
        files=$stage/$id/$ex
        mkdir -p "$files"
        cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$files/"
        for f in kernel main; do
            file=$files/$f.c
            [ $f = kernel ] && file=$files/kernel.cl
            [ "$(value "$id" "$f")" = skeleton ] && cp "$skeletons/$ex/${file##*/}" "$file"
            expr=$(value "$id" "${f}_sed")
            if [ -n "$expr" ]; then
                # an expression that no longer matches the solution would plant nothing
                cp "$file" "$file.before" && sed -i "$expr" "$file" &&
                    ! cmp -s "$file" "$file.before" ||
                    { echo "corpus $id: ${f}_sed changes nothing in solutions/$ex/${file##*/}"; return 1; }
                rm -f "$file.before"
            fi
        done
        [ -f "$dir/kernel.cl" ] && sed "s|@WORKBOOK_ROOT@|$root|g" "$dir/kernel.cl" >"$files/kernel.cl"
        if [ -f "$dir/attack.c" ]; then
            {
                echo '#include "clu.h"'
                printf '#define WORKBOOK_ROOT "%s"\n#define SUBMISSIONS_DIR "%s"\n' "$root" "$class"
                printf '#define OUT_DIR "%s"\n#define LISTENER_PORT %s\n' "$out" "$port"
                printf '#define INSTRUCTOR_HOME "%s"\n' "${HOME:-/root}"
                cat "$dir/attack.c"
                sed 's/^int main(int argc, char \*\*argv) {/&\n    if (attack(argc, argv))\n        return 99;/' \
                    "$files/main.c"
            } >"$files/main.new" && mv "$files/main.new" "$files/main.c"
        fi
        case $(value "$id" form) in
        repo) mkdir -p "$class/$id/exercises" && cp -r "$files" "$class/$id/exercises/" &&
            echo "notes" >"$class/$id/README.md" ;;
        zip) (cd "$stage/$id" && zip -qr "$class/$id.zip" "$ex") ;;
        tar) tar -czf "$class/$id.tar.gz" -C "$stage" "$id" ;;
        dotdot) mkdir -p "$stage/$id/x" && tar -czf "$class/$id.tar.gz" -C "$stage/$id/x" \
            --absolute-names "../$ex/kernel.cl" ;;
        link) ln -s /etc/passwd "$files/passwd" && tar -czf "$class/$id.tar.gz" -C "$stage/$id" "$ex" ;;
        fifo) mkfifo "$files/pipe" && tar -czf "$class/$id.tar.gz" -C "$stage/$id" "$ex" ;;
        folder_bomb) (cd "$files" && for c in $(seq 1 80); do
            mkdir -p "c$c/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12" && : >"c$c/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/f"
        done) && (cd "$stage/$id" && find "$ex" -type f | tar -czf "$class/$id.tar.gz" --no-recursion -T -) ;;
        oversize) head -c 67108864 /dev/zero >"$files/padding.bin" &&
            tar -czf "$class/$id.tar.gz" -C "$stage/$id" "$ex" ;;
        zip_understated) padding "$files" && (cd "$stage/$id" && zip -qr "$class/$id.zip" "$ex") &&
            understate "$class/$id.zip" ;;
        tar_owner_space) padding "$files" && tar --owner='a student:1000' --group='the class:1000' \
            -czf "$class/$id.tar.gz" -C "$stage/$id" "$ex" ;;
        *) cp -r "$stage/$id" "$class/$id" ;;
        esac
        # a good neighbour, graded at the same time by the other worker
        # (an archive refused before anything of it runs needs none)
        case $id in good* | archive_*) ;; *)
            grep -q '^alone' "$dir/expect" ||
                { mkdir -p "$class/${id}_next" && cp -r "$root/solutions/$ex" "$class/${id}_next/"; } ;;
        esac
    done
    rm -rf "$stage"
}

if [ "${1:-}" = assemble ]; then
    [ -n "${2:-}" ] || { echo "usage: sh tests/corpus.sh assemble DIR"; exit 2; }
    assemble "$2" "${OUT:-$root/results/batch}" 9 || exit 1
    exit 0
fi

tmp=$(mktemp -d)
listener=""
loaders=""
cleanup() {
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    [ -n "$loaders" ] && kill $loaders 2>/dev/null
    # CORPUS_KEEP=DIR keeps the class, the results and both runs' output for a look afterwards
    [ -n "${CORPUS_KEEP:-}" ] && mkdir -p "$CORPUS_KEEP" && cp -r "$tmp"/. "$CORPUS_KEEP"/
    rm -rf "$tmp" "$root/ESCAPED" /var/tmp/ESCAPED /dev/shm/ESCAPED
}
trap cleanup EXIT
class=$tmp/class
out=$tmp/out
# a TCP listener on loopback for the network attempt (python3 if there is one; else none, and the
# attempt meets a closed port, which proves less)
port=$((20000 + $$ % 20000))
if command -v python3 >/dev/null 2>&1; then
    python3 -c "import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(16); time.sleep(3600)" &
    listener=$!
fi
assemble "$class" "$out" "$port" || exit 1
# outside load the grader does not control: a busy loop at nice 0, not under the grader, for the
# whole batch, half of this machine's two cores; every good neighbour must keep full marks beside
# it (CORPUS_NO_LOAD=1: none). CORPUS_LOAD_WHILE=PID: while process PID lives, its work is the
# outside load (tests/run.sh: the planted set's gradings, two at a time, not under this batch's
# grader), and the busy loop takes over when it ends.
if [ "${CORPUS_NO_LOAD:-0}" != 1 ]; then
    sh -c 'if [ -n "$1" ]; then while kill -0 "$1" 2>/dev/null; do sleep 0.5; done; fi
           while :; do :; done' _ "${CORPUS_LOAD_WHILE:-}" &
    loaders=$!
fi

sandbox=0
command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null &&
    sandbox=1
# a tuning folder of the instructor's (make tune's), with a line tuned for one student's kernel
# that the batch must not apply to everyone
mkdir -p "$tmp/tuning"
printf '# make tune\n09_register_blocking reference TSM=64 TSN=64 TSK=16 WPTM=8 WPTN=8\n%s\n' \
    "09_register_blocking submission TSM=32 TSN=32 TSK=8 WPTM=4 WPTN=4" >"$tmp/tuning/any.conf"
batch() { # batch EXTRA-ENV... : one make-batch run over the class
    env SUBMISSIONS="$class" OUT="$out" JOBS=3 CONFIG="$root/tests/corpus.conf" TUNING="$tmp/tuning" \
        GRADER_SECRET=corpus-secret SANDBOX=none "$@" sh "$root/grader/batch/batch.sh"
}
# a first run killed with kill -9 once a few students are published: the whole process group
# (setsid makes the batch its leader), as a crash or an impatient instructor would
mkdir -p "$out"
setsid sh -c "$(printf '%s ' env SUBMISSIONS="$class" OUT="$out" JOBS=3 TUNING="$tmp/tuning" \
    CONFIG="$root/tests/corpus.conf" GRADER_SECRET=corpus-secret SANDBOX=none sh "$root/grader/batch/batch.sh")" \
    >"$tmp/run1.txt" 2>&1 &
leader=$!
for _ in $(seq 1 1200); do
    [ "$(ls "$out/students" 2>/dev/null | wc -l)" -ge 6 ] && break
    sleep 0.1
done
kill -9 -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
sleep 1
published_before=$(ls "$out/students" | wc -l)
started=$(date +%s)
batch >"$tmp/run2.txt" 2>&1
status=$?
# a grading the machine was too busy for is "not graded" (no point lost for it): run again, as
# an instructor would, at most twice; each run grades only those
for again in 1 2; do
    busy=$(grep -l '^not graded' "$out"/students/*/status 2>/dev/null | wc -l)
    [ "$busy" -eq 0 ] && break
    echo "corpus: the machine was too busy for $busy: run again ($again)"
    batch >"$tmp/run-again$again.txt" 2>&1 || status=$?
done
took=$(($(date +%s) - started))
students=$(ls "$class" | wc -l)

check_label=corpus
. "$root/tests/check.sh"
# (an id a spreadsheet would take for a formula, -A1, is written '-A1)
row() { grep -e "^$1," -e "^'$1," -- "$out/gradebook.csv"; }
total_of() { row "$1" | awk -F, -v col="$(head -n 1 "$out/gradebook.csv" | tr ',' '\n' |
    grep -n '^total$' | cut -d: -f1)" '{ print $col }'; }
status_of() { cat "$out/students/$1/status" 2>/dev/null; }

check "the second run finishes ($took s for the rest)" [ $status -eq 0 ]
check "the killed run had published some, not all ($published_before of $students)" \
    test "$published_before" -ge 1 -a "$published_before" -lt "$students"
check "every student exactly once in the gradebook ($students)" \
    [ "$(tail -n +2 "$out/gradebook.csv" | cut -d, -f1 | sort -u | wc -l)" -eq "$students" ]
check "no row twice" [ "$(tail -n +2 "$out/gradebook.csv" | wc -l)" -eq "$students" ]
# one maximum for the whole class, whatever a student's code does: with the memory check and the
# timing on (tests/corpus.conf) nothing is left out, so it is the exercise's points
column_of() { head -n 1 "$out/gradebook.csv" | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1; }
full=$(jq -r --arg e "$ex" '.extra_data.exercises[$e].points' "$out/students/good/results.json")
maxima=$(tail -n +2 "$out/gradebook.csv" | awk -F, -v m="$(column_of max)" -v s="$(column_of status)" \
    '$s == "graded" { print $m }' | sort -u | tr '\n' ' ')
check "one maximum for every graded student: ${maxima}of $ex's $full points" [ "$maxima" = "$full " ]

for dir in "$corpus"/*/; do
    id=$(basename -- "$dir")
    if grep -q '^needs_sandbox' "$dir/expect" && [ $sandbox -eq 0 ]; then
        echo "skip corpus: $id (bubblewrap cannot run here)"
        continue
    fi
    problems=""
    refused=$(value "$id" refused)
    want=$(value "$id" score)
    got=$(total_of "$id")
    if [ -n "$refused" ]; then
        status_of "$id" | grep -qF -- "refused: $refused" ||
            problems="$problems; status \"$(status_of "$id")\", expected refused: $refused"
    else
        [ "$(status_of "$id")" = graded ] || problems="$problems; status \"$(status_of "$id")\""
        if [ -n "$want" ]; then
            [ "$got" = "$want" ] || problems="$problems; total $got, expected $want"
        else
            [ -n "$got" ] && [ "$got" -lt $full ] || problems="$problems; total $got, expected points lost"
        fi
    fi
    while IFS= read -r line; do
        case $line in "output "*)
            rest=${line#output }
            test=${rest%% | *}
            text=${rest#* | }
            jq -r --arg t "$test" '.tests[] | select(.name | contains($t)) | .output' \
                "$out/students/$id/results.json" 2>/dev/null | grep -qiF -- "$text" ||
                problems="$problems; test '$test' does not say \"$text\""
            ;;
        esac
    done <"$dir/expect"
    case $id in good* | archive_*) ;; *)
        grep -q '^alone' "$dir/expect" || [ "$(total_of "${id}_next")" = $full ] ||
            problems="$problems; its neighbour ${id}_next got $(total_of "${id}_next") of $full" ;;
    esac
    if [ -n "$problems" ]; then
        echo "FAIL corpus: $id:${problems#;}"
        fails=$((fails + 1))
        grep -v '^$' "$out/students/$id/grade.log" 2>/dev/null | tail -n 25
        case $problems in *neighbour*)
            echo "--- ${id}_next"
            grep -E 'FAIL|^ +[a-z]' "$out/students/${id}_next/grade.log" 2>/dev/null | head -n 30 ;;
        esac
    else
        echo "ok   corpus: $id: ${got:-refused} ${refused:+($(status_of "$id"))}"
    fi
done

# nothing escaped, nothing was left running, the machine still has its disk
check "no file written outside the students' folders" \
    sh -c "! ls '$root/ESCAPED' '$tmp/ESCAPED' '$out/ESCAPED' '$out/students/ESCAPED' '$class/ESCAPED' /var/tmp/ESCAPED /dev/shm/ESCAPED 2>/dev/null | grep -q ."
check "no forged results.json anywhere in the results" \
    sh -c "! grep -l '\"score\": 11, \"tests\": \[{\"name\": \"all\"' -r '$out' '$class' 2>/dev/null | grep -q ."
# (the grader's student uids are 0x3f000000 and up; a process being torn down may take a moment)
# Left running: a process of a student uid that outlived its grader (no process named grader,
# and not of a student uid itself, above it). A grader still at work elsewhere on this machine (another test beside this one, a
# session's own grading) has its students' processes below it: those are not left over.
left_over() {
    ps -eo pid=,ppid=,uid=,stat=,comm= | awk '
        { ppid[$1] = $2; comm[$1] = $5; uid[$1] = $3
          if ($3 >= 1056964608 && $3 < 1073741824 && $4 !~ /^Z/) student[$1] = 1 }
        END { for (p in student) { q = ppid[p]; live = 0
                  for (hops = 0; q > 1 && hops < 64; hops++) {
                      if (comm[q] == "grader" && uid[q] < 1056964608) { live = 1; break }
                      q = ppid[q] }
                  if (!live) print p } }'
}
left_running() { left_over | grep -q .; }
for _ in 1 2 3 4 5; do left_running && sleep 1; done
nothing_left() { ! left_running; }
check "no student process left running (none that outlived its grader)" nothing_left
for p in $(left_over); do ps -o uid=,pid=,ppid=,stat=,etime=,args= -p "$p" | cut -c1-200; done
check "the id -A1 is a text cell in the gradebook, not a formula" \
    grep -q "^'-A1,[^,]*,[0-9]*," "$out/gradebook.csv"
check "no gradebook cell starts a formula (= + - @)" \
    sh -c "! sed 's/\"[^\"]*\"/text/g' '$out/gradebook.csv' | grep -Eq '(^|,)[-=+@]'"
check "gradebook, summary, JUnit and report written" \
    test -s "$out/summary.md" -a -s "$out/junit.xml" -a -s "$out/report.html"
check "the graders' tuning file keeps the reference's line, not one student's" \
    sh -c "grep -q '^09_register_blocking reference ' '$out/cache/tuning/any.conf' &&
        ! grep -q ' submission ' '$out/cache/tuning/any.conf'"
graded=$(grep -c ',graded,' "$out/gradebook.csv")
check "junit.xml: $graded suites, all closed" \
    test "$(grep -c '<testsuite ' "$out/junit.xml")" -eq "$graded" -a \
    "$(grep -c '</testsuite>' "$out/junit.xml")" -eq "$graded"
check "junit.xml holds no control characters (fake_100 prints terminal escapes)" \
    sh -c "! LC_ALL=C grep -q '[$(printf '\001-\010\013\014\016-\037')]' '$out/junit.xml'"
check "every class file reads back with a real parser (tests/outputs.sh: unicode_noncharacters)" \
    sh "$root/tests/outputs.sh" "$out"
# (iconv fails on invalid UTF-8; grep -P in a UTF-8 locale matches the C1 code points and DEL)
clean_text() {
    for f in $(find "$out/students" -name results.json -o -name "*.log"); do
        iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || { echo "$f: invalid UTF-8"; return 1; }
        ! LC_ALL=C.UTF-8 grep -qP '[\x{7f}-\x{9f}]' "$f" || { echo "$f: C1 control or DEL"; return 1; }
    done
}
check "results.json and the logs hold no C1 control, DEL or invalid UTF-8 (c1_controls)" clean_text
check "summary names the common failures" grep -q 'host program saves the right result' "$out/summary.md"
# a regrade with the same secret uses the same hidden seed
# (its config in a temporary folder, which the batch's sandbox hides: the batch must hand it over)
mkdir -p "$tmp/one" && cp -r "$class/good" "$tmp/one/" && cp "$root/tests/corpus.conf" "$tmp/one.conf"
env SUBMISSIONS="$tmp/one" OUT="$tmp/out2" CONFIG="$tmp/one.conf" \
    GRADER_SECRET=corpus-secret SANDBOX=none sh "$root/grader/batch/batch.sh" >/dev/null 2>&1
# (grade.log shows the seed's fingerprint only: the seed itself is in no log)
seed1=$(sed -n 's/.*hidden seed fingerprint \([0-9a-f]*\).*/\1/p' "$out/students/good/grade.log")
seed2=$(sed -n 's/.*hidden seed fingerprint \([0-9a-f]*\).*/\1/p' "$tmp/out2/students/good/grade.log")
check "same secret and student: same seed (fingerprint $seed1)" test -n "$seed1" -a "$seed1" = "$seed2"
check "no grade.log shows a hidden seed itself" \
    sh -c "! grep -l 'hidden seed [0-9]' '$out'/students/*/grade.log | grep -q ."
# the class's report.html, opened in headless Chromium: every student, nothing of theirs as markup
check "report.html of the hostile class (tests/report.sh)" \
    env ARTIFACTS="${ARTIFACTS:-$root/results/test-artifacts}/hostile-class" sh "$root/tests/report.sh" "$out"
if [ $fails -ne 0 ]; then
    echo "--- first run"; tail -n 20 "$tmp/run1.txt"
    echo "--- second run"; tail -n 40 "$tmp/run2.txt"
fi
[ $fails -eq 0 ]
