#!/bin/sh
# tests/suite/sanitized_units.sh quiet|others - the unit tests' one run, built with ASan and UBSan
# (after tests/suite/sanitizers.sh has built them).
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# Those named in quiet_units judge a run beside nothing else (a busy machine's verdict is another:
# the spinners' timeout, a limit's seconds, the fairness of two groups' CPU): make test runs them
# before its lanes, on a quiet machine; the others in the second lane.
quiet_units="test_jail test_cgroup test_grader"
sanitized_units() {
    ok=0
    for bin in build/asan/unit/test_*; do
        case $bin in *.d) continue ;; esac # (the compiler's dependency files)
        name=$(basename "$bin")
        case " $quiet_units " in
        *" $name "*) [ "$1" = quiet ] || continue ;;
        *) [ "$1" = others ] || continue ;;
        esac
        # (a failure's own lines first: a test run twice, in two groups, has the first's far above
        # the tail)
        "$bin" >"$tmp/asan-$name.txt" 2>&1 ||
            { grep -E -B 3 -A 3 "check failed|^\[  (FAILED|ERROR) +\] [a-z]" "$tmp/asan-$name.txt" | head -n 40
              tail -n 40 "$tmp/asan-$name.txt"; ok=1; }
        if grep -qE "ERROR: AddressSanitizer|runtime error:" "$tmp/asan-$name.txt"; then
            grep -E -A 30 "ERROR: AddressSanitizer|runtime error:" "$tmp/asan-$name.txt" | head -n 60
            ok=1
        fi
        grep -E "^\[  (PASSED|FAILED)" "$tmp/asan-$name.txt" | sed "s/^/$name: /"
    done
    return $ok
}

sanitized_units "${1:?usage: sanitized_units.sh quiet|others}"
