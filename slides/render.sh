#!/bin/sh
# slides/render.sh - render the lecture decks (slides/NN_*.md) to self-contained HTML.
#
# Usage: sh slides/render.sh [RESULTS_DIR] [OUT_DIR]     (`make slides` runs it)
#   RESULTS_DIR  this machine's latest `make bench` (bench.csv, bench.md, SVG plots); default results
#   OUT_DIR      where NN_name.html and index.html go; default results/slides
#
# Each deck is Markdown with placeholder lines (one per line, an HTML comment) that fill.awk
# replaces with Markdown before pandoc sees the deck:
#   <!-- bench: rows=01,02 cols=lecture,h200/NVIDIA,here [n=1024] [pct] -->
#       a GFLOP/s table. rows: seq, an exercise's number (01 ... 13: the grader's table, from
#       `grader --list`; 05 is 05x16), 05x8 05x16 05x32 05x64, openblas clblast cublas peak bw,
#       matched by bench.csv's key column. cols: lecture (= lecture-cpu,lecture-gpu:
#       the published "Hands On OpenCL" figures, slides/results/lecture.csv), here (RESULTS_DIR/bench.csv, one column per device) or NAME (the committed
#       reference slides/results/NAME/bench.csv); /TEXT keeps the devices whose name holds TEXT.
#       n=: the N to show (default 1024 where measured, else the largest N). pct: add % of peak.
#   <!-- plot: here|NAME FILE... [width=60%] -->   embed SVG plots (FILE may hold a * wildcard)
#   <!-- cuda: here|NAME... -->   CUDA against OpenCL, from SOURCE/cuda-vs-opencl.csv
# Without this machine's results a sentence says so where the figures would be; the decks still
# render. pandoc (>= 2.0) makes one HTML file per deck with the CSS and the plots inside: no
# network is needed to render or to read them.
set -u
if ! command -v pandoc >/dev/null 2>&1; then
    echo "pandoc not found: run \`make slides\` as root to install it, or apt-get install pandoc" >&2
    exit 1
fi
slides=$(cd "$(dirname "$0")" && pwd) || exit 1
results=${1:-results}
resname=$results  # as the user wrote it, for the messages in the decks
out=${2:-results/slides}
mkdir -p "$out" || { echo "cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd) || exit 1
[ -d "$results" ] && results=$(cd "$results" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# pandoc 2.19 and later spell "put every resource inside the file" --embed-resources
if pandoc --help 2>/dev/null | grep -q -- '--embed-resources'; then
    embed="--embed-resources --standalone"
else
    embed="--self-contained"
fi
# dollars and backslashes are code here, never TeX math (math would need MathJax from the web)
from=markdown-tex_math_dollars-tex_math_single_backslash

# The plots a deck may embed, copied to plain names: img/<source>/<file>, listed in img/list.
mkdir -p "$tmp/img/here"
: >"$tmp/img/list"
for f in "$results"/*.svg; do
    [ -f "$f" ] || continue
    cp "$f" "$tmp/img/here/" && echo "here $(basename "$f")" >>"$tmp/img/list"
done
for d in "$slides"/results/*/; do
    name=$(basename "$d")
    mkdir -p "$tmp/img/$name"
    for f in "$d"*.svg; do
        [ -f "$f" ] || continue
        cp "$f" "$tmp/img/$name/" && echo "$name $(basename "$f")" >>"$tmp/img/list"
    done
done

# the exercises' rows come from the grader's own table (GRADER: its path, default the build's)
grader=${GRADER:-$slides/../build/grader/grader}
if ! "$grader" --list >"$tmp/exercises" 2>"$tmp/list.err"; then
    echo "render.sh: \`$grader --list\` failed ($(head -n 1 "$tmp/list.err")): run make all first" >&2
    exit 1
fi

status=0
list=""
for deck in "$slides"/[0-9][0-9]_*.md; do
    [ -f "$deck" ] || continue
    name=$(basename "$deck" .md)
    if ! awk -v results="$results" -v resname="$resname" -v refs="$slides/results" -v list="$tmp/img/list" \
        -v exercises="$tmp/exercises" -f "$slides/fill.awk" "$deck" >"$tmp/$name.md"; then
        echo "render.sh: $name: a placeholder could not be filled (see above)" >&2
        rm -f "$out/$name.html"
        status=1
        continue
    fi
    # shellcheck disable=SC2086 # $embed is one or two options
    if ! (cd "$tmp" && pandoc "$name.md" -f "$from" -t html5 $embed --section-divs --columns=10000 --wrap=none \
        --css "$slides/slides.css" -M lang=en -o "$out/$name.html"); then
        echo "render.sh: pandoc failed on $name" >&2
        rm -f "$out/$name.html"
        status=1
        continue
    fi
    title=$(sed -n 's/^title: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$deck" | head -n 1)
    subtitle=$(sed -n 's/^subtitle: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$deck" | head -n 1)
    list="$list
$name|${title:-$name}|$subtitle"
    echo "slides: $out/$name.html"
done
[ -n "$list" ] || { echo "render.sh: no decks (slides/NN_*.md) found" >&2; exit 1; }

# index.html: the decks in order, and where this machine's figures came from
{
    echo "::: {.index}"
    echo "# OpenCL matrix multiplication: the lecture decks"
    echo
    echo "$list" | while IFS='|' read -r name title subtitle; do
        [ -n "$name" ] || continue
        echo "1. [$title]($name.html)${subtitle:+<br><small>$subtitle</small>}"
    done
    echo
    if [ -f "$results/bench.csv" ]; then
        date=$(sed -n 's/^Measured \([^ ]*\) on .*/\1/p' "$results/bench.md" 2>/dev/null | head -n 1)
        echo "This machine's figures: \`make bench\`${date:+ of $date} (\`$resname/bench.csv\`)."
    else
        echo "No \`make bench\` results on this machine yet: run \`make bench\`, then \`make slides\`."
    fi
    echo
    echo "Reference figures: \`slides/results/\` of the workbook and the \"Hands On OpenCL\" lectures."
    echo
    echo "Scroll or press Page Down to move from slide to slide; print to PDF for one slide a page."
    echo ":::"
} >"$tmp/index.md"
# shellcheck disable=SC2086
(cd "$tmp" && pandoc index.md -f "$from" -t html5 $embed --wrap=none --css "$slides/slides.css" -M lang=en \
    -M pagetitle="OpenCL matrix multiplication: lecture decks" -o "$out/index.html") || status=1
echo "slides: $out/index.html"
exit $status
