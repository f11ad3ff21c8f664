# tests/course_setup.sh - what tests/course.sh and tests/course_interrupt.sh begin with (sourced):
# $root, the exercise ($ex), a scratch folder ($tmp, removed at exit with any batch process group
# still in $leader), check(), and the class's folders and config ($class, $out, $conf: one
# exercise, short settings, no timing or memory check; each script adds its own lines).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
ex=04_local_B
tmp=$(mktemp -d)
leader=""
trap '[ -n "$leader" ] && kill -9 -"$leader" 2>/dev/null; rm -rf "$tmp"' EXIT
check_label=course
. "$root/tests/check.sh"
class=$tmp/class
out=$tmp/out
conf=$tmp/course.conf
cat >"$conf" <<EOF
exercises = $ex
timeout = 10
$ex.sizes = 16, 100
$ex.points.perf = 0
$ex.points.memcheck = 0
EOF
