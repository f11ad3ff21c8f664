/* harness.c - `grader --harness`: the child process that runs one kernel for the grader.
 *
 * It builds the kernel from the given kernel.cl, sets its arguments and launches it exactly as
 * the exercise's table row says, on inputs generated from a seed, with C filled with NaN and
 * followed by a guard zone. It then saves C (with the guard), A and B as result files for the
 * parent to check, or, with --serve, takes timed launches one command at a time (see serve()).
 * It decides nothing: the parent grader checks what it saved and holds the clock. A student's
 * kernel and the reference are never in one harness: each has a process of its own.
 *
 *   grader --harness --ex ID --kernel FILE --n N --seed S --out DIR [--device SPEC]
 *                    [--exact] [--block B] [--serve]
 * --block B: BLOCK for the kernel build and the launch instead of the table's (benchmarks).
 * --exact: no guard zone, C has exactly its size (for oclgrind, which checks the true bounds).
 */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include "child/child.h"
#include "exercise/protocol.h"
#include "exercise/exercise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* --serve: the timed runs, one command at a time from the grader, which holds the clock.
 * Commands on stdin, one reply line each on fd 3 (the grader's own channel: a kernel's printf
 * goes to stdout, the log):
 *   (at start)          -> "ready" after the build and two untimed launches
 *   inputs R SEED NONCE -> A and B from SEED (clu_random_fill streams 0 and 1), C back to NaN
 *                          with its guard zone; "inputs R NONCE"
 *   launch R NONCE      -> one launch, waited for; "launched R NONCE SECONDS" (its event time)
 *   save R NONCE        -> C with its guard zone saved as c-R.bin; "saved R NONCE"
 * End of input ends it. Nothing it says is believed: the grader times each launch command
 * with its own clock, chooses the seeds and checks every saved C itself; the nonces only keep
 * a reply from being taken for another. The reference kernel runs in a process of its own. */
static int serve(const struct clu_env *env, struct grader_launch *l, cl_mem *abc, float *a,
                 float *b, float *c, size_t in_count, size_t c_total, const char *dir) {
    FILE *reply = fdopen(3, "w");
    if (!reply) {
        fprintf(stderr, "harness: --serve needs the grader's reply channel on fd 3\n");
        return HARNESS_USAGE;
    }
    struct clu_stats unused;
    /* two untimed launches: POCL generates code at the first, caches settle at the second */
    CLU_CHECK_ERR(clu_time_launches(env->queue, grader_enqueue, l, 2, 0, &unused), "warm-up");
    float *fresh_c = malloc(c_total * sizeof *fresh_c);
    if (!fresh_c)
        return HARNESS_OPENCL;
    memcpy(fresh_c, c, c_total * sizeof *fresh_c); /* NaN, then the guard zone */
    fprintf(reply, "ready\n");
    fflush(reply);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        int round = -1;
        unsigned long long seed = 0, nonce = 0;
        if (sscanf(line, "inputs %d %llu %llu", &round, &seed, &nonce) == 3) {
            clu_random_fill(a, in_count, seed, 0);
            clu_random_fill(b, in_count, seed, 1);
            CLU_CHECK(clEnqueueWriteBuffer(env->queue, abc[0], CL_TRUE, 0, in_count * sizeof(float),
                                           a, 0, NULL, NULL));
            CLU_CHECK(clEnqueueWriteBuffer(env->queue, abc[1], CL_TRUE, 0, in_count * sizeof(float),
                                           b, 0, NULL, NULL));
            CLU_CHECK(clEnqueueWriteBuffer(env->queue, abc[2], CL_TRUE, 0, c_total * sizeof(float),
                                           fresh_c, 0, NULL, NULL));
            fprintf(reply, "inputs %d %llu\n", round, nonce);
        } else if (sscanf(line, "launch %d %llu", &round, &nonce) == 2) {
            struct clu_stats one;
            CLU_CHECK_ERR(clu_time_launches(env->queue, grader_enqueue, l, 0, 1, &one),
                          "timed launch");
            fprintf(reply, "launched %d %llu %.9g\n", round, nonce, one.median);
        } else if (sscanf(line, "save %d %llu", &round, &nonce) == 2) {
            char name[32];
            snprintf(name, sizeof name, "c-%d.bin", round);
            if (save_buffer(env, abc[2], c, c_total, dir, name) != 0)
                return HARNESS_USAGE;
            fprintf(reply, "saved %d %llu\n", round, nonce);
        } else {
            fprintf(stderr, "harness: unknown command: %s", line);
            return HARNESS_USAGE;
        }
        fflush(reply);
    }
    free(fresh_c);
    fclose(reply);
    return HARNESS_OK;
}

int grader_harness_main(int argc, char **argv) {
    const char *id = NULL, *kernel_path = NULL, *out = NULL, *device = NULL;
    int n = 0, serving = 0;
    uint64_t seed = 0;
    size_t guard = HARNESS_GUARD;
    int block = 0; /* 0: the table's BLOCK */
    for (int i = 1; i < argc; i += 2) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(flag, "--exact"))
            guard = 0, i--;
        else if (!strcmp(flag, "--serve"))
            serving = 1, i--;
        else if (!strcmp(flag, "--ex"))
            id = value;
        else if (!strcmp(flag, "--kernel"))
            kernel_path = value;
        else if (!strcmp(flag, "--out"))
            out = value;
        else if (!strcmp(flag, "--device"))
            device = value;
        else if (!strcmp(flag, "--n"))
            n = atoi(value);
        else if (!strcmp(flag, "--block"))
            block = atoi(value);
        else if (!strcmp(flag, "--seed"))
            seed = strtoull(value, NULL, 10);
        else {
            fprintf(stderr, "harness: unknown flag %s\n", flag);
            return HARNESS_USAGE;
        }
    }
    const struct grader_exercise *ex = id ? grader_find_exercise(id) : NULL;
    if (!ex || !kernel_path || !out || n < 1) {
        fprintf(stderr, "harness: needs --ex, --kernel, --n, --seed and --out\n");
        return HARNESS_USAGE;
    }
    struct clu_env env;
    if (clu_env_open(&env, device) != 0)
        return HARNESS_BAD_DEVICE;
    struct grader_launch student;
    if (block <= 0)
        block = ex->block;
    if (grader_plan_launch(ex, &env, n, block, &student) != 0)
        return HARNESS_BAD_DEVICE;
    cl_program program;
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
    if (serving) {
        status = serve(&env, &student, abc, a, b, c, in_count, out_count + guard, out);
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
    clu_env_close(&env);
    free(a);
    free(b);
    free(c);
    return status;
}
