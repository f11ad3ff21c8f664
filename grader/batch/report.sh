#!/bin/sh
# grader/batch/report.sh OUT - OUT/report.html of a finished batch (make batch's OUT): one page
# that loads nothing (inline CSS and SVG, a Content-Security-Policy that forbids every load) with
# the class's score distribution, the points each test cost, the most common failures, every
# student's GFLOP/s against the reference, and every student with a link to their log.
# Runnable on any OUT, again and again; an empty class or one without timings still gets a page.
# The data and the page are report.jq's, the plots report.gp's (gnuplot, SVG), the style
# report.css's.
set -u
die() { echo "report: $*" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-}
[ -n "$out" ] || die "usage: sh grader/batch/report.sh OUT (a make batch's results folder)"
[ -d "$out" ] || die "$out is not a folder (a make batch's OUT)"
for tool in jq gnuplot; do
    command -v $tool >/dev/null 2>&1 ||
        die "$tool is missing: apt-get install $tool (gnuplot: gnuplot-nox), or make deps-batch as root"
done
tmp=$(mktemp -d) || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- the class, one line a student
# Every student folder, with or without results.json (a refused archive, a grader error): its id,
# the batch's status line, whether it has a grade.log, and its results.json when that is a JSON
# object with tests (anything else counts as none). The ids were checked by the batch; anything
# else here (a regrade's .old-ID, a stray name) is not a student.
for dir in "$out"/students/*/; do
    [ -d "$dir" ] || continue
    id=$(basename "$dir")
    case $id in '' | *[!A-Za-z0-9._-]* | .*) continue ;; esac
    status=$(head -c 2000 "$dir/status" 2>/dev/null) || status=""
    [ -n "$status" ] || status="no status (not finished?)"
    log=false
    [ -f "$dir/grade.log" ] && log=true
    if jq -e 'type == "object" and (.tests | type == "array")' "$dir/results.json" >/dev/null 2>&1; then
        jq -c --arg id "$id" --arg status "$status" --argjson log $log \
            '{id: $id, status: $status, log: $log, r: .}' "$dir/results.json"
    else
        # (a file there that is not one: the page says so beside the status)
        [ -e "$dir/results.json" ] && status="$status (its results.json is unreadable)"
        jq -nc --arg id "$id" --arg status "$status" --argjson log $log \
            '{id: $id, status: $status, log: $log, r: null}'
    fi
done >"$tmp/class.jsonl" || die "cannot read the students of $out"

# what make batch's class files know beside the results (class_files.sh's lines): names, late
# work, stale results, and the roster's students with no upload (no folder of their own)
if [ -s "$out/work/.class.jsonl" ]; then
    jq -c --slurpfile extra "$out/work/.class.jsonl" '. as $s | ([$extra[] | select(.id == $s.id)][0] // {}) as $e
        | . + {name: ($e.name // ""), stale: ($e.stale // ""), late_days: ($e.late_days // ""),
               penalty: ($e.penalty // ""), final: ($e.final // null), submitted: ($e.submitted // "")}' \
        "$tmp/class.jsonl" >"$tmp/class.more" || die "cannot read $out/work/.class.jsonl"
    jq -c 'select((.status | type) == "string" and (.status | startswith("missing")))
        | {id, status, log: false, r: null, missing: true, name, stale: "", late_days: "", penalty: "",
           final: null, submitted: ""}' "$out/work/.class.jsonl" >>"$tmp/class.more"
    mv "$tmp/class.more" "$tmp/class.jsonl"
fi
: >"$tmp/similarity.tsv"
[ -f "$out/similarity.tsv" ] && head -c 200000 "$out/similarity.tsv" >"$tmp/similarity.tsv"

part() { # part NAME [jq options...]: report.jq's part NAME of the class
    name=$1
    shift
    jq -rs --arg part "$name" "$@" -f "$here/report.jq" "$tmp/class.jsonl"
}

# ---------------------------------------------------------------- the plots
# One SVG per plot, or an empty file when it has no data (the page says so instead): gnuplot
# fails on an empty data set. The SVG goes inside the page: gnuplot's XML head off, and its ids
# (the same in every plot) given the plot's name as prefix so that they stay unique.
plot() { # plot NAME [XTICS]
    : >"$tmp/$1.svg"
    part "$1.tsv" >"$tmp/$1.tsv" || die "report.jq failed on the class ($1)"
    [ -s "$tmp/$1.tsv" ] || return 0
    gnuplot -e "plot='$1'; data='$tmp/$1.tsv'; out='$tmp/$1.raw'; xt=\"${2:-}\"" \
        "$here/report.gp" 2>"$tmp/$1.err" || die "gnuplot failed on the $1 plot: $(head -n 5 "$tmp/$1.err")"
    # its warnings too: a plot it drew wrong
    sed "s/^/report: gnuplot ($1 plot): /" "$tmp/$1.err" >&2
    sed -n '/^<svg/,$p' "$tmp/$1.raw" |
        sed -e "s/id=\(['\"]\)/id=\1$1-/g" -e "s/href=\(['\"]\)#/href=\1#$1-/g" \
            -e "s/url(#/url(#$1-/g" >"$tmp/$1.svg"
}
plot scores
plot lost
plot gflops "$(part xtics)"

# ---------------------------------------------------------------- the page
part html --arg generated "$(date -u '+%Y-%m-%d %H:%M UTC') from $out" \
    --rawfile css "$here/report.css" --rawfile scores_svg "$tmp/scores.svg" \
    --rawfile lost_svg "$tmp/lost.svg" --rawfile gflops_svg "$tmp/gflops.svg" \
    --rawfile similarity "$tmp/similarity.tsv" \
    >"$out/report.html.tmp" || die "report.jq failed on the class (the page)"
mv "$out/report.html.tmp" "$out/report.html" || die "cannot write $out/report.html"
echo "report: $out/report.html ($(wc -l <"$tmp/class.jsonl") students)"
