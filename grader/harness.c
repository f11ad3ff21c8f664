/* harness.c - `grader --harness`: the child process that runs one student kernel for the grader.
 *
 * It builds the kernel from the student's kernel.cl, sets its arguments and launches it exactly
 * as the exercise's table row says, on inputs generated from the hidden seed, with C filled with
 * NaN and followed by a guard zone. It then saves C (with the guard), A and B as result files
 * for the parent to check, or, with --reference, times the student's kernel and the reference
 * solution's kernel alternately, each round on fresh inputs, and saves the figures and the C of
 * one round (timing.txt names the seed of its inputs). It decides nothing:
 * the parent grader checks what it saved.
 *
 *   grader --harness --ex ID --kernel FILE --n N --seed S --out DIR [--device SPEC]
 *                    [--exact] [--block B] [--reference FILE --repeats R]
 * --block B: BLOCK for the kernel build and the launch instead of the table's (benchmarks).
 * --exact: no guard zone, C has exactly its size (for oclgrind, which checks the true bounds).
 */
#include "grader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cl_int grader_enqueue(void *ctx, cl_command_queue queue, cl_event *done) {
    struct grader_launch *l = ctx;
    return clEnqueueNDRangeKernel(queue, l->kernel, l->dims, NULL, l->global,
                                  l->has_local ? l->local : NULL, 0, NULL, done);
}

int grader_plan_launch(const struct grader_exercise *ex, const struct clu_env *env, int n,
                       int block, struct grader_launch *l) {
    size_t max_group = clu_device_max_group(env), un = (size_t)n;
    memset(l, 0, sizeof *l);
    l->dims = 1;
    l->global[0] = l->global[1] = un;
    switch (ex->shape) {
    case SHAPE_VECTOR:
    case SHAPE_ROWS:
        break;
    case SHAPE_ELEMENTS:
        l->dims = 2;
        break;
    case SHAPE_ROWS_GROUPED:
        l->has_local = 1;
        l->local[0] = clu_divisor_at_most(un, max_group < GRADER_GROUP_LIMIT ? max_group
                                                                             : GRADER_GROUP_LIMIT);
        break;
    case SHAPE_TILES:
        l->dims = 2;
        l->has_local = 1;
        l->local[0] = l->local[1] = (size_t)block;
        if ((size_t)block * (size_t)block > max_group) {
            fprintf(stderr, "the device takes work-groups of at most %zu, BLOCK %d needs %d\n",
                    max_group, block, block * block);
            return -1;
        }
        break;
    }
    return 0;
}

cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, int n, int block,
                       cl_mem *abc) {
    for (cl_uint i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++) {
        cl_int err = CL_SUCCESS, as_int = n;
        cl_uint as_uint = (cl_uint)n;
        size_t tile = sizeof(float) * (size_t)block * (size_t)block;
        switch (ex->args[i]) {
        case ARG_END:
            break;
        case ARG_N:
            err = clSetKernelArg(kernel, i, sizeof as_int, &as_int);
            break;
        case ARG_COUNT:
            err = clSetKernelArg(kernel, i, sizeof as_uint, &as_uint);
            break;
        case ARG_A:
        case ARG_B:
        case ARG_C:
            err = clSetKernelArg(kernel, i, sizeof(cl_mem), &abc[ex->args[i] - ARG_A]);
            break;
        case ARG_LOCAL_ROW:
            err = clSetKernelArg(kernel, i, sizeof(float) * (size_t)n, NULL);
            break;
        case ARG_LOCAL_TILE:
            err = clSetKernelArg(kernel, i, tile, NULL);
            break;
        }
        if (err != CL_SUCCESS) {
            char what[64];
            snprintf(what, sizeof what, "clSetKernelArg(argument %u)", i);
            clu_report_error(err, what, __FILE__, __LINE__);
            fprintf(stderr, "  the kernel's parameters must be exactly the ones the exercise "
                            "states, in that order\n");
            return err;
        }
    }
    return CL_SUCCESS;
}

/* Build `path` and create the exercise's kernel from it; exits with a HARNESS_ status if not. */
static cl_kernel kernel_from(const struct grader_exercise *ex, const struct clu_env *env,
                             const char *path, int block, cl_program *program) {
    char options[64] = "";
    if (block)
        snprintf(options, sizeof options, "-DBLOCK=%d", block);
    cl_int err;
    *program = clu_build_file(env, path, options, &err);
    if (!*program)
        exit(err == CL_BUILD_PROGRAM_FAILURE ? HARNESS_BUILD : HARNESS_OPENCL);
    cl_kernel kernel = clCreateKernel(*program, ex->kernel, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        fprintf(stderr, "kernel.cl has no __kernel function named %s\n", ex->kernel);
        exit(HARNESS_NO_KERNEL);
    }
    CLU_CHECK_ERR(err, "clCreateKernel");
    return kernel;
}

static cl_mem buffer(const struct clu_env *env, size_t count, float *host) {
    cl_int err;
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              count * sizeof(float), host, &err);
    CLU_CHECK_ERR(err, "clCreateBuffer");
    return m;
}

static int save_buffer(const struct clu_env *env, cl_mem m, float *host, size_t count,
                       const char *dir, const char *name) {
    CLU_CHECK(
        clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, count * sizeof(float), host, 0, NULL, NULL));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return clu_save_result(path, host, count);
}

/* C back to NaN before a timed launch, outside its event: a kernel that keeps C as a cache of
 * an earlier launch (if (!isnan(C[k])) return;) gains nothing and, if it skips work, fails the
 * check of the saved result. */
static cl_int refill(const struct clu_env *env, cl_mem c, size_t count) {
    float nan_value = NAN;
    cl_int err = clEnqueueFillBuffer(env->queue, c, &nan_value, sizeof nan_value, 0,
                                     count * sizeof(float), 0, NULL, NULL);
    return err == CL_SUCCESS ? clFinish(env->queue) : err;
}

/* The inputs of timed round r: fresh A and B from a seed of their own, so that a kernel cannot
 * tell the timed runs from the checked ones or keep an answer from an earlier launch. */
static uint64_t round_seed(uint64_t seed, int r) {
    return (seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(r + 1))) & 0x7fffffffffffffffull;
}

/* A and B as generated for round r, written before a turn (outside its timed launch). */
static cl_int write_inputs(const struct clu_env *env, cl_mem *ab, const float *a, const float *b,
                           size_t in_count) {
    cl_int err = clEnqueueWriteBuffer(env->queue, ab[0], CL_TRUE, 0, in_count * sizeof(float), a, 0,
                                      NULL, NULL);
    return err == CL_SUCCESS ? clEnqueueWriteBuffer(env->queue, ab[1], CL_TRUE, 0,
                                                    in_count * sizeof(float), b, 0, NULL, NULL)
                             : err;
}

/* Whether the student's turn changed A or B (a kernel that spoils the inputs for the next turn,
 * with denormals say, would slow the reference down). */
static int inputs_spoiled(const struct clu_env *env, cl_mem *ab, const float *a, const float *b,
                          float *scratch, size_t in_count) {
    const float *want[2] = {a, b};
    for (int m = 0; m < 2; m++) {
        if (clEnqueueReadBuffer(env->queue, ab[m], CL_TRUE, 0, in_count * sizeof(float), scratch, 0,
                                NULL, NULL) != CL_SUCCESS ||
            memcmp(scratch, want[m], in_count * sizeof(float)) != 0)
            return 1;
    }
    return 0;
}

/* Student and reference alternately, each on its own C, so that a slow spell of a shared machine
 * hits both; every round on fresh A and B, written again before each turn. The student's C of
 * every round is saved (c-R.bin) for the parent to check, and timing.txt names the seed of each
 * round's inputs and the round checked element by element: a timed kernel must compute the
 * product every time. */
static int time_both(const struct clu_env *env, struct grader_launch *student,
                     struct grader_launch *ref, cl_mem *c_of, size_t count, float *c_host,
                     size_t c_total, int repeats, const char *dir, cl_mem *ab, float *a, float *b,
                     size_t in_count, uint64_t seed) {
    double *samples[2];
    struct grader_launch *which[2] = {student, ref};
    float *scratch = malloc(in_count * sizeof *scratch);
    if (!scratch)
        return HARNESS_OPENCL;
    for (int w = 0; w < 2; w++) {
        samples[w] = calloc((size_t)repeats, sizeof(double));
        if (!samples[w])
            return HARNESS_OPENCL;
        struct clu_stats unused;
        /* two untimed launches: POCL generates code at the first, caches settle at the second */
        CLU_CHECK_ERR(clu_time_launches(env->queue, grader_enqueue, which[w], 2, 0, &unused),
                      "warm-up");
    }
    int checked = (int)(seed % (uint64_t)repeats), spoiled = 0;
    for (int r = 0; r < repeats; r++) {
        clu_random_fill(a, in_count, round_seed(seed, r), 0);
        clu_random_fill(b, in_count, round_seed(seed, r), 1);
        for (int turn = 0; turn < 2; turn++) {
            int w =
                turn ^ (r & 1); /* who goes first swaps every round: neither gets warmer caches */
            struct clu_stats one;
            CLU_CHECK_ERR(write_inputs(env, ab, a, b, in_count), "clEnqueueWriteBuffer");
            CLU_CHECK_ERR(refill(env, c_of[w], count), "clEnqueueFillBuffer");
            CLU_CHECK_ERR(clu_time_launches(env->queue, grader_enqueue, which[w], 0, 1, &one),
                          "timed launch");
            samples[w][r] = one.median;
            if (w == 0) {
                char name[32];
                snprintf(name, sizeof name, "c-%d.bin", r);
                if (save_buffer(env, c_of[0], c_host, c_total, dir, name) != 0)
                    return HARNESS_USAGE;
                spoiled |= inputs_spoiled(env, ab, a, b, scratch, in_count);
            }
        }
    }
    free(scratch);
    char path[4096];
    snprintf(path, sizeof path, "%s/timing.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return HARNESS_USAGE;
    for (int w = 0; w < 2; w++) {
        struct clu_stats s = clu_stats_of(samples[w], repeats);
        fprintf(f, "%s %.9g %.9g %.9g %d\n", w ? "reference" : "student", s.min, s.median, s.max,
                s.count);
        free(samples[w]);
    }
    fprintf(f, "checked %d spoiled %d\n", checked, spoiled);
    for (int r = 0; r < repeats; r++)
        fprintf(f, "round %d %llu\n", r, (unsigned long long)round_seed(seed, r));
    return fclose(f) == 0 ? HARNESS_OK : HARNESS_USAGE;
}

int grader_harness_main(int argc, char **argv) {
    const char *id = NULL, *kernel_path = NULL, *out = NULL, *device = NULL, *ref_path = NULL;
    int n = 0, repeats = 5;
    uint64_t seed = 0;
    size_t guard = HARNESS_GUARD;
    int block = 0; /* 0: the table's BLOCK */
    for (int i = 1; i < argc; i += 2) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(flag, "--exact"))
            guard = 0, i--;
        else if (!strcmp(flag, "--ex"))
            id = value;
        else if (!strcmp(flag, "--kernel"))
            kernel_path = value;
        else if (!strcmp(flag, "--out"))
            out = value;
        else if (!strcmp(flag, "--device"))
            device = value;
        else if (!strcmp(flag, "--reference"))
            ref_path = value;
        else if (!strcmp(flag, "--n"))
            n = atoi(value);
        else if (!strcmp(flag, "--block"))
            block = atoi(value);
        else if (!strcmp(flag, "--repeats"))
            repeats = atoi(value);
        else if (!strcmp(flag, "--seed"))
            seed = strtoull(value, NULL, 10);
        else {
            fprintf(stderr, "harness: unknown flag %s\n", flag);
            return HARNESS_USAGE;
        }
    }
    const struct grader_exercise *ex = id ? grader_find_exercise(id) : NULL;
    if (!ex || !kernel_path || !out || n < 1 || repeats < 1) {
        fprintf(stderr, "harness: needs --ex, --kernel, --n, --seed and --out\n");
        return HARNESS_USAGE;
    }
    struct clu_env env;
    if (clu_env_open(&env, device) != 0)
        return HARNESS_BAD_DEVICE;
    struct grader_launch student, ref;
    if (block <= 0)
        block = ex->block;
    if (grader_plan_launch(ex, &env, n, block, &student) != 0)
        return HARNESS_BAD_DEVICE;
    ref = student;
    cl_program program, ref_program = NULL;
    student.kernel = kernel_from(ex, &env, kernel_path, block, &program);

    size_t in_count = ex->is_vector ? (size_t)n : (size_t)n * (size_t)n;
    size_t out_count = grader_output_count(ex, n);
    float *a = malloc(in_count * sizeof *a), *b = malloc(in_count * sizeof *b);
    float *c = malloc((out_count + guard) * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "harness: out of host memory at N = %d\n", n);
        return HARNESS_OPENCL;
    }
    clu_random_fill(a, in_count, seed, 0);
    clu_random_fill(b, in_count, seed, 1);
    for (size_t i = 0; i < out_count; i++)
        c[i] = NAN;
    for (size_t i = out_count; i < out_count + guard; i++)
        c[i] = HARNESS_GUARD_VALUE;
    cl_mem abc[3] = {buffer(&env, in_count, a), buffer(&env, in_count, b),
                     buffer(&env, out_count + guard, c)};
    if (grader_set_args(ex, student.kernel, n, block, abc) != CL_SUCCESS)
        return HARNESS_OPENCL;

    int status = HARNESS_OK;
    if (ref_path) {
        ref.kernel = kernel_from(ex, &env, ref_path, block, &ref_program);
        cl_mem ref_abc[3] = {abc[0], abc[1], buffer(&env, out_count + guard, c)};
        if (grader_set_args(ex, ref.kernel, n, block, ref_abc) != CL_SUCCESS)
            return HARNESS_OPENCL;
        cl_mem c_of[2] = {abc[2], ref_abc[2]};
        status = time_both(&env, &student, &ref, c_of, out_count, c, out_count + guard, repeats,
                           out, abc, a, b, in_count, seed);
        clReleaseMemObject(ref_abc[2]);
    } else {
        cl_event done;
        CLU_CHECK(grader_enqueue(&student, env.queue, &done));
        CLU_CHECK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
        if (save_buffer(&env, abc[2], c, out_count + guard, out, "c.bin") != 0 ||
            save_buffer(&env, abc[0], a, in_count, out, "a.bin") != 0 ||
            save_buffer(&env, abc[1], b, in_count, out, "b.bin") != 0)
            status = HARNESS_USAGE;
    }
    for (int i = 0; i < 3; i++)
        clReleaseMemObject(abc[i]);
    clReleaseKernel(student.kernel);
    clReleaseProgram(program);
    if (ref_program) {
        clReleaseKernel(ref.kernel);
        clReleaseProgram(ref_program);
    }
    clu_env_close(&env);
    free(a);
    free(b);
    free(c);
    return status;
}
