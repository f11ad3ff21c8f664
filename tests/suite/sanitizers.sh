#!/bin/sh
# tests/suite/sanitizers.sh - the ASan and UBSan build, and planted bugs graded under it.
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# The grader and the unit tests built with AddressSanitizer and UBSan (make asan), and the planted
# submissions graded by it (tests/planted.sh fails any that shows a sanitizer report); the unit
# tests' one run is tests/suite/sanitized_units.sh. The sanitizers' shadow memory needs the jail's
# RLIMIT_DATA raised (memory_mb).
# A representative subset of the planted set by default (a build error, a crashing and an escaping
# host program, wrong and out-of-bounds kernels, oclgrind's race check, the timed runs, sizes of
# M x N x K), for time. (10's entries, which load the grader's tiles plugin, are left out: their
# memory check runs the ASan harness under oclgrind at N = 128, where ASan's allocator serves
# oclgrind's shadow memory and the run passes planted.sh's time limit; the plugin is C++ inside
# oclgrind, and the grader's reading of it is test_grader's, under ASan here.)
# ASAN_PLANTED=all runs every one, ASAN_PLANTED="NAME..." those.
asan_planted=$(grep -v '^#' tests/suite/asan_planted)
sanitizers() {
    make -s -j"$jobs" asan || return 1
    printf 'memory_mb = 67108864 # 64 TiB: ASan reserves about 20 TiB of address space\n' \
        >"$tmp/asan.conf"
    names=${ASAN_PLANTED:-$asan_planted}
    [ "$names" = all ] && names=""
    # shellcheck disable=SC2086 # (a list of names)
    GRADER=$root/build/asan/grader/grader GRADER_CONFIG=$tmp/asan.conf sh tests/planted.sh $names
}

sanitizers
