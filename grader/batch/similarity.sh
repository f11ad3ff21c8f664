#!/bin/sh
# grader/batch/similarity.sh OUT - OUT/similarity.tsv: pairs of students whose kernel.cl or main.c
# of one exercise are alike beyond SIMILARITY percent (default 80), measured by Debian's
# similarity-tester (sim_c: C tokens, names of variables and functions ignored, so renaming
# hides nothing). Lines of the exercise's skeleton are taken out of every file first (everyone
# starts from it: only what a student wrote is compared). A hint for the instructor to read the
# two files, never part of a score. Lines: exercise, file, student, student, percent (the larger
# of the two directions: how much of one file is the other's material), largest first.
# The files are OUT/work/staged/ID/sub/NN_name/ (lib.sh's batch_stamps keeps each upload's staged
# editable files there). Each student is also compared with the reference solutions, named
# "(solutions)" (a copy of them is a copy), and with earlier terms' classes: PAST=dir holding
# earlier batches' OUT folders (each one's students/ID/files/NN_name/, as the batch publishes
# them), named "(TERM:ID)" after the folder. Pairs of those alone are not listed. Without sim_c:
# one line on stderr, an empty table, exit 0.
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
# own_lines EX FILE SOURCE WHO: SOURCE's lines that are not a line of the skeleton (spaces
# aside: everyone starts from it) as $tmp/own/EX/FILE/WHO
own_lines() {
    mkdir -p "$tmp/own/$1/$2"
    awk 'NR == FNR { k = $0; gsub(/[ \t\r]/, "", k); skel[k] = 1; next }
         { k = $0; gsub(/[ \t\r]/, "", k); if (!(k in skel)) print }' \
        "$tmp/skeletons/$1/$2" "$3" >"$tmp/own/$1/$2/$4" 2>/dev/null || cp "$3" "$tmp/own/$1/$2/$4"
}
for exdir in "$out"/work/staged/*/sub/[0-9][0-9]_*/; do
    [ -d "$exdir" ] || continue
    ex=$(basename "$exdir")
    id=$(basename "$(dirname "$(dirname "$exdir")")")
    for f in kernel.cl main.c; do
        [ -f "$exdir/$f" ] && own_lines "$ex" "$f" "$exdir/$f" "$id"
    done
done
# the reference and earlier terms, beside the class (a name in parentheses is no student's: ids
# have none)
references() {
    for d in "$root"/solutions/[0-9][0-9]_*/; do echo "$d"; done
    [ -z "${PAST:-}" ] || for d in "$PAST"/*/students/*/files/[0-9][0-9]_*/; do echo "$d"; done
}
references | while IFS= read -r exdir; do
    [ -d "$exdir" ] && [ -d "$tmp/own/$(basename "$exdir")" ] || continue
    ex=$(basename "$exdir")
    case $exdir in
    "$root"/solutions/*) who="(solutions)" ;;
    *) term=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$exdir")")")")")
       who="($(printf '%s:%s' "$term" "$(basename "$(dirname "$(dirname "$exdir")")")" | tr -c 'A-Za-z0-9._:\n-' '_'))" ;;
    esac
    for f in kernel.cl main.c; do
        [ -f "$exdir/$f" ] && [ -d "$tmp/own/$ex/$f" ] && own_lines "$ex" "$f" "$exdir/$f" "$who"
    done
done
for dir in "$tmp"/own/*/*/; do
    [ -d "$dir" ] || continue
    [ "$(ls "$dir" | wc -l)" -ge 2 ] || continue
    ex=$(basename "$(dirname "$dir")")
    f=$(basename "$dir")
    # "A consists for N % of B material", for each pair above the threshold (ids compared as
    # strings: awk would take 07 and 7 for one number)
    (cd "$dir" && ls | LC_ALL=C sort | sim_c -p -e -s -i -t"$threshold" 2>/dev/null) |
        sed -n 's/^\([^ ]*\) consists for \([0-9]*\) % of \([^ ]*\) material$/\1\t\3\t\2/p' |
        awk -F '\t' -v ex="$ex" -v f="$f" '$1 "" != $2 "" && !($1 ~ /^\(/ && $2 ~ /^\(/) {
            a = $1 "" < $2 "" ? $1 : $2; b = $1 "" < $2 "" ? $2 : $1; k = a "\t" b
            if (!(k in best) || $3 > best[k]) best[k] = $3 }
            END { for (k in best) print ex "\t" f "\t" k "\t" best[k] }'
done | sort -t "$(printf '\t')" -k5,5nr -k1,1 >>"$out/similarity.tsv.tmp"
mv "$out/similarity.tsv.tmp" "$out/similarity.tsv"
