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
    if (!ex->rectangular && (mm->opt.m != n || mm->opt.k != n)) {
        fprintf(stderr, "this exercise multiplies N x N matrices: leave out --m and --k\n");
        return -1;
    }
    if (ex->multiple_of)
        for (int i = 0; ex->multiple_of[i]; i++) {
            int step = clu_mm_define(mm, ex->multiple_of[i]);
            int sizes[3] = {mm->opt.m, n, mm->opt.k};
            for (int s = 0; s < 3; s++)
                if (sizes[s] % step != 0) {
                    fprintf(stderr, "%s = %d must be a multiple of %s = %d\n",
                            ex->rectangular ? (const char *[]){"M", "N", "K"}[s] : "N", sizes[s],
                            ex->multiple_of[i], step);
                    return -1;
                }
        }
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

/* The tuning values: the exercise's defaults, each replaced by a --define of its name. 0, or -1
 * with a message for a --define the exercise does not have. */
static int choose_tuning(struct clu_mm *mm, const struct clu_mm_exercise *ex) {
    int count = 0;
    for (; ex->tuning && ex->tuning[count].name && count < CLU_MAX_DEFINES; count++)
        mm->tuning[count] = ex->tuning[count];
    mm->tuning[count] = (struct clu_define){NULL, 0};
    for (int d = 0; d < mm->opt.define_count; d++) {
        int found = 0;
        for (int t = 0; t < count; t++)
            if (strcmp(mm->tuning[t].name, mm->opt.define_names[d]) == 0) {
                mm->tuning[t].value = mm->opt.define_values[d];
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "--define %s: this exercise's kernel has no tuning value of that name",
                    mm->opt.define_names[d]);
            for (int t = 0; t < count; t++)
                fprintf(stderr, "%s%s", t ? ", " : " (it has ", mm->tuning[t].name);
            fprintf(stderr, "%s\n", count ? ")" : "");
            return -1;
        }
    }
    return 0;
}

/* The kernel's build options: every tuning value as -DNAME=VALUE, or -DBLOCK for 05's kind. */
static void build_options(const struct clu_mm *mm, const struct clu_mm_exercise *ex, char *buf,
                          size_t size) {
    if (!ex->tuning) {
        snprintf(buf, size, "-DBLOCK=%d", mm->opt.block);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; mm->tuning[t].name && used < size; t++)
        used += (size_t)snprintf(buf + used, size - used, "%s-D%s=%d", t ? " " : "",
                                 mm->tuning[t].name, mm->tuning[t].value);
}

int clu_mm_define(const struct clu_mm *mm, const char *name) {
    for (int t = 0; t < CLU_MAX_DEFINES && mm->tuning[t].name; t++)
        if (strcmp(mm->tuning[t].name, name) == 0)
            return mm->tuning[t].value;
    fprintf(stderr, "clu_mm_define: the exercise has no tuning value named \"%s\"\n", name);
    exit(2);
}

size_t clu_round_up(size_t x, size_t step) {
    return step ? (x + step - 1) / step * step : x;
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
    if (choose_tuning(&mm, ex) != 0 || check_size(&mm, ex) != 0)
        return 2;
    if (clu_env_open(&mm.env, mm.opt.device) != 0)
        return CLU_EXIT_OPENCL;

    char options[CLU_MAX_DEFINES * (CLU_DEFINE_NAME_MAX + 16)];
    build_options(&mm, ex, options, sizeof options);
    cl_program program;
    mm.kernel = clu_kernel_next_to_exe(&mm.env, ex->kernel_name, options, &program);

    int m = mm.opt.m, n = mm.opt.n, k = mm.opt.k;
    size_t a_count = (size_t)m * (size_t)k, b_count = (size_t)k * (size_t)n;
    size_t c_count = (size_t)m * (size_t)n, c_bytes = c_count * sizeof(float);
    float *a = malloc(a_count * sizeof(float)), *b = malloc(b_count * sizeof(float));
    float *c = malloc(c_bytes);
    if (!a || !b || !c) {
        fprintf(stderr, "out of host memory for M x N x K = %d x %d x %d\n", m, n, k);
        return 2;
    }
    clu_random_fill(a, a_count, mm.opt.seed, 0);
    clu_random_fill(b, b_count, mm.opt.seed, 1);
    clu_fill_unwritten(c, c_count); /* an element the kernel never writes keeps a NaN of its own */
    mm.a = make_buffer(&mm.env, CL_MEM_READ_ONLY, a_count * sizeof(float), a);
    mm.b = make_buffer(&mm.env, CL_MEM_READ_ONLY, b_count * sizeof(float), b);
    mm.c = make_buffer(&mm.env, CL_MEM_READ_WRITE, c_bytes, c);

    CLU_CHECK_MAIN(ex->set_args(&mm), "main.c's set_args() (the error it returned)");
    struct launch_ctx lc = {&mm, ex};
    struct clu_stats stats;
    cl_int err = clu_time_launches(mm.env.queue, launch_trampoline, &lc, mm.opt.warmup,
                                   mm.opt.repeats, &stats);
    if (err == CLU_NOT_LAUNCHED) {
        printf("%s: kernel not launched - not implemented yet: fill in the TODO(student) parts\n",
               ex->title);
        return 1;
    }
    CLU_CHECK_MAIN(err, "main.c's launch() (the error it returned: its clEnqueueNDRangeKernel?)");
    /* an error here is most often the kernel's run that main.c's launch() enqueued */
    CLU_CHECK_MAIN(clEnqueueReadBuffer(mm.env.queue, mm.c, CL_TRUE, 0, c_bytes, c, 0, NULL, NULL),
                   "reading C back after main.c's launch() (the kernel it enqueued failed?)");

    printf("%s\n", ex->title);
    double flops = 2.0 * (double)m * n * k;
    if (ex->rectangular)
        clu_print_timing_gemm(&mm.env, m, n, k, &stats, flops);
    else
        clu_print_timing(&mm.env, n, &stats, flops);

    double *ref = malloc(c_count * sizeof *ref), *tol = malloc(c_count * sizeof *tol);
    if (!ref || !tol) {
        fprintf(stderr, "out of host memory for the reference\n");
        return 2;
    }
    clu_ref_gemm(m, n, k, a, b, ref, tol);
    for (size_t i = 0; i < c_count; i++)
        tol[i] = clu_dot_tolerance(k, tol[i]);
    struct clu_mismatch wrong = clu_compare(c, ref, tol, 0.0, c_count);
    int status = clu_print_verification(&wrong, c_count, n);
    if (mm.opt.output && clu_save_result(mm.opt.output, c, c_count) != 0)
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
