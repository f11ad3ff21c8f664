#!/bin/sh
# grader/batch/handout.sh - `make handout [OUT=dir]`: the students' repository, written to OUT
# (default results/handout) as a git repository of one commit that students clone.
#
# It is this workbook's committed tree (git archive HEAD: what is uncommitted is said and left
# out) without what gives the exercises away:
#   - solutions/, the reference solutions and the quiz's key;
#   - the planted and hostile submissions (tests/planted, tests/hints, tests/corpus), each a
#     solution with one change, and every test built on the solutions;
#   - slides/, the lectures' decks, which show the kernels of the first steps as the lectures do;
#   - the CI script, which runs those tests: the handout's .ci/run is its own `make test`.
# Its tests/run.sh is tests/handout_run.sh: what runs without the solutions. Then every line that
# a solution adds inside its TODO(student) blocks (24 characters or more once comments are left
# out and blanks squeezed, and not a line of the skeletons themselves) is searched for in every
# file of the handout: one found anywhere fails the handout, naming the file and the solution.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/results/handout}
die() {
    echo "handout: $*" >&2
    exit 2
}
[ -d "$root/solutions" ] || die "this workbook is a handout already (no solutions/)"
git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
    die "make handout exports the committed tree: $root is not a git checkout with a commit"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    die "$out exists and is not empty: remove it or name another (OUT=dir)"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $out/ in "$root"/exercises/* | "$root"/solutions/*) die "OUT is inside the workbook's $out" ;; esac
rev=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
    echo "handout: uncommitted changes are left out: the handout is commit $rev"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive --format=tar HEAD | tar -x -C "$out"

# what gives the solutions away, and what cannot run without them
rm -rf "$out/solutions" "$out/tests/planted" "$out/tests/hints" "$out/tests/corpus" \
    "$out/tests/suite" "$out/slides"
for f in "$out"/tests/*.sh "$out"/tests/*.conf; do
    case ${f##*/} in layers.sh | skeletons.sh | handout_run.sh) ;; *) rm -f "$f" ;; esac
done
# (unit tests that read solutions/ at run time)
for f in "$out"/tests/unit/test_*.c; do
    ! grep -q 'solutions/' "$f" || rm -f "$f"
done
mv "$out/tests/handout_run.sh" "$out/tests/run.sh"
printf '#!/bin/sh\n# CI of the handout: its own test suite\nset -eu\ncd "$(dirname "$0")/.."\nmake test\n' \
    >"$out/.ci/run"

# the answers: each solution's lines inside TODO(student) blocks, comments out, blanks squeezed
canon() { sed -e 's|//.*||' -e 's|/\*.*\*/||g' -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' -e 's/ $//' "$@"; }
(cd "$root/solutions" && for f in */*; do
    [ -f "$f" ] || continue
    awk '/TODO\(student\) end/ { inside = 0 } inside { print } /TODO\(student\) begin/ { inside = 1 }' "$f" |
        canon | awk -v f="$f" 'length($0) >= 24 { print f "\t" $0 }'
done) | sort -u >"$tmp/answers"
# less what the skeletons hold themselves, anywhere in a line (a comment's reference loop, a
# barrier the README shows, a declaration the notes give)
# outside their TODO(student) blocks (a block filled by mistake is looked in like any file)
find "$out/exercises" -type f -exec awk '/TODO\(student\) end/ { inside = 0 } !inside { print }
    /TODO\(student\) begin/ { inside = 1 }' {} + | canon >"$tmp/skeletons"
# and a loop's or a condition's head alone (for (int k = 0; k < N; k++) {), which says no more
# than the reference loop every kernel's header shows
cut -f 2 "$tmp/answers" | grep -Ev '^(for|if|while) \(|^\} ' | while IFS= read -r line; do
    grep -qF -- "$line" "$tmp/skeletons" || printf '%s\n' "$line"
done >"$tmp/patterns"
awk -F '\t' 'NR == FNR { keep[$0] = 1; next } $2 in keep' "$tmp/patterns" "$tmp/answers" >"$tmp/secret"
count=$(wc -l <"$tmp/patterns")
[ "$count" -gt 0 ] || die "no solution line to look for: the TODO(student) blocks of solutions/ are empty"
leaks=0
(cd "$out" && find . -type f ! -path './.git/*' | sed 's|^\./||' | sort) >"$tmp/files"
while IFS= read -r file; do
    grep -Iq . "$out/$file" 2>/dev/null || continue # (binary or empty)
    canon "$out/$file" | grep -F -f "$tmp/patterns" >"$tmp/hit" 2>/dev/null || continue
    # (its first five lines, each with the solution it comes from)
    head -n 5 "$tmp/hit" | while IFS= read -r line; do
        from=$(awk -F '\t' -v l="$line" 'index(l, $2) { print $1; exit }' "$tmp/secret")
        echo "handout: $file holds a line of solutions/${from:-?}: $(printf '%.100s' "$line")" >&2
    done
    leaks=$((leaks + 1))
done <"$tmp/files"
if [ "$leaks" -gt 0 ]; then
    rm -rf "$out"
    die "$leaks file(s) give a solution away (above): nothing was written"
fi

git -C "$out" init -q
git -C "$out" add -A
git -C "$out" -c user.name="make handout" -c user.email="handout@localhost" \
    commit -q -m "The workbook's handout, from commit $rev of the instructor's"
echo "handout: $out ($(wc -l <"$tmp/files") files, from commit $rev; $count solution lines looked for, none found)"
echo "handout: students clone it (git clone $out); make grade there grades everything but what needs the reference solutions"
