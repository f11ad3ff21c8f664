#!/bin/sh
# common/deps.sh PURPOSE - make sure the Debian packages PURPOSE needs are installed.
# PURPOSE: build (compile and run exercises), grade (make grade), bench (make bench),
# batch (make batch), gradescope (make gradescope), slides (make slides), test (make test), slurm
# (make test-slurm: a one-node Slurm of its own).
# As root, missing packages are installed with apt-get; otherwise one line says what to run.
set -u
# CLU_SKIP_DEPS=1: trust the environment (a cluster module, a vendor SDK) and check nothing
[ "${CLU_SKIP_DEPS:-0}" = 1 ] && exit 0
build="ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo"
# liboclgrind-dev and g++: the grader's oclgrind plugin (grader/oclgrind/tiles.cpp); the vendor
# libraries, loaded at run time (dlopen: only their runtime packages), for the capstone's speed
# against them (13) and make bench's rows
grade="$build oclgrind bubblewrap liboclgrind-dev g++ libopenblas0 libclblast1"
bench="$grade gnuplot-nox"
# gnuplot draws the plots of the batch's report.html; similarity-tester (sim_c) finds alike
# kernels and host programs in a class (grader/batch/similarity.sh)
# (zip: Moodle's feedback files, moodle-feedback.zip)
batch="$grade jq libarchive-dev gnuplot-nox similarity-tester zip"
gradescope="$grade zip"
slides="pandoc"
slurm="slurmctld slurmd slurm-client munge"
# chromium opens the batch's report.html headless (tests/report.sh); xmllint (libxml2-utils) and
# python3 are the real parsers that tests/outputs.sh reads a batch's class files with
test="$bench libcmocka-dev libarchive-dev jq clang-format unzip zip pandoc chromium similarity-tester libxml2-utils python3"
case "${1:-build}" in
build) want=$build ;;
grade) want=$grade ;;
bench) want=$bench ;;
batch) want=$batch ;;
gradescope) want=$gradescope ;;
slides) want=$slides ;;
slurm) want=$slurm ;;
test) want=$test ;;
*) echo "usage: $0 build|grade|bench|batch|gradescope|slides|test|slurm" >&2; exit 2 ;;
esac

# Everything already works (whatever installed it: packages, a vendor SDK, a module system)?
works() {
    if [ "$1" = slides ]; then
        command -v pandoc >/dev/null 2>&1
        return
    fi
    if [ "$1" = slurm ]; then
        for tool in slurmctld slurmd sbatch munged; do command -v $tool >/dev/null 2>&1 || return 1; done
        return 0
    fi
    probe=$(mktemp -d) || return 1
    printf '#include <CL/cl.h>\nint main(void) { cl_uint n; return clGetPlatformIDs(0, 0, &n) == 99; }\n' \
        >"$probe/cl.c"
    printf '#include <archive.h>\nint main(void) { return archive_read_new() == 0; }\n' >"$probe/ar.c"
    printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\nint main(void) { return 0; }\n' \
        >"$probe/cm.c"
    ok=0
    ${CC:-cc} -o "$probe/cl" "$probe/cl.c" -lOpenCL >/dev/null 2>&1 || ok=1
    ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || ok=1
    command -v clinfo >/dev/null 2>&1 || ok=1
    case $1 in grade | bench | batch | gradescope | test)
        for tool in oclgrind bwrap; do command -v $tool >/dev/null 2>&1 || ok=1; done
        printf '#include <oclgrind/Plugin.h>\nint main() { return 0; }\n' >"$probe/plugin.cpp"
        ${CXX:-c++} -fsyntax-only "$probe/plugin.cpp" >/dev/null 2>&1 || ok=1
        ;;
    esac
    case $1 in batch | test)
        for tool in jq gnuplot sim_c; do command -v $tool >/dev/null 2>&1 || ok=1; done
        # build/grader/unpack is built against libarchive
        ${CC:-cc} -o "$probe/ar" "$probe/ar.c" -larchive >/dev/null 2>&1 || ok=1
        ;;
    esac
    case $1 in grade | bench | batch | gradescope | test)
        for lib in libopenblas.so.0 libclblast.so.1; do
            ldconfig -p 2>/dev/null | grep -q "$lib" || ok=1
        done
        ;;
    esac
    case $1 in bench | test) command -v gnuplot >/dev/null 2>&1 || ok=1 ;; esac
    [ "$1" = gradescope ] && { command -v zip >/dev/null 2>&1 || ok=1; }
    if [ "$1" = test ]; then
        ${CC:-cc} -o "$probe/cm" "$probe/cm.c" -lcmocka >/dev/null 2>&1 || ok=1
        for tool in jq clang-format zip unzip pandoc chromium xmllint python3; do
            command -v $tool >/dev/null 2>&1 || ok=1
        done
    fi
    rm -rf "$probe"
    return $ok
}
works "${1:-build}" && exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
    # not Debian: we cannot check, so trust the user and let the compiler speak if it fails
    exit 0
fi
missing=""
for p in $want; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages:$missing - run: sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing missing packages:$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# an empty or stale package list is the usual reason a first install fails: update, then retry
if ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
    apt-get update -q >"$log" 2>&1
fi
# shellcheck disable=SC2086 # the package list is meant to split
if ! apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1
    if ! apt-get install -y -q --no-install-recommends $missing >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "could not install:$missing (log above); try: apt-get update && apt-get install -y$missing" >&2
        rm -f "$log"
        exit 1
    fi
fi
rm -f "$log"
echo "installed:$missing"
