#!/bin/sh
# tests/submit.sh - `make submit`, the student's hand-in (issue 25.6), run by tests/course.sh: in a
# clone of a skeleton workbook, from an exercise folder and from the root, the archive holds the
# exercises the student changed (committed or not) and nothing else; a clone with no change hands
# in nothing; outside git PRISTINE=dir decides; and `make batch` takes the archive and grades it
# (full marks for the solution handed in). About 15 s on two cores.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
ex=04_local_B
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_label=submit
. "$root/tests/check.sh"
# the course's repository (the skeleton: exercises/ as committed, the Makefiles and scripts that
# make submit needs) and a student's clone of it
skel=$tmp/skel
mkdir -p "$skel/grader"
cp -r "$root/Makefile" "$root/common" "$skel/"
cp -r "$root/grader/batch" "$skel/grader/"
(cd "$root" && git archive HEAD exercises 2>/dev/null | tar -x -C "$skel") ||
    cp -r "$root/exercises" "$skel/"
git() { command git -c user.name=t -c user.email=t@example.org "$@"; }
(cd "$skel" && git init -q && git add -A && git commit -qm skeleton) || echo "FAIL submit: git"
wb=$tmp/wb
git clone -q "$skel" "$wb"
make -s -C "$wb/exercises/$ex" submit >"$tmp/none.txt" 2>&1
check "an untouched clone hands in nothing (exit 2, says so)" \
    sh -c "[ $? -eq 2 ] && grep -q 'nothing to hand in' '$tmp/none.txt'"
# the student's work: 04 solved and committed, 00's kernel edited and not committed, notes added
cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$wb/exercises/$ex/"
echo "my notes" >"$wb/exercises/$ex/notes.md"
(cd "$wb" && git add -A && git commit -qm "04 done")
echo "// started" >>"$wb/exercises/00_vadd/kernel.cl"
make -s -C "$wb/exercises/$ex" submit >"$tmp/folder.txt" 2>&1
check "make submit in an exercise folder writes results/submission.tar.gz and says where" \
    sh -c "[ $? -eq 0 ] && [ \"\$(tail -n 1 '$tmp/folder.txt')\" = '$wb/results/submission.tar.gz' ]"
want="00_vadd/kernel.cl 00_vadd/main.c $ex/kernel.cl $ex/main.c"
members() { tar -tzf "$1" | sort | tr '\n' ' ' | sed 's/ $//'; }
check "it holds the changed exercises' editable files only ($(members "$wb/results/submission.tar.gz"))" \
    [ "$(members "$wb/results/submission.tar.gz")" = "$want" ]
make -s -C "$wb" submit ID=sam >"$tmp/root.txt" 2>&1
check "make submit ID=sam in the root: results/sam.tar.gz, the same members" \
    sh -c "[ \"\$(tail -n 1 '$tmp/root.txt')\" = '$wb/results/sam.tar.gz' ] &&
        [ \"\$(tar -tzf '$wb/results/sam.tar.gz' | sort | tr '\n' ' ' | sed 's/ \$//')\" = '$want' ]"
# outside git: the files against a pristine copy
cp -r "$wb/exercises" "$tmp/plain"
rm -rf "$tmp/plain/.git"
SUBMISSION=$tmp/plain RESULTS=$tmp/plain-results PRISTINE=$skel/exercises \
    sh "$wb/grader/batch/submit.sh" >"$tmp/plain.txt" 2>&1
check "outside git, PRISTINE=dir picks the same exercises" \
    [ "$(members "$tmp/plain-results/submission.tar.gz")" = "$want" ]

# make batch takes the archive as it is and grades it
mkdir -p "$tmp/class"
cp "$wb/results/sam.tar.gz" "$tmp/class/"
cat >"$tmp/submit.conf" <<EOF
exercises = $ex
timeout = 10
$ex.sizes = 16, 100
$ex.points.perf = 0
$ex.points.memcheck = 0
EOF
env SUBMISSIONS="$tmp/class" OUT="$tmp/out" CONFIG="$tmp/submit.conf" JOBS=1 \
    GRADER_SECRET=submit-secret SANDBOX=none sh "$root/grader/batch/batch.sh" >"$tmp/batch.txt" 2>&1
row=$(grep '^sam,' "$tmp/out/gradebook.csv" 2>/dev/null)
col() { head -n 1 "$tmp/out/gradebook.csv" | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1; }
total=$(echo "$row" | cut -d, -f"$(col total)")
max=$(echo "$row" | cut -d, -f"$(col max)")
check "make batch grades the archive: sam $total of $max" \
    sh -c "[ -n '$max' ] && [ '$max' -gt 0 ] && [ '$total' = '$max' ]"
if [ $fails -gt 0 ]; then
    for f in none folder root plain batch; do
        echo "---- $f"
        tail -n 15 "$tmp/$f.txt" 2>/dev/null
    done
    cat "$tmp/out/gradebook.csv" 2>/dev/null
fi
echo "submit: $fails failed"
[ $fails -eq 0 ]
