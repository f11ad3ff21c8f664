/* main.c - 08_wide_loads host program: 07's kernel (TS x TS tiles in local memory, WPT elements
 * of one column of C per work-item, work-groups of TS x TS/WPT) with the tiles copied WIDTH
 * floats at a time (Nugteren's kernel 4). WIDTH changes the kernel, not the launch.
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DTS=... -DWPT=... -DWIDTH=..., random A and B, warm-up, timing, verification); this file
 * holds the two parts this step teaches.
 * Build and run: make && ./08_wide_loads --n 1024 --define TS=32 --define WPT=8 --define WIDTH=4
 * Grade: make grade
 */
#include "clu.h"

/* Contract: the kernel is mmul(const int N, const __global float *A, const __global float *B,
 * __global float *C); its tiles are declared inside it. Set its four arguments, in that order,
 * from mm->opt.n (an int) and the buffers mm->a, mm->b and mm->c. Use clSetKernelArg and check
 * every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    cl_int n = mm->opt.n;
    CLU_CHECK(clSetKernelArg(mm->kernel, 0, sizeof n, &n));
    CLU_CHECK(clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a));
    CLU_CHECK(clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b));
    CLU_CHECK(clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c));
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of {N, N/WPT} work-items
 * (dimension 0 is the column j, dimension 1 the rows, each work-item WPT of them) in
 * work-groups of {TS, TS/WPT}, with TS = clu_mm_define(mm, "TS") and WPT =
 * clu_mm_define(mm, "WPT"), as in 07 (the driver has checked that TS divides N; the kernel's
 * build checks that WPT divides TS and WIDTH divides WPT). If TS * (TS/WPT) is more than
 * clu_device_max_group allows, enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver
 * reports it). Otherwise hand back the launch's event in *done so the driver can time it, and
 * return the enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    size_t n = (size_t)mm->opt.n;
    size_t ts = (size_t)clu_mm_define(mm, "TS"), wpt = (size_t)clu_mm_define(mm, "WPT");
    if (ts * (ts / wpt) > clu_device_max_group(&mm->env))
        return CL_INVALID_WORK_GROUP_SIZE;
    size_t global[2] = {n, n / wpt}, local[2] = {ts, ts / wpt};
    return clEnqueueNDRangeKernel(mm->env.queue, mm->kernel, 2, NULL, global, local, 0, NULL, done);
    /* TODO(student) end */
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_define tuning[] = {{"TS", 32}, {"WPT", 8}, {"WIDTH", 4}, {NULL, 0}};
    static const char *const multiple_of[] = {"TS", NULL}; /* N must be a multiple of TS */
    static const struct clu_mm_exercise exercise = {
        .title = "Wide loads of the tiles (Nugteren's kernel 4)",
        .kernel_name = "mmul",
        .default_n = 1024,
        .tuning = tuning,
        .multiple_of = multiple_of,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
