# tests/gpu_setup.sh - sourced by the scripts run on the workplace's GPU machine, which starts bare
# (tests/gpu_capstone.sh, tests/gpu_steps.sh, tests/gpu_grade_times.sh), with root, out and
# device set: NVIDIA's OpenCL made visible (its ICD file), the Debian packages carried in
# build/debs unpacked into /tmp (no network there), and the grader, its OpenCL layer and the host
# programs built. Defines step.
log=$out/steps.txt
step() { echo "$(date +%H:%M:%S) $*" | tee -a "$log"; }
if [ "$device" = nvidia ]; then
    mkdir -p /etc/OpenCL/vendors
    [ -e /etc/OpenCL/vendors/nvidia.icd ] || echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/gpu.txt" 2>&1
fi
for deb in "$root"/build/debs/*.deb; do
    [ -e "$deb" ] && dpkg -x "$deb" /tmp/debs-root
done
LD_LIBRARY_PATH=/tmp/debs-root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PATH=$PATH:/tmp/debs-root/usr/bin # (jq, which tests/planted.sh reads the results with)
export LD_LIBRARY_PATH PATH CLU_SKIP_DEPS=1
step "build"
B=$root/build
make -s -C "$root" -j"$(nproc)" "$B/grader/grader" "$B/grader/launch_layer.so" programs \
    >"$out/build.txt" 2>&1 || { step "build failed"; tail -n 30 "$out/build.txt"; exit 1; }
