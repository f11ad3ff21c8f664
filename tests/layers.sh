#!/bin/sh
# tests/layers.sh - the grader's tree keeps its layers: reads every `#include "..."` of grader/
# and fails on an include cycle between modules (a file and its header are one: x.c including y.h
# and y.c including x.h is a cycle), or on an include that goes up a layer or across
# to a sibling wing. The layers, top first (grader/grader.h tells what each holds):
#     main (grader/*.c, grader.h)  >  tune  >  grade, bench, child, intake  >  text, oclgrind  >  exercise
#     >  jail  >  common/
# (intake/ is a program of its own, build/grader/intake, that includes only its own header)
# Before checking the tree it checks itself: a planted cycle and a planted upward include must
# each be refused.
#   sh tests/layers.sh [ROOT]   (ROOT: the repository, default this one)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}

# check TREE: the include edges of TREE/grader, then the verdict (exit 1 with one line per fault)
check() {
    tree=$1
    (cd "$tree" && find grader -name '*.[ch]' | sort | while read -r file; do
        dir=$(dirname "$file")
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" |
            while read -r name; do
                if [ -f "$dir/$name" ]; then
                    echo "$file $dir/$name"
                elif [ -f "grader/$name" ]; then
                    echo "$file grader/$name"
                elif [ -f "common/$name" ]; then
                    echo "$file common/$name"
                else
                    echo "$file ?$name"
                fi
            done
    done) | awk '
    function wing(path) {
        if (path ~ /^common\//) return "common"
        n = split(path, part, "/")
        return n == 2 ? "main" : part[2]
    }
    function rank(w) {
        if (w == "main") return 7
        if (w == "tune") return 6
        if (w == "grade" || w == "bench" || w == "child" || w == "intake") return 5
        if (w == "text" || w == "oclgrind") return 4
        if (w == "exercise") return 3
        if (w == "jail") return 2
        if (w == "common") return 1
        return 0
    }
    # depth-first search from v; a grey node reached again closes a cycle
    function visit(v,   i, w) {
        colour[v] = "grey"
        stack[++depth] = v
        for (i = 1; i <= outs[v]; i++) {
            w = out[v, i]
            if (colour[w] == "grey") {
                line = w
                for (k = depth; k >= 1 && stack[k] != w; k--) line = stack[k] " -> " line
                print "include cycle: " w " -> " line
                bad++
            } else if (colour[w] == "") visit(w)
        }
        depth--
        colour[v] = "black"
    }
    # a file and its header are one module (bench/measure.c and .h): a cycle between modules
    # inside a wing is a cycle too (bench_command.c needs measure.h, whose module needs bench.h)
    function module(path) { sub(/\.[ch]$/, "", path); return path }
    {
        from = module($1); to = ($2 ~ /^\?/) ? $2 : module($2)
        if (from == to) next
        if (to ~ /^\?/) { print from ": includes " substr(to, 2) ", found nowhere"; bad++; next }
        out[from, ++outs[from]] = to
        node[from] = 1; node[to] = 1
        fw = wing(from); tw = wing(to)
        if (rank(fw) == 0) { print from ": in no layer (grader/" fw "/ is not one)"; bad++ }
        else if (fw != tw && rank(tw) >= rank(fw)) {
            print from " includes " to ": " (rank(tw) > rank(fw) ? "up a layer" : "across to a sibling wing") \
                " (" fw " may include only the layers below it)"
            bad++
        }
    }
    END {
        for (v in node) if (colour[v] == "") visit(v)
        exit bad > 0
    }'
}

# the check must catch what it is for: a planted cycle, then a planted include up a layer
plant=$(mktemp -d)
trap 'rm -rf "$plant"' EXIT
mkdir -p "$plant/common" "$plant/grader/jail" "$plant/grader/exercise"
echo '#include "clu.h"' >"$plant/grader/jail/jail.h"
echo '#include "jail/jail.h"' >"$plant/grader/exercise/exercise.h"
: >"$plant/common/clu.h"
check "$plant" >/dev/null || { echo "layers.sh: the planted tree without a fault was refused"; exit 1; }
echo '#include "b.h"' >"$plant/grader/jail/a.h"
echo '#include "a.h"' >"$plant/grader/jail/b.h"
check "$plant" | grep -q "include cycle" || { echo "layers.sh: a planted cycle passed"; exit 1; }
rm "$plant/grader/jail/a.h" "$plant/grader/jail/b.h"
# two modules of one wing that need each other: a.c includes b.h, b.c includes a.h
: >"$plant/grader/jail/a.h"
: >"$plant/grader/jail/b.h"
echo '#include "jail/b.h"' >"$plant/grader/jail/a.c"
echo '#include "jail/a.h"' >"$plant/grader/jail/b.c"
check "$plant" | grep -q "include cycle" || { echo "layers.sh: a planted cycle of two modules passed"; exit 1; }
rm "$plant"/grader/jail/a.[ch] "$plant"/grader/jail/b.[ch]
echo '#include "exercise/exercise.h"' >>"$plant/grader/jail/jail.h"
check "$plant" | grep -q "up a layer" || { echo "layers.sh: a planted upward include passed"; exit 1; }
# grade/ below the tune wing that uses it: grade reaching up into tune/ is refused too
sed -i '$d' "$plant/grader/jail/jail.h"
mkdir -p "$plant/grader/grade" "$plant/grader/tune"
echo '#include "grade/grade.h"' >"$plant/grader/tune/tune.h"
echo '#include "exercise/exercise.h"' >"$plant/grader/grade/grade.h"
check "$plant" >/dev/null || { echo "layers.sh: tune/ above grade/ was refused"; exit 1; }
echo '#include "tune/tune.h"' >"$plant/grader/grade/x.c"
check "$plant" | grep -q "grader/grade/x includes grader/tune/tune: up a layer" ||
    { echo "layers.sh: grade/ including tune/ passed"; exit 1; }

check "$root" || exit 1
echo "grader/: $(find "$root/grader" -name '*.[ch]' | wc -l) files in layers, no cycle, none up a layer"
