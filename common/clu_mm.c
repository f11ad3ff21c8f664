/* clu_mm.c - the host program shared by every matmul exercise. The exercise supplies only the
 * two parts it teaches (kernel arguments and the launch); everything else happens here once. */
#include "clu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct launch_ctx {
    struct clu_mm *mm;
    const struct clu_mm_exercise *ex;
};

static cl_int launch_trampoline(void *ctx, cl_command_queue queue, cl_event *done) {
    struct launch_ctx *lc = ctx;
    (void)queue; /* the exercise launches on mm->env.queue, the same queue */
    return lc->ex->launch(lc->mm, done);
}

static int check_size(const struct clu_mm *mm, const struct clu_mm_exercise *ex) {
    int n = mm->opt.n;
    if (ex->max_n > 0 && n > ex->max_n) {
        fprintf(stderr, "N = %d is above this exercise's limit of %d\n", n, ex->max_n);
        return -1;
    }
    if (ex->n_multiple_of_block && n % mm->opt.block != 0) {
        fprintf(stderr, "N = %d must be a multiple of BLOCK = %d\n", n, mm->opt.block);
        return -1;
    }
    return 0;
}

static cl_mem make_buffer(const struct clu_env *env, cl_mem_flags flags, size_t bytes, void *host) {
    cl_int err;
    cl_mem m = clCreateBuffer(env->context, flags | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    CLU_CHECK_ERR(err, "clCreateBuffer");
    return m;
}

int clu_mm_main(int argc, char **argv, const struct clu_mm_exercise *ex) {
    struct clu_mm mm;
    memset(&mm, 0, sizeof mm);
    clu_parse_options(&mm.opt, argc, argv, ex->default_n, ex->title);
    if (mm.opt.list)
        return clu_list_devices() < 0 ? CLU_EXIT_OPENCL : 0;
    if (check_size(&mm, ex) != 0)
        return 2;
    if (clu_env_open(&mm.env, mm.opt.device) != 0)
        return CLU_EXIT_OPENCL;

    char options[64];
    snprintf(options, sizeof options, "-DBLOCK=%d", mm.opt.block);
    cl_program program;
    mm.kernel = clu_kernel_next_to_exe(&mm.env, ex->kernel_name, options, &program);

    int n = mm.opt.n;
    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "out of host memory for N = %d\n", n);
        return 2;
    }
    clu_random_fill(a, nn, mm.opt.seed, 0);
    clu_random_fill(b, nn, mm.opt.seed, 1);
    for (size_t i = 0; i < nn; i++)
        c[i] = NAN; /* an element the kernel never writes stays NaN and cannot pass */
    mm.a = make_buffer(&mm.env, CL_MEM_READ_ONLY, bytes, a);
    mm.b = make_buffer(&mm.env, CL_MEM_READ_ONLY, bytes, b);
    mm.c = make_buffer(&mm.env, CL_MEM_READ_WRITE, bytes, c);

    CLU_CHECK(ex->set_args(&mm));
    struct launch_ctx lc = {&mm, ex};
    struct clu_stats stats;
    cl_int err = clu_time_launches(mm.env.queue, launch_trampoline, &lc, 1, mm.opt.repeats, &stats);
    if (err == CLU_NOT_LAUNCHED) {
        printf("%s: kernel not launched - not implemented yet: fill in the TODO(student) parts\n",
               ex->title);
        return 1;
    }
    CLU_CHECK_ERR(err, "launching the kernel");
    CLU_CHECK(clEnqueueReadBuffer(mm.env.queue, mm.c, CL_TRUE, 0, bytes, c, 0, NULL, NULL));

    printf("%s\n", ex->title);
    clu_print_timing(&mm.env, n, &stats, 2.0 * (double)n * n * n);

    double *ref = malloc(nn * sizeof *ref), *tol = malloc(nn * sizeof *tol);
    if (!ref || !tol) {
        fprintf(stderr, "out of host memory for the reference\n");
        return 2;
    }
    clu_ref_matmul(n, a, b, ref, tol);
    for (size_t i = 0; i < nn; i++)
        tol[i] = clu_dot_tolerance(n, tol[i]);
    struct clu_mismatch m = clu_compare(c, ref, tol, 0.0, nn);
    int status = clu_print_verification(&m, nn, n);
    if (mm.opt.output && clu_save_result(mm.opt.output, c, nn) != 0)
        status = 2;

    free(ref);
    free(tol);
    free(a);
    free(b);
    free(c);
    clReleaseMemObject(mm.a);
    clReleaseMemObject(mm.b);
    clReleaseMemObject(mm.c);
    clReleaseKernel(mm.kernel);
    clReleaseProgram(program);
    clu_env_close(&mm.env);
    return status;
}
