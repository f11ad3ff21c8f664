#!/bin/sh
# tests/docs.sh - the three READMEs (README.md, grader/README.md, grader/batch/README.md) and the
# exercises' keep their word, without building or grading anything (about a second):
#   1. every relative link points at a file that exists, and its #anchor at a heading there
#      (GitHub's anchors: lower case, punctuation dropped, spaces as -, a repeat gets -1, -2, ...);
#   2. every `make TARGET` they name (in `code` or an indented command line) is a target: in the
#      .PHONY of the Makefile it runs with (the top one, or for an exercise's page its own
#      Makefile and common/rules.mk), or `make -n TARGET` succeeds there;
#   3. every exercise README's tuning values agree with its kernel's `#ifndef NAME` /
#      `#define NAME VALUE` defaults: a `| name | default |` table, a row marked "(the defaults)"
#      under a header of names (`| TSM TSN TSK ... |`), and a `# default N 1024, TS 32` comment.
#
#   sh tests/docs.sh [ROOT]      exit 1 naming each broken link, target or value
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
pages="README.md grader/README.md grader/batch/README.md"
for f in exercises/*/README.md; do pages="$pages $f"; done
status=0
fail() {
    echo "docs: $*"
    status=1
}

# the anchors of a page's headings, one a line
anchors() {
    awk '/^(```|~~~)/ { fence = !fence } fence { next }
        /^#+ / { h = $0; sub(/^#+ +/, "", h); h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
            if (h in seen) { n = seen[h]++; print h "-" n } else { seen[h] = 1; print h } }' "$1"
}

# each page's links, as PAGE<TAB>LINE<TAB>TARGET (code spans and fenced blocks left out)
links() {
    awk '/^(```|~~~)/ { fence = !fence } fence { next }
        { line = $0; gsub(/`[^`]*`/, "", line)
          while (match(line, /\]\([^) ]+\)/)) {
              print FILENAME "\t" FNR "\t" substr(line, RSTART + 2, RLENGTH - 3)
              line = substr(line, RSTART + RLENGTH) } }' "$@"
}

# 1. links
links $pages | while IFS="$(printf '\t')" read -r page line target; do
    case $target in
    http://* | https://* | mailto:*) continue ;;
    esac
    path=${target%%#*}
    anchor=
    case $target in *'#'*) anchor=${target#*#} ;; esac
    if [ -z "$path" ]; then
        file=$page
    else
        file=$(dirname "$page")/$path
    fi
    if [ ! -e "$file" ]; then
        echo "docs: $page:$line: link to $target: no $file"
        continue
    fi
    if [ -n "$anchor" ]; then
        [ -f "$file" ] && anchors "$file" | grep -qxF "$anchor" ||
            echo "docs: $page:$line: link to $target: no heading #$anchor in $file"
    fi
done >"${TMPDIR:-/tmp}/docs.$$"
if [ -s "${TMPDIR:-/tmp}/docs.$$" ]; then
    cat "${TMPDIR:-/tmp}/docs.$$"
    status=1
else
    echo "ok   every relative link of the READMEs reaches a file and a heading"
fi
rm -f "${TMPDIR:-/tmp}/docs.$$"

# 2. make targets: PAGE<TAB>LINE<TAB>TARGET for each `make ...` in a code span or a command line
# (a line indented 4 or more, outside prose), the first word that is not an option or VAR=VALUE
targets() {
    awk 'function scan(text,    n, w, i, t) {
            n = split(text, w, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                if (w[i] != "make") continue
                if (i > 1 && w[i - 1] !~ /^(|&&|;|\|\||\$\(|[A-Z_]+=[^ ]*)$/) continue
                for (i++; i <= n; i++) {
                    t = w[i]
                    if (t == "-C" || t == "-f") { i++; continue }
                    if (t ~ /^-/ || t ~ /^\[?[A-Z_]+=/) continue
                    if (t == "&&" || t == ";" || t == "#" || t == "|") break
                    sub(/[,.:;)]+$/, "", t)
                    if (t ~ /^[a-z][a-z0-9_-]*$/) print FILENAME "\t" FNR "\t" t
                    break
                } } }
        /^(```|~~~)/ { fence = !fence; next }
        # an indented code block: 4 spaces or more after a blank line or another code line
        { code = fence || (/^    / && !/^ *([-*+]|[0-9]+\.) / && (prev == "" || prevcode)) }
        code { scan($0) }
        { prev = $0; sub(/^[ \t]+$/, "", prev); prevcode = code }
        { line = $0
          while (match(line, /`[^`]+`/)) {
              scan(substr(line, RSTART + 1, RLENGTH - 2)); line = substr(line, RSTART + RLENGTH) } }' "$@"
}
phony() {
    sed -n 's/^\.PHONY: *//p' "$@" | tr ' ' '\n'
}
targets $pages | sort -u | while IFS="$(printf '\t')" read -r page line target; do
    case $page in
    exercises/*)
        dir=$(dirname "$page")
        phony Makefile common/rules.mk "$dir/Makefile" | grep -qxF "$target" && continue
        make -n -C "$dir" "$target" >/dev/null 2>&1 && continue ;;
    *)
        phony Makefile common/rules.mk | grep -qxF "$target" && continue
        make -n "$target" >/dev/null 2>&1 && continue ;;
    esac
    echo "docs: $page:$line: make $target: no such target"
done >"${TMPDIR:-/tmp}/docs.$$"
if [ -s "${TMPDIR:-/tmp}/docs.$$" ]; then
    cat "${TMPDIR:-/tmp}/docs.$$"
    status=1
else
    echo "ok   every make TARGET the READMEs name is a target"
fi
rm -f "${TMPDIR:-/tmp}/docs.$$"

# 3. tuning values: NAME<TAB>VALUE<TAB>LINE the README states, against the kernel's defaults
stated() {
    awk -F'|' 'function trim(s) { gsub(/^[ \t*]+|[ \t*]+$/, "", s); return s }
        /^\|/ { c1 = trim($2); c2 = trim($3)
            if (c1 == "name" && c2 == "default") { table = 1; next }
            if (c1 ~ /^[A-Z][A-Z0-9_]*( [A-Z][A-Z0-9_]*)+$/) { nn = split(c1, names, " "); next }
            if (c1 ~ /^-+$/ || c1 ~ /^:?-+:?$/) next
            if (table && c1 ~ /^[A-Z][A-Z0-9_]*$/ && c2 ~ /^[0-9]+$/) print c1 "\t" c2 "\t" FNR
            if (nn && c1 ~ /\(the defaults\)/) { nv = split(c1, v, " ")
                for (k = 1; k <= nn && k <= nv; k++) if (v[k] ~ /^[0-9]+$/) print names[k] "\t" v[k] "\t" FNR }
            next }
        { table = 0; nn = 0 }
        /# default N [0-9]+/ { s = substr($0, index($0, "# default N ") + 12)
            n = split(s, p, ",")
            for (k = 2; k <= n; k++) { split(p[k], w, " "); if (w[1] ~ /^[A-Z][A-Z0-9_]*$/ && w[2] ~ /^[0-9]+$/) print w[1] "\t" w[2] "\t" FNR } }' "$1"
}
bad=0
for readme in exercises/*/README.md; do
    dir=$(dirname "$readme")
    kernel=$dir/kernel.cl
    [ -f "$kernel" ] || continue
    stated "$readme" >"${TMPDIR:-/tmp}/docs.$$"
    while IFS="$(printf '\t')" read -r name value line; do
        for k in "$kernel" "solutions/${dir#exercises/}/kernel.cl"; do
            got=$(awk -v n="$name" '$1 == "#ifndef" && $2 == n { want = 1; next }
                want && $1 == "#define" && $2 == n { print $3; exit } { want = 0 }' "$k")
            if [ -z "$got" ]; then
                echo "docs: $readme:$line: $name = $value, but $k has no #ifndef $name / #define $name"
                bad=1
            elif [ "$got" != "$value" ]; then
                echo "docs: $readme:$line: $name = $value, but $k defaults it to $got"
                bad=1
            fi
        done
    done <"${TMPDIR:-/tmp}/docs.$$"
done
rm -f "${TMPDIR:-/tmp}/docs.$$"
if [ $bad = 0 ]; then
    echo "ok   every exercise README's tuning values are its kernel's defaults"
else
    status=1
fi
# grader.h's index of the tree names every source file of the grader's wings (a file added
# without a line there is one a newcomer cannot find)
unindexed=""
for f in grader/*/*.c grader/*/*.cpp; do
    name=$(basename "$f" | sed 's/\./\\./g')
    grep -Eq "[ (]$name([ ,;:)]|\$)" grader/grader.h || unindexed="$unindexed $f"
done
# small files with one job: no source file of ours over 600 lines, README.md (the student's first
# page) at most 200
long=$(wc -l grader/*.c grader/*/*.c grader/*/*.cpp common/*.c |
    awk '$2 != "total" && $1 > 600 { printf " %s (%d)", $2, $1 }')
readme=$(wc -l <README.md)
if [ -z "$long" ] && [ "$readme" -le 200 ]; then
    echo "ok   no source file over 600 lines; README.md $readme lines"
else
    echo "docs: over 600 lines:${long:- none}; README.md: $readme lines (at most 200)"
    status=1
fi
if [ -z "$unindexed" ]; then
    echo "ok   grader/grader.h's index names every source file of grader/"
else
    echo "docs: grader/grader.h's index does not name:$unindexed"
    status=1
fi
exit $status
