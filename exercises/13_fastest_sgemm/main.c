/* main.c - 13_fastest_sgemm host program: C = A * B with A M x K and B K x N for any M, N, K >= 1
 * (--m, --n, --k), by the capstone kernel: TSM x TSN blocks of C per work-group, WPTM x WPTN per
 * work-item, vector loads of VWM and VWN floats from the tiles. The launch is 11's: the kernel
 * handles the edges itself, so nothing is padded here, and it requires the work-group size
 * {TSN/WPTN, TSM/WPTM} (reqd_work_group_size).
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DTSM=... for each tuning value, random A and B, warm-up, timing, verification); this file
 * holds the two parts of the host program, the same as 11's.
 * Build and run: make && ./13_fastest_sgemm --m 1000 --n 999 --k 1001
 *                ./13_fastest_sgemm --n 1024 --device pocl --define TSM=64 --define VWN=8
 *                Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is sgemm(const int M, const int N, const int K, const __global float *A,
 * const __global float *B, __global float *C). Set its six arguments, in that order, from
 * mm->opt.m, mm->opt.n and mm->opt.k (each an int) and the buffers mm->a, mm->b and mm->c. Use
 * clSetKernelArg and check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    (void)mm; /* stub: no arguments set yet */
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of
 * {roundup(N, TSN) / WPTN, roundup(M, TSM) / WPTM} work-items (dimension 0 along a row of C) in
 * work-groups of {TSN / WPTN, TSM / WPTM}, with N = mm->opt.n, M = mm->opt.m, the tuning values
 * from clu_mm_define(mm, "TSM") etc. and roundup = clu_round_up: the edge groups reach past C and
 * the kernel leaves out what lies outside. If the group has more work-items than
 * clu_device_max_group allows, enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver
 * reports it). Otherwise hand back the launch's event in *done so the driver can time it, and
 * return the enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    (void)mm; /* stub: nothing enqueued yet, so *done stays NULL */
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    /* the tuning values and their defaults (kernel.cl's #ifndef, the fastest on the H100), changed
     * by --define NAME=VALUE */
    static const struct clu_define tuning[] = {{"TSM", 128}, {"TSN", 128}, {"TSK", 32}, {"WPTM", 8},
                                               {"WPTN", 8},  {"VWM", 4},   {"VWN", 4},  {NULL, 0}};
    static const struct clu_mm_exercise exercise = {
        .title = "Fastest SGEMM: every technique together, any size",
        .kernel_name = "sgemm",
        .default_n = 1024,
        .tuning = tuning,
        .rectangular = 1, /* --m, --n, --k: any sizes, no multiple_of */
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
