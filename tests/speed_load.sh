#!/bin/sh
# tests/speed_load.sh [COUNT=5] - a copy of 01's solution graded COUNT times beside two busy loops
# at nice 0 that the grader does not control (outside load on this machine's cores): every timed
# ratio to the reference must lie within [0.8, 1.25] and every performance point be kept. The
# grader may measure a starved round again and add rounds; it may not lose a point to the load.
# Then a slow capstone, alone and beside load that comes and goes: the vendor's launches it starved
# must not hand it the vendor's points (more rounds of the kernel and OpenBLAS alone follow, in the
# load's gaps, or the points leave the maximum where either never had a quiet launch).
# `make test-speed` runs it (CI too: .ci/run); about two minutes and a half on 2 cores.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-5}
tmp=$(mktemp -d)
loops=""
cleanup() {
    [ -n "$loops" ] && kill $loops 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/sub/01_per_element" "$tmp/tuning"
cp "$root"/solutions/01_per_element/* "$tmp/sub/01_per_element/"
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    loops="$loops $!"
done
fails=0
i=1
while [ $i -le "$count" ]; do
    "$root/build/grader/grader" --root "$root" --submission "$tmp/sub" --ex 01 --no-memcheck \
        --tuning "$tmp/tuning" --json "$tmp/g$i.json" --work "$tmp/w$i" --results "$tmp/r$i" \
        >"$tmp/g$i.txt" 2>&1
    perf=$(jq -r '.tests[] | select(.name | contains("performance")) | "\(.score)/\(.max_score)"' "$tmp/g$i.json" 2>/dev/null)
    ratio=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$tmp/g$i.json" 2>/dev/null |
        sed -n 's/^ratio \([0-9.]*\),.*/\1/p')
    rounds=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$tmp/g$i.json" 2>/dev/null |
        sed -n 's/.*launch[es]* per timed command, \(.*\), on the grader.s clock.*/\1/p')
    if [ "$perf" = 1/1 ] && awk -v r="${ratio:-0}" 'BEGIN { exit !(r >= 0.8 && r <= 1.25) }'; then
        echo "ok   speed beside load: grading $i: ratio $ratio, point kept ($rounds)"
    else
        echo "FAIL speed beside load: grading $i: ratio ${ratio:-none}, performance ${perf:-missing}"
        grep -A 6 "performance" "$tmp/g$i.txt"
        fails=$((fails + 1))
    fi
    i=$((i + 1))
done
kill $loops 2>/dev/null
loops=""

# The capstone's vendor points beside load that comes and goes (two busy loops for 1.2 s, then
# 0.3 s off, as a neighbour's builds and gradings are): 11's kernel graded as 13, correct and slow
# (0.6x to 0.9x OpenBLAS here alone), must not reach the fraction at 1.5x because OpenBLAS's two
# threads, which wait on each other, lost their CPUs in some rounds (before the grader's CPU
# counts, 1.19x and 1.22x). The fraction at 1x is not asserted: this machine runs OpenBLAS at
# 33 ms or at 63 ms (N = 1024) in spells of a second or two with nothing else running (the host's
# doing, unseen from inside), and in the slow spells this kernel, hit less, measured 1.07x. Graded
# alone, then twice beside the load; each ratio is printed. Last, beside two busy loops that never
# stop: OpenBLAS has no quiet launch, so the part must be left out, not judged.
mkdir -p "$tmp/slow/13_fastest_sgemm"
cp "$root"/solutions/13_fastest_sgemm/* "$tmp/slow/13_fastest_sgemm/"
cp "$root/solutions/11_any_size/kernel.cl" "$tmp/slow/13_fastest_sgemm/kernel.cl"
# (at one N, 1024, the one the reference's pace picks here alone: beside load its slower first
# launch could keep N at 512, where the two are in another ratio)
printf '13_fastest_sgemm.perf_n = 1024\n' >"$tmp/capstone.conf"
alone=""
for i in 0 1 2 3; do
    if [ $i -eq 3 ]; then
        kill $loops 2>/dev/null
        loops=""
        for _ in 1 2; do
            sh -c 'while :; do :; done' &
            loops="$loops $!"
        done
    fi
    if [ $i -eq 1 ]; then
        sh -c 'while :; do
            timeout 1.2 sh -c "while :; do :; done" & timeout 1.2 sh -c "while :; do :; done"
            sleep 0.3
        done' &
        loops=$!
    fi
    "$root/build/grader/grader" --root "$root" --submission "$tmp/slow" --ex 13 --no-memcheck \
        --config "$tmp/capstone.conf" --tuning "$tmp/tuning" --json "$tmp/c$i.json" --work "$tmp/cw$i" --results "$tmp/cr$i" \
        >"$tmp/c$i.txt" 2>&1
    vendor=$(jq -r '.tests[] | select(.name | contains("speed against")) | .output' "$tmp/c$i.json" 2>/dev/null)
    reached=$(printf '%s\n' "$vendor" | sed -n 's/.*: \([0-9]\) of the [0-9] fractions reached.*/\1/p')
    ratio=$(printf '%s\n' "$vendor" | sed -n "s/^yours at \([0-9.]*\)x .*/\1/p")
    anchor=$(printf '%s\n' "$vendor" | grep -E "points' anchor|^yours +fastest")
    yours=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$tmp/c$i.json" 2>/dev/null |
        grep -E "^(yours|N =)")
    if [ $i -eq 0 ]; then
        what="a slow capstone with the machine to itself"
        alone=$ratio
    elif [ $i -eq 3 ]; then
        what="a slow capstone beside two busy loops throughout"
    else
        what="a slow capstone beside load that comes and goes: grading $i"
    fi
    good=$([ -n "$reached" ] && [ "$reached" -le 2 ] && [ -n "$ratio" ] && echo 1)
    # (or no verdict at all: where every launch of OpenBLAS, or of the kernel, was starved, in the
    # rounds and the rounds again, the points leave the maximum: never judged on a starved launch)
    busy=$(printf '%s\n' "$vendor" | grep -oE "too busy to time (OpenBLAS|your kernel against OpenBLAS): in all [0-9]* of its launches")
    left_out=$(jq -r '.tests[] | select(.name | contains("speed against")) | "\(.max_score) \(.extra_data.left_out)"' "$tmp/c$i.json" 2>/dev/null)
    [ -n "$busy" ] && [ "$left_out" != "0 3" ] && busy="" # (its 3 points out of the maximum, none scored)
    if [ $i -eq 3 ] && [ -z "$busy" ]; then
        echo "FAIL $what: judged on a starved OpenBLAS (${ratio:-no ratio}x, ${reached:-no} fractions)"
        printf '%s\n%s\n' "$yours" "$vendor" | sed 's/^/     /'
        fails=$((fails + 1))
    elif [ -z "$good" ] && [ -n "$busy" ] && [ -z "$reached" ]; then
        echo "ok   $what: not judged, $busy (its points left out of the maximum)"
    elif [ -n "$good" ]; then
        echo "ok   $what: ${ratio}x OpenBLAS, $reached of the fractions${alone:+ (alone: ${alone}x)}"
        printf '%s\n%s\n' "$yours" "$anchor" | sed 's/^/     /'
    else
        echo "FAIL $what: ${ratio:-no ratio}x OpenBLAS (alone: ${alone:-none}x), ${reached:-no} fractions reached"
        printf '%s\n%s\n' "$yours" "$vendor" | sed 's/^/     /'
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ]
