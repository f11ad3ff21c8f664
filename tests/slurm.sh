#!/bin/sh
# tests/slurm.sh - `make batch ENGINE=slurm` on a real Slurm: a one-node cluster of its own
# (slurmctld, slurmd and munged from Debian's slurm-wlm and munge, with a generated slurm.conf and
# munge key, state, ports and sockets of their own: nothing system-wide is touched), stopped at
# the end with every job it ran. `make test-slurm` runs it (as root: slurmd starts the jobs).
#
#   1. OUT under /tmp is refused with one line (the tasks of other nodes would not see it);
#   2. a class of 8 from tests/corpus/ (good, archived, refused, wrong, hostile entries) graded by
#      `make batch` and by ENGINE=slurm with the same GRADER_SECRET: the same gradebook (timing
#      columns aside: the config gives performance 0 points), the same seeds (their fingerprints),
#      class files written by the job that waits for the array, and neither the secret nor a seed
#      in what Slurm keeps of the jobs (scontrol shows it to every user);
#   3. the class again, one task at a time: half-way, the last pending tasks are cancelled;
#      STATUS=1 counts them failed and names them; a second run submits exactly those (and the
#      refused archive, which every run tries again), none of those still pending or running, and
#      the gradebook ends with every row, equal to the local one.
# Where Slurm cannot start (not root, a daemon missing or failing), one line says why: skipped.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
fails=0
pass() { echo "ok   slurm: $*"; }
fail() { echo "FAIL slurm: $*"; fails=$((fails + 1)); }
skip() { echo "skip slurm: $* (make batch ENGINE=slurm not tested)"; exit 0; }

[ "$(id -u)" -eq 0 ] || skip "not root: slurmd must be root to start jobs"
for tool in slurmctld slurmd munged sbatch squeue scancel scontrol sinfo; do
    command -v $tool >/dev/null 2>&1 || skip "no $tool (sh common/deps.sh slurm installs it)"
done

# the daemons' state: this node's own (a cluster's is too)
tmp=$(mktemp -d)
# the class and every OUT: on the workbook's file system, as a cluster's shared one would be (a
# folder under /tmp is refused, as check 1 shows)
work=$root/build/test-slurm.$$
mkdir -p "$work"
secret=slurm-test-$$-$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')

stop_cluster() {
    if [ -f "$tmp/ctld.pid" ]; then
        # every job first: slurmstepd outlives slurmd
        jobs=$(squeue -h -o %A 2>/dev/null)
        # shellcheck disable=SC2086 # (a list of job ids)
        [ -n "$jobs" ] && scancel $jobs 2>/dev/null
        for _ in $(seq 1 40); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.5; done
    fi
    for pidfile in "$tmp/d.pid" "$tmp/ctld.pid" "$tmp/munge/pid"; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$pidfile"
    done
}
cleanup() {
    stop_cluster
    rm -rf "$tmp" "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---------------------------------------------------------------- a one-node cluster
start=$(date +%s)
# the machine's own job steps, if it runs a Slurm: any other one at the end is ours
steps_before=$(ps -eo pid=,comm= | awk '$2 == "slurmstepd" { print $1 }')
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/munge" && chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/key" && chmod 400 "$tmp/munge/key"
munged --key-file="$tmp/munge/key" --socket="$tmp/munge/sock" --pid-file="$tmp/munge/pid" \
    --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" --force >"$tmp/munged.txt" 2>&1 ||
    skip "munged did not start: $(tail -n 1 "$tmp/munged.txt")"
# ports of its own, from this test's process id (a cluster's usual 6817 and 6818 may be in use)
port=$((20000 + ($$ % 10000) * 2))
host=$(hostname -s)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=clmmtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/ctld.pid
SlurmdPidFile=$tmp/d.pid
SlurmctldLogFile=$tmp/ctld.log
SlurmdLogFile=$tmp/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(free -m | awk '/^Mem:/ { print $2 }') State=UNKNOWN
PartitionName=class Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$tmp/slurm.conf
export SLURM_CONF
slurmctld -f "$SLURM_CONF" >"$tmp/ctld.txt" 2>&1 || skip "slurmctld did not start: $(tail -n 1 "$tmp/ctld.txt")"
slurmd -f "$SLURM_CONF" >"$tmp/d.txt" 2>&1 || skip "slurmd did not start: $(tail -n 1 "$tmp/d.txt")"
up=0
for _ in $(seq 1 60); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && { up=1; break; }
    sleep 0.5
done
[ $up -eq 1 ] || skip "the node never came up idle: $(tail -n 1 "$tmp/d.log" 2>/dev/null)"
echo "slurm: a one-node cluster up in $(($(date +%s) - start)) s ($(nproc) CPUs, ports $port-$((port + 1)))"

# every job of ours has left the queue (the class files' job too)
wait_queue() { # wait_queue SECONDS
    for _ in $(seq 1 $(($1 * 2))); do
        [ -z "$(squeue -h -o %A 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    fail "jobs still in the queue after $1 s: $(squeue -h -r -o '%i %T' | tr '\n' ' ')"
    return 1
}

# ---------------------------------------------------------------- the class and its config
sh tests/corpus.sh assemble "$work/all" >"$work/assemble.txt" 2>&1 ||
    { cat "$work/assemble.txt"; fail "tests/corpus.sh assemble"; exit 1; }
class=$work/class
mkdir -p "$class"
for entry in -A1 archive_dotdot.tar.gz compile_error forged_results good good_tar.tar.gz \
    oob_write reads_secrets; do
    cp -r "$work/all/$entry" "$class/" || fail "no $entry in the assembled corpus"
done
# the corpus's limits, performance worth nothing (its timing is no verdict on a shared machine)
# and a short one; each task one CPU, so that two run at once here
{
    cat tests/corpus.conf
    printf '04_local_B.points.perf = 0\n04_local_B.perf_n = 64\n'
    printf 'slurm.cpus = 1\nslurm.memory_mb = 1024\nslurm.time_minutes = 10\n'
} >"$work/class.conf"

# A workbook on this node's own disk (a clone under /tmp) would be refused as a cluster's: this
# cluster is this one node, so it says so (ONE_NODE=1), but not for check 1
one_node=0
case $root/ in /tmp/* | /var/tmp/* | /dev/shm/* | /run/*) one_node=1 ;; esac
[ -n "${TMPDIR:-}" ] && case $root/ in "${TMPDIR%/}"/*) one_node=1 ;; esac
case $(stat -f -c %T "$root" 2>/dev/null) in tmpfs | ramfs) one_node=1 ;; esac
batch() { # batch ARGS...: make batch with the class's settings and the secret, its output kept
    GRADER_SECRET=$secret make -s batch SUBMISSIONS="$class" CONFIG="$work/class.conf" \
        ONE_NODE=$one_node "$@"
}
# a student's rows, timing columns aside (those the header names "... GFLOP/s")
rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ / GFLOP\/s$/ }
        { line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line (line == "" ? "" : ",") $i; print line }' \
        "$1/gradebook.csv"
}
fingerprints() { # fingerprints OUT: ID FINGERPRINT per graded student
    for d in "$1"/students/*/; do
        printf '%s %s\n' "$(basename "$d")" "$(grep -o 'fingerprint [0-9a-f]*' "$d/grade.log" 2>/dev/null | head -n 1)"
    done
}
# a run the machine was too busy for leaves "not graded" rows: a run again grades them (as an
# instructor would)
settle() { # settle OUT ARGS...: run again while a status says "not graded"
    settle_out=$1
    shift
    for _ in 1 2; do
        grep -q '^not graded' "$settle_out"/students/*/status 2>/dev/null || return 0
        echo "slurm: the machine was too busy for some: run again"
        batch OUT="$settle_out" "$@" >>"$work/settle.txt" 2>&1
        [ "${1:-}" = ENGINE=slurm ] && wait_queue 300
    done
}

# ---------------------------------------------------------------- 1. OUT on a node's own disk
said=$(batch ENGINE=slurm OUT=/tmp/clmm-slurm-out.$$ ONE_NODE=0 2>&1)
status=$?
[ $status -ne 0 ] && [ "$(printf '%s\n' "$said" | grep -c '^batch:')" -eq 1 ] &&
    printf '%s\n' "$said" | grep -q "is on this node only" && [ -z "$(squeue -h -o %A)" ] &&
    pass "OUT under /tmp refused with one line, nothing submitted" ||
    fail "OUT under /tmp: exit $status: $said"
rm -rf "/tmp/clmm-slurm-out.$$"

# ---------------------------------------------------------------- 2. the same gradebook
t0=$(date +%s)
batch OUT="$work/local" JOBS=2 >"$work/local.txt" 2>&1 || { tail -n 5 "$work/local.txt"; fail "local make batch"; }
settle "$work/local" JOBS=2
echo "slurm: local make batch of 8 in $(($(date +%s) - t0)) s"
t0=$(date +%s)
batch ENGINE=slurm OUT="$work/slurm" >"$work/slurm1.txt" 2>&1 ||
    { cat "$work/slurm1.txt"; fail "make batch ENGINE=slurm"; }
job=$(awk 'NR == 1 { print $1 }' "$work/slurm/private/slurm/jobs" 2>/dev/null)
# what Slurm keeps of the array (its script, environment and command line) holds no secret
for j in $job $(squeue -h -o %A); do
    scontrol show job -dd "$j" 2>/dev/null
    scontrol write batch_script "$j" - 2>/dev/null
done >"$work/scontrol.txt"
if [ -z "$job" ] || ! grep -q "grade_one.sh" "$work/scontrol.txt"; then
    fail "no job array recorded or shown by scontrol: $(cat "$work/slurm1.txt")"
elif grep -qF "$secret" "$work/scontrol.txt" || grep -q 'GRADER_SECRET' "$work/scontrol.txt"; then
    fail "the secret is in what scontrol shows of the jobs"
else
    pass "job array $job submitted; scontrol shows no secret"
fi
wait_queue 400
settle "$work/slurm" ENGINE=slurm
echo "slurm: make batch ENGINE=slurm of 8 in $(($(date +%s) - t0)) s"
ls "$work"/slurm/private/slurm/logs/class-files-*.out >/dev/null 2>&1 &&
    grep -q "gradebook" "$work"/slurm/private/slurm/logs/class-files-*.out &&
    [ -s "$work/slurm/summary.md" ] && [ -s "$work/slurm/junit.xml" ] &&
    pass "the class files written by the job after the array" ||
    fail "no class files from the job after the array"
if [ -s "$work/local/gradebook.csv" ] && rows "$work/local" >"$work/local.rows" &&
    rows "$work/slurm" >"$work/slurm.rows" 2>/dev/null && cmp -s "$work/local.rows" "$work/slurm.rows"; then
    pass "the gradebook equals make batch's ($(($(wc -l <"$work/local.rows") - 1)) rows, timings aside)"
else
    fail "the gradebooks differ (local < > slurm):"
    diff "$work/local.rows" "$work/slurm.rows"
fi
[ "$(wc -l <"$work/local.rows")" -eq 9 ] && [ "$(grep -c ',graded,' "$work/local.rows")" -eq 7 ] &&
    grep -q '^archive_dotdot,.*refused' "$work/local.rows" && grep -Eq '^good,.*,([0-9]+),\1,,graded,' "$work/local.rows" &&
    grep -Eq '^compile_error,.*,0,[0-9]+,,graded,' "$work/local.rows" ||
    { fail "the class's verdicts are not the corpus's:"; cat "$work/local.rows"; }
fingerprints "$work/local" >"$work/local.seeds"
fingerprints "$work/slurm" >"$work/slurm.seeds"
[ "$(grep -c 'fingerprint [0-9a-f]' "$work/local.seeds")" -eq 7 ] && cmp -s "$work/local.seeds" "$work/slurm.seeds" &&
    pass "the same seeds (7 fingerprints)" ||
    { fail "seed fingerprints differ:"; diff "$work/local.seeds" "$work/slurm.seeds"; }
[ -z "$(ls -A "$work/slurm/private/seeds")" ] && [ "$(stat -c %a "$work/slurm/private")" = 700 ] &&
    pass "every seed used and removed; OUT/private is 700" ||
    fail "seeds left: $(ls "$work/slurm/private/seeds"), private $(stat -c %a "$work/slurm/private")"

# ---------------------------------------------------------------- 3. cancelled half-way, resumed
t0=$(date +%s)
out2=$work/slurm2
batch ENGINE=slurm OUT="$out2" JOBS=1 >"$work/slurm2.txt" 2>&1 || { cat "$work/slurm2.txt"; fail "the second class"; }
job=$(awk 'NR == 1 { print $1 }' "$out2/private/slurm/jobs" 2>/dev/null)
list=$(awk 'NR == 1 { print $2 }' "$out2/private/slurm/jobs" 2>/dev/null)
for _ in $(seq 1 600); do
    [ "$(ls "$out2"/students/*/status 2>/dev/null | wc -l)" -ge 3 ] && break
    sleep 0.5
done
cancelled=""
for task in 5 6 7; do
    if squeue -h -r -j "$job" -o '%K %T' 2>/dev/null | grep -qx "$task PENDING"; then
        scancel "${job}_$task" && cancelled="$cancelled $(sed -n "$((task + 1))p" "$list" | cut -f1)"
    fi
done
[ -n "$cancelled" ] || fail "nothing left pending to cancel: $(squeue -h -r -o '%i %T' | tr '\n' ' ')"
for _ in $(seq 1 20); do
    squeue -h -r -j "$job" -o '%K' | grep -qx '[567]' || break
    sleep 0.5
done
make -s batch ENGINE=slurm ONE_NODE=$one_node OUT="$out2" SUBMISSIONS="$class" STATUS=1 >"$work/status.txt" 2>&1
counts=$(sed -n 's/^batch: 8 students in .*: \([0-9]*\) done, \([0-9]*\) running, \([0-9]*\) pending, \([0-9]*\) failed, \([0-9]*\) not submitted.*/\1 \2 \3 \4 \5/p' "$work/status.txt")
if [ -z "$counts" ]; then
    fail "STATUS=1 gives no counts: $(cat "$work/status.txt")"
else
    set -- $counts
    named=1
    for id in $cancelled; do grep -q "^batch: failed $id: no result" "$work/status.txt" || named=0; done
    [ $(($1 + $2 + $3 + $4 + $5)) -eq 8 ] && [ "$4" -ge "$(echo $cancelled | wc -w)" ] && [ "$5" -eq 0 ] &&
        [ "$1" -ge 2 ] && [ $named -eq 1 ] &&
        pass "STATUS=1 after scancel of$cancelled: $1 done, $2 running, $3 pending, $4 failed (named)" ||
        { fail "STATUS=1 after scancel of$cancelled:"; cat "$work/status.txt"; }
fi
# what the second run must submit: the cancelled, and whoever has neither a result nor a
# refusal (a refused archive's status is current while its upload is the same: its stamp says
# so); never a student still pending or running
squeue -h -r -j "$job" -o '%K' 2>/dev/null >"$work/active.txt"
expected=$(for id in $cancelled; do echo "$id"; done
    for d in "$out2"/students/*/; do
        [ -f "$d/results.json" ] || grep -q '^refused' "$d/status" 2>/dev/null || basename "$d"
    done)
batch ENGINE=slurm OUT="$out2" JOBS=1 >"$work/slurm3.txt" 2>&1 || { cat "$work/slurm3.txt"; fail "the run after scancel"; }
list2=$(awk 'NR == 2 { print $2 }' "$out2/private/slurm/jobs" 2>/dev/null)
got=$(cut -f1 "$list2" 2>/dev/null | sort)
still=$(while read -r task; do sed -n "$((task + 1))p" "$list" | cut -f1; done <"$work/active.txt")
overlap=$(for id in $still; do printf '%s\n' "$got" | grep -qxF -- "$id" && echo "$id"; done)
[ -n "$got" ] && [ "$got" = "$(printf '%s\n' $expected | sort -u)" ] && [ -z "$overlap" ] &&
    pass "the run again submitted only$(echo $got | sed 's/^/ /'), none of the $(echo $still | wc -w) still queued" ||
    fail "the run again submitted '$(echo $got)', expected '$(echo $expected)' (still queued then: $(echo $still))"
wait_queue 400
settle "$out2" ENGINE=slurm JOBS=1
rows "$out2" >"$work/slurm2.rows" 2>/dev/null
cmp -s "$work/local.rows" "$work/slurm2.rows" &&
    pass "after the resume every row is there, equal to make batch's" ||
    { fail "after the resume the gradebook differs (local < > slurm):"; diff "$work/local.rows" "$work/slurm2.rows"; }
# (without SUBMISSIONS: the class of the last run on OUT)
make -s batch ENGINE=slurm ONE_NODE=$one_node OUT="$out2" STATUS=1 >"$work/status2.txt" 2>&1
grep -q ": 7 done, 0 running, 0 pending, 1 failed, 0 not submitted" "$work/status2.txt" &&
    grep -q "^batch: failed archive_dotdot: refused" "$work/status2.txt" &&
    pass "STATUS=1 at the end: 7 done, the refused archive failed with its reason" ||
    { fail "STATUS=1 at the end:"; cat "$work/status2.txt"; }
echo "slurm: the cancelled class in $(($(date +%s) - t0)) s"

# ---------------------------------------------------------------- nothing left behind
stop_cluster
left=""
for p in $(ps -eo pid=,comm= | awk '$2 ~ /^(slurmctld|slurmd|slurmstepd|munged)$/ { print $1 }'); do
    # ours: a daemon started with our files, or a job step that was not there before
    if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF "$tmp" ||
        { [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] &&
            ! printf '%s\n' "$steps_before" | grep -qx "$p"; }; then
        left="$left $p ($(cat "/proc/$p/comm" 2>/dev/null))"
    fi
done
[ -z "$left" ] && pass "every daemon and job step stopped" || fail "left running:$left"
echo "slurm: $fails failed, $(($(date +%s) - start)) s in all"
[ $fails -eq 0 ]
