#!/bin/sh
# tests/batch.sh - `make batch` on a small class made here: good folders and archives, bugs,
# refused archives, and a student that tries to read another's files and write outside its own
# folder. Checks every verdict, the gradebook, and that a batch killed half-way (kill -9)
# finishes on the next run with no row lost or repeated.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
class=$tmp/class
out=$tmp/out
ex=01_per_element
sol=$root/solutions/$ex
mkdir -p "$class"

# good: a whole copy of the workbook's layout; good_flat: just the exercise folder
mkdir -p "$class/good/exercises" "$class/good_flat"
cp -r "$sol" "$class/good/exercises/"
cp -r "$sol" "$class/good_flat/"
# archives: .tar.gz with a top folder, .zip
mkdir -p "$tmp/pack/alice/exercises" && cp -r "$sol" "$tmp/pack/alice/exercises/"
tar -czf "$class/alice.tar.gz" -C "$tmp/pack" alice
(cd "$tmp/pack" && unzip -v >/dev/null 2>&1 && command -v zip >/dev/null 2>&1 &&
    zip -qr "$class/bob.zip" alice)
# bugs
mkdir -p "$class/transposed/$ex" "$class/fake_print/$ex"
cp "$sol/main.c" "$class/transposed/$ex/"
cp "$root/tests/planted/transposed_index/kernel.cl" "$class/transposed/$ex/"
cp "$sol/kernel.cl" "$class/fake_print/$ex/"
cp "$root/tests/planted/prints_pass_without_kernel/main.c" "$class/fake_print/$ex/"
# refused archives: a member with .., a link
mkdir -p "$tmp/evil/sub" && echo x >"$tmp/evil/sub/f" && ln -s /etc/passwd "$tmp/evil/link"
tar -czf "$class/evil_link.tar.gz" -C "$tmp" evil
tar -czf "$class/evil_dotdot.tar.gz" -C "$tmp/evil/sub" --absolute-names ../sub/f 2>/dev/null
# snoop: its host program tries to read another student's kernel and to write outside
mkdir -p "$class/snoop/$ex"
cp "$sol/kernel.cl" "$class/snoop/$ex/"
sed "s|^int main(int argc, char \*\*argv) {|#include <stdio.h>\nint main(int argc, char **argv) {\n    FILE *peek = fopen(\"$class/good/exercises/$ex/kernel.cl\", \"r\");\n    if (peek) puts(\"SNOOP-READ-ANOTHER-STUDENT\");\n    FILE *out = fopen(\"$tmp/escaped\", \"w\");\n    if (out) fputs(\"x\", out);|" \
    "$sol/main.c" >"$class/snoop/$ex/main.c"

fails=0
check() { # check DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@"; then echo "ok   batch: $what"; else echo "FAIL batch: $what"; fails=$((fails + 1)); fi
}
row() { grep "^$1," "$out/gradebook.csv"; }

# a first run killed with kill -9 once two students are published: the whole process group
# (setsid makes the batch its leader), as a crash or an impatient instructor would
mkdir -p "$out"
SUBMISSIONS=$class OUT=$out JOBS=2 EX=$ex GRADER_SECRET=test-secret TIMEOUT=10 \
    setsid sh "$root/grader/batch.sh" >"$tmp/run1.txt" 2>&1 &
leader=$!
for _ in $(seq 1 600); do
    [ "$(ls "$out/students" 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
done
kill -9 -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
sleep 1
published_before=$(ls "$out/students" | wc -l)
# the second run finishes the rest
SUBMISSIONS=$class OUT=$out JOBS=2 EX=$ex GRADER_SECRET=test-secret TIMEOUT=10 \
    sh "$root/grader/batch.sh" >"$tmp/run2.txt" 2>&1
status=$?
cat "$tmp/run2.txt"
students=$(ls "$class" | wc -l)
check "second run succeeds" [ $status -eq 0 ]
check "killed run had published some, not all ($published_before of $students)" \
    test "$published_before" -ge 1 -a "$published_before" -lt "$students"
check "every student exactly once in the gradebook" \
    [ "$(tail -n +2 "$out/gradebook.csv" | cut -d, -f1 | sort | uniq | wc -l)" -eq "$students" ] 
check "no duplicated rows" [ "$(tail -n +2 "$out/gradebook.csv" | wc -l)" -eq "$students" ]
for good in good good_flat alice; do
    check "$good: full marks" sh -c "echo '$(row $good)' | grep -q ',10,10,graded,'"
done
[ -f "$class/bob.zip" ] && check "bob (zip): full marks" sh -c "echo '$(row bob)' | grep -q ',10,10,graded,'"
check "transposed: loses points" sh -c "echo '$(row transposed)' | grep -Eq ',[0-9],10,graded,'"
check "fake_print: host program test fails" \
    jq -e '[.tests[] | select(.name | test("host program")) | .score] == [0]' \
    "$out/students/fake_print/results.json"
check "evil_link refused" sh -c "echo '$(row evil_link)' | grep -q 'refused: archive refused: it holds links'"
check "evil_dotdot refused" sh -c "echo '$(row evil_dotdot)' | grep -q 'refused: archive refused'"
check "gradebook and summaries written" test -s "$out/summary.md" -a -s "$out/junit.xml"
# one testsuite per graded student, every one closed
graded=$(grep -c ',graded,' "$out/gradebook.csv")
check "junit.xml: $graded suites, all closed" test "$(grep -c '<testsuite ' "$out/junit.xml")" -eq "$graded" \
    -a "$(grep -c '</testsuite>' "$out/junit.xml")" -eq "$graded" -a "$(tail -n 1 "$out/junit.xml")" = "</testsuites>"
# the sandbox: only where bubblewrap works (not inside another sandbox without user namespaces)
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; then
    check "snoop graded" sh -c "echo '$(row snoop)' | grep -q ',graded,'"
    check "snoop could not read another student's files" \
        sh -c "! grep -rq SNOOP-READ-ANOTHER-STUDENT '$out/students/snoop'"
    check "snoop could not write outside its folder" [ ! -e "$tmp/escaped" ]
else
    echo "skip batch: sandbox checks (bubblewrap cannot run here)"
fi
# a regrade with the same secret uses the same hidden seed
seed1=$(sed -n 's/.*hidden seed \([0-9]*\).*/\1/p' "$out/students/good/grade.log")
FORCE=1 SUBMISSIONS=$class OUT=$tmp/out2 JOBS=2 EX=$ex GRADER_SECRET=test-secret TIMEOUT=10 \
    sh "$root/grader/batch.sh" >/dev/null 2>&1
seed2=$(sed -n 's/.*hidden seed \([0-9]*\).*/\1/p' "$tmp/out2/students/good/grade.log")
check "same secret and student: same seed ($seed1)" test -n "$seed1" -a "$seed1" = "$seed2"
if [ $fails -ne 0 ]; then
    cat "$tmp/run1.txt"
    for log in "$out"/students/*/grade.log; do
        grep -q "^Score: 10/10" "$log" || { echo "--- $log"; tail -n 15 "$log"; }
    done
fi
[ $fails -eq 0 ]
