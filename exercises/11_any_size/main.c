/* main.c - 11_any_size host program: C = A * B with A M x K and B K x N for any M, N, K >= 1
 * (--m, --n, --k), by TSM x TSN blocks of C per work-group and WPTM x WPTN per work-item; the
 * kernel handles the edges itself, so nothing is padded here.
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DTSM=... for each tuning value, random A and B, warm-up, timing, verification); this file
 * holds the two parts this step teaches.
 * Build and run: make && ./11_any_size --m 17 --n 33 --k 65
 *                ./11_any_size --n 1000 --define TSM=32 --define TSN=32    Grade: make grade
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
    /* the tuning values and their defaults (kernel.cl's #ifndef), changed by --define NAME=VALUE */
    static const struct clu_define tuning[] = {{"TSM", 64}, {"TSN", 64},   {"TSK", 16}, {"WPTM", 8},
                                               {"WPTN", 8}, {"LAYOUT", 1}, {NULL, 0}};
    static const struct clu_mm_exercise exercise = {
        .title = "Any size: register blocking with the edges inside the kernel",
        .kernel_name = "sgemm",
        .default_n = 1024,
        .tuning = tuning,
        .rectangular = 1, /* --m, --n, --k: any sizes, no multiple_of */
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
