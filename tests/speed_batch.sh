#!/bin/sh
# tests/speed_batch.sh [COUNT=100] [JOBS=2] - how long `make batch` takes for a class of COUNT
# one-exercise submissions made from the hostile corpus (tests/corpus/: good folders, archives,
# bugs, programs that never end, fork bombs...) taken in turn, under tests/corpus.conf. Prints
# the time, the rate and the gradebook's spread; not part of `make test` (it takes minutes).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-100}
jobs=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$root/tests/corpus.sh" assemble "$tmp/pool" >/dev/null
mkdir -p "$tmp/class"
i=0
while [ $i -lt "$count" ]; do
    for entry in "$tmp"/pool/*; do
        [ $i -lt "$count" ] || break
        name=$(basename "$entry")
        case $name in
        *.tar.gz) cp "$entry" "$tmp/class/s$(printf %03d $i)_${name%.tar.gz}.tar.gz" ;;
        *.zip) cp "$entry" "$tmp/class/s$(printf %03d $i)_${name%.zip}.zip" ;;
        *) cp -r "$entry" "$tmp/class/s$(printf %03d $i)_$name" ;;
        esac
        i=$((i + 1))
    done
done
echo "speed: $count submissions, JOBS=$jobs, on $(nproc) cores of $(uname -n)"
start=$(date +%s)
SUBMISSIONS=$tmp/class OUT=$tmp/out JOBS=$jobs CONFIG=$root/tests/corpus.conf \
    GRADER_SECRET=speed sh "$root/grader/batch/batch.sh" >"$tmp/batch.txt" 2>&1
status=$?
took=$(($(date +%s) - start))
tail -n 3 "$tmp/batch.txt"
rows=$(tail -n +2 "$tmp/out/gradebook.csv" | wc -l)
echo "speed: batch exit $status, $rows rows, $took s in all, $(awk -v t="$took" -v n="$count" \
    'BEGIN { printf "%.1f", t / n }') s per submission"
echo "speed: status counts:"
cut -d, -f"$(head -n 1 "$tmp/out/gradebook.csv" | tr ',' '\n' | grep -n '^status$' | cut -d: -f1)" \
    "$tmp/out/gradebook.csv" | tail -n +2 | sed 's/:.*//' | sort | uniq -c
[ "$status" -eq 0 ] && [ "$rows" -eq "$count" ]
