/* main.c - 09_register_blocking host program: C = A * B, each work-item computing a WPTM x WPTN
 * block of C in registers from TSM x TSK and TSK x TSN tiles of A and B in local memory.
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DTSM=... for every tuning value, random A and B, warm-up, timing, verification); this file
 * holds the two parts this step teaches. Tuning values: --define NAME=VALUE (the kernel's header
 * states the rules they must meet).
 * Build and run: make && ./09_register_blocking --n 1024 --define WPTM=4    Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is mmul(const int N, const __global float *A, const __global float *B,
 * __global float *C); its tiles are declared inside it, so there is no local-memory argument.
 * Set its four arguments, in that order, from mm->opt.n (an int) and the buffers mm->a, mm->b
 * and mm->c. Use clSetKernelArg and check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    (void)mm; /* stub: no arguments set yet */
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of {N/WPTN, N/WPTM}
 * work-items (dimension 0 runs along a row of C) in work-groups of {TSN/WPTN, TSM/WPTM}, with
 * N = mm->opt.n and the tuning values from clu_mm_define(mm, "TSM") etc. (the driver has
 * checked that N is a multiple of TSM, TSN and TSK; the kernel's build checks the rest). If a
 * group's (TSN/WPTN) * (TSM/WPTM) work-items are more than clu_device_max_group allows,
 * enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver reports it). Otherwise hand
 * back the launch's event in *done so the driver can time it, and return the enqueue's
 * status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    (void)mm; /* stub: nothing enqueued yet, so *done stays NULL */
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    /* the defaults, chosen by measurement (README: "What performance to expect") */
    static const struct clu_define tuning[] = {{"TSM", 128}, {"TSN", 128}, {"TSK", 32},
                                               {"WPTM", 8},  {"WPTN", 8},  {NULL, 0}};
    static const char *const multiple_of[] = {"TSM", "TSN", "TSK", NULL}; /* N's steps */
    static const struct clu_mm_exercise exercise = {
        .title = "2-D register blocking",
        .kernel_name = "mmul",
        .default_n = 1024,
        .tuning = tuning,
        .multiple_of = multiple_of,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
