#!/bin/sh
# grader/batch/similarity.sh OUT - OUT/similarity.tsv: pairs of students whose kernel.cl or main.c
# of one exercise are alike beyond SIMILARITY percent (default 80), measured by Debian's
# similarity-tester (sim_c: C tokens, names of variables and functions ignored, so renaming
# hides nothing). Lines of the exercise's skeleton are taken out of every file first (everyone
# starts from it: only what a student wrote is compared). A hint for the instructor to read the
# two files, never part of a score. Lines: exercise, file, student, student, percent (the larger
# of the two directions: how much of one file is the other's material), largest first.
# The files are OUT/work/staged/ID/sub/NN_name/ (lib.sh's batch_stamps keeps each upload's staged
# editable files there). Without sim_c: one line on stderr, an empty table, exit 0.
set -u
out=${1:?usage: similarity.sh OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
threshold=${SIMILARITY:-80}
case $threshold in '' | *[!0-9]*) echo "similarity: SIMILARITY=$threshold is not a percent" >&2; exit 2 ;; esac
: >"$out/similarity.tsv.tmp"
if ! command -v sim_c >/dev/null 2>&1; then
    echo "similarity: sim_c is missing (apt-get install similarity-tester): no similarity report" >&2
    mv "$out/similarity.tsv.tmp" "$out/similarity.tsv"
    exit 0
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# the skeletons as committed (exercises/ may hold someone's work)
sh "$root/tests/skeletons.sh" "$tmp/skeletons" >/dev/null 2>&1 || mkdir -p "$tmp/skeletons"
for exdir in "$out"/work/staged/*/sub/[0-9][0-9]_*/; do
    [ -d "$exdir" ] || continue
    ex=$(basename "$exdir")
    id=$(basename "$(dirname "$(dirname "$exdir")")")
    for f in kernel.cl main.c; do
        [ -f "$exdir/$f" ] || continue
        mkdir -p "$tmp/own/$ex/$f"
        # a line of the skeleton (spaces aside) is no student's own
        awk 'NR == FNR { k = $0; gsub(/[ \t\r]/, "", k); skel[k] = 1; next }
             { k = $0; gsub(/[ \t\r]/, "", k); if (!(k in skel)) print }' \
            "$tmp/skeletons/$ex/$f" "$exdir/$f" >"$tmp/own/$ex/$f/$id" 2>/dev/null ||
            cp "$exdir/$f" "$tmp/own/$ex/$f/$id"
    done
done
for dir in "$tmp"/own/*/*/; do
    [ -d "$dir" ] || continue
    [ "$(ls "$dir" | wc -l)" -ge 2 ] || continue
    ex=$(basename "$(dirname "$dir")")
    f=$(basename "$dir")
    # "A consists for N % of B material", for each pair above the threshold
    (cd "$dir" && ls | LC_ALL=C sort | sim_c -p -e -s -i -t"$threshold" 2>/dev/null) |
        sed -n 's/^\([^ ]*\) consists for \([0-9]*\) % of \([^ ]*\) material$/\1\t\3\t\2/p' |
        awk -F '\t' -v ex="$ex" -v f="$f" '$1 != $2 {
            a = $1 < $2 ? $1 : $2; b = $1 < $2 ? $2 : $1; k = a "\t" b
            if (!(k in best) || $3 > best[k]) best[k] = $3 }
            END { for (k in best) print ex "\t" f "\t" k "\t" best[k] }'
done | sort -t "$(printf '\t')" -k5,5nr -k1,1 >>"$out/similarity.tsv.tmp"
mv "$out/similarity.tsv.tmp" "$out/similarity.tsv"
