#!/bin/sh
# tests/suite/timing_lock.sh - timings on one device take turns (a lock per device).
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# make batch with JOBS > 1: two students' timings never overlap on one device. Each timed
# comparison takes a lock of the cache folder (one per device, mode 600). With it held from
# outside, an untimed grading finishes, and a timed one waits on it (the kernel's /proc/locks shows
# the grader blocked), then times once it is free, keeping its point
timing_lock() {
    cache=$tmp/lock-cache
    mkdir -p "$cache"
    lk() { "$grader" --submission solutions --ex 01 --no-memcheck --cache "$cache" \
        --tuning "$TUNING" --work "$tmp/work-lk" --results "$tmp/results-lk" "$@"; }
    lk >/dev/null 2>&1
    lock=$(ls "$cache"/timing-*.lock 2>/dev/null)
    [ -f "$lock" ] && [ "$(stat -c %a "$lock")" = 600 ] ||
        { echo "no timing lock of mode 600 in the cache folder: '$lock'"; return 1; }
    rm -f "$tmp/release"
    flock "$lock" sh -c 'while [ ! -e "$1" ]; do sleep 0.1; done' _ "$tmp/release" &
    holder=$!
    ok=0
    timeout 120 sh -c "$(printf '%s ' "$grader" --submission solutions --ex 01 --no-memcheck \
        --no-perf --cache "$cache" --tuning "$TUNING" --work "$tmp/work-lk" --results "$tmp/results-lk")" \
        >"$tmp/lock-np.txt" 2>&1 || { echo "--no-perf did not finish beside the held lock"; ok=1; }
    lk >"$tmp/lock.txt" 2>&1 &
    timed=$!
    blocked=0
    for _ in $(seq 1 600); do
        # a waiter is listed as "N: -> FLOCK ADVISORY WRITE PID ..."
        pids=$(awk '$2 == "->" && $3 == "FLOCK" { print $6 }' /proc/locks)
        for p in $pids; do
            # (this step's own grader: another test's may wait on its own lock meanwhile)
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = grader ] &&
                { [ "$p" = "$timed" ] || [ "$(cut -d' ' -f4 "/proc/$p/stat" 2>/dev/null)" = "$timed" ]; } &&
                blocked=1
        done
        [ $blocked -eq 1 ] && break
        kill -0 "$timed" 2>/dev/null || break
        sleep 0.2
    done
    touch "$tmp/release"
    wait "$holder"
    wait "$timed"
    status=$?
    [ $blocked -eq 1 ] || { echo "the timed grading never waited on the held lock"; ok=1; }
    [ $status -eq 0 ] && grep -q "^  ok   1/1  performance" "$tmp/lock.txt" ||
        { tail -n 20 "$tmp/lock.txt"; echo "after the wait, the timing lost its point"; ok=1; }
    return $ok
}

timing_lock
