# tests/check.sh - the check() the test scripts share, sourced after setting check_label (the
# script's name in its lines): `check DESCRIPTION COMMAND...` runs the command and prints
# "ok   LABEL: DESCRIPTION" or "FAIL LABEL: DESCRIPTION", counting the failures in $fails.
# (tests/gradescope.sh keeps its own, which also silences the command.)
fails=0
check() { # check DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@"; then echo "ok   $check_label: $what"; else echo "FAIL $check_label: $what"; fails=$((fails + 1)); fi
}
