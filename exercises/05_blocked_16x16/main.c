/* main.c - 05_blocked_16x16 host program: C = A * B by BLOCK x BLOCK tiles in local memory, one
 * element of C per work-item, work-groups of BLOCK x BLOCK (BLOCK = --block, default 16).
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DBLOCK=<--block>, random A and B, warm-up, timing, verification); this file holds the two
 * parts this step teaches.
 * Build and run: make && ./05_blocked_16x16 --n 1024 --block 16    Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is mmul(const int N, __global float *A, __global float *B,
 * __global float *C, __local float *Awrk, __local float *Bwrk). Set its first four arguments, in
 * that order, from mm->opt.n (an int) and the buffers mm->a, mm->b and mm->c; arguments 4 and 5
 * are local memory for one tile each: sizeof(float) * BLOCK * BLOCK bytes with BLOCK =
 * mm->opt.block, and a NULL value. Use clSetKernelArg and check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    (void)mm; /* stub: no arguments set yet */
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of {N, N} work-items
 * (dimension 0 is the row i) in work-groups of {BLOCK, BLOCK}, BLOCK = mm->opt.block (the driver
 * has checked that BLOCK divides N). If BLOCK * BLOCK is more than clu_device_max_group
 * allows, enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver reports it).
 * Otherwise hand back the launch's event in *done so the driver can time it, and return the
 * enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    (void)mm; /* stub: nothing enqueued yet, so *done stays NULL */
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_mm_exercise exercise = {
        .title = "Block oriented approach using local",
        .kernel_name = "mmul",
        .default_n = 1024,
        .n_multiple_of_block = 1,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
