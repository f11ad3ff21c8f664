/* harness.c - `grader --harness`: the child process that runs one kernel for the grader.
 *
 * It builds the kernel from the given kernel.cl, sets its arguments and launches it exactly as
 * the exercise's table row says, on inputs generated from a seed, with C filled with the NaN of
 * CLU_UNWRITTEN_BITS (clu.h) and followed by a guard zone. It then saves C, A and B (each with its
 * guard), B as result files for the parent to check, or, with --serve, takes timed launches one
 * command at a time (see serve()). It decides nothing: the parent grader checks what it saved and
 * holds the clock. A student's kernel and the reference are never in one harness: each has a
 * process of its own.
 *
 *   grader --harness --ex ID --kernel FILE --n N [--m M --k K] --seed S --out DIR
 *                    [--then M,N,K,S]... [--device SPEC] [--exact] [--block B] [--check-tuning]
 *                    [--define NAME=VALUE]... [--serve [--vendors]]
 * --m, --k: a rectangular row's other sizes (C is M x N, A M x K; default N).
 * --then M,N,K,S: after the first size, another with its own inputs, its files in DIR/then-I (I
 *   from 1); with it every size's folder gets a file `done` once its C, A and B are saved, so the
 *   grader knows which sizes a run that failed got through (a GPU's hidden sizes in one process).
 * --block B: BLOCK for the kernel build and the launch instead of the table's (benchmarks).
 * --check-tuning: the row's smaller tuning values of the runs under oclgrind.
 * --define NAME=VALUE: one of the row's tuning values set (make tune's candidates, a tuning file's
 *   values in the timed comparison); the others stay as the row (or --check-tuning) has them.
 * --exact: no guard zone, C has exactly its size (for oclgrind, which checks the true bounds).
 * --vendors: --serve also times the vendors' SGEMMs that apply to the device (CLBlast; OpenBLAS
 * on a CPU; cuBLAS on an NVIDIA GPU), for the capstone. The grader gives it to the reference's
 * harness only: a vendor's time is never measured in a process a student's code runs in.
 * Flags are exercise/protocol.h's FLAG_; a number is decimal digits. A fault in the command line
 * stops it with HARNESS_USAGE and one line on stderr, before anything is built.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include "child/child.h"
#include "child/harness_flags.h"
#include "exercise/protocol.h"
#include "exercise/exercise.h"
#include "clu_vendor.h"
#include "exercise/tuning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WHO "harness" /* how its messages begin */

/* Whether the built kernel can take the launch: its own work-group limit and the local memory it
 * needs (its arguments set) against the device's; exits with a HARNESS_ status if not. A query a
 * driver does not answer checks nothing: the launch then says it. Some GPU drivers run kernels
 * that need more local memory than CL_DEVICE_LOCAL_MEM_SIZE says (NVIDIA's reports 48 KB on GPUs
 * that give a block up to 227 KB): on a GPU one trial launch decides, and C (count floats on the
 * device in c_buf) is put back as it was before it. Elsewhere the figure is the limit: POCL's
 * CPU device asserts in the launch (pthread_utils.c, SIGABRT) where it should fail it. */
static void check_fit(const struct clu_env *env, struct grader_launch *l, const char *options,
                      cl_mem c_buf, const float *c, size_t count) {
    size_t kernel_group = 0;
    cl_ulong needs = 0, has = 0;
    cl_device_type type = 0;
    if (l->has_local &&
        clGetKernelWorkGroupInfo(l->kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof kernel_group, &kernel_group, NULL) == CL_SUCCESS &&
        kernel_group > 0 && l->local[0] * (l->dims > 1 ? l->local[1] : 1) > kernel_group) {
        fprintf(stderr,
                WHO ": built with %s the kernel takes work-groups of at most %zu work-items "
                    "(CL_KERNEL_WORK_GROUP_SIZE), the launch's has %zu\n",
                options, kernel_group, l->local[0] * (l->dims > 1 ? l->local[1] : 1));
        exit(HARNESS_GROUP_LIMIT);
    }
    if (clGetKernelWorkGroupInfo(l->kernel, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof needs,
                                 &needs, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof has, &has, NULL) ==
            CL_SUCCESS &&
        has > 0 && needs > has) {
        cl_int err = CL_OUT_OF_RESOURCES;
        int gpu =
            clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
            (type & CL_DEVICE_TYPE_GPU);
        if (gpu) {
            err = grader_enqueue(l, env->queue, NULL);
            if (err == CL_SUCCESS)
                err = clFinish(env->queue);
            if (err == CL_SUCCESS)
                err = clEnqueueWriteBuffer(env->queue, c_buf, CL_TRUE, 0, count * sizeof *c, c, 0,
                                           NULL, NULL);
            if (err == CL_SUCCESS)
                return;
        }
        fprintf(stderr,
                WHO ": built with %s the kernel needs %llu bytes of local memory "
                    "(CL_KERNEL_LOCAL_MEM_SIZE: its __local arrays and local arguments), the "
                    "device has %llu (CL_DEVICE_LOCAL_MEM_SIZE)%s%s%s\n",
                options, (unsigned long long)needs, (unsigned long long)has,
                gpu ? ", and a launch failed (" : "", gpu ? clu_error_name(err) : "",
                gpu ? ")" : "");
        exit(HARNESS_LOCAL_LIMIT);
    }
}

/* Build `path` and create the exercise's kernel from it; exits with a HARNESS_ status if not. */
static cl_kernel kernel_from(const struct grader_exercise *ex, const struct clu_env *env,
                             const char *path, const struct grader_variant *v,
                             cl_program *program) {
    char options[400];
    grader_build_options(v, options, sizeof options);
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

/* The vendors' SGEMMs of --vendors: each prepared on the harness's first A and B (a vendor's
 * inputs need not change between rounds: the library cannot keep an answer to them), warmed up
 * (CLBlast compiles at its first call) and checked once at sampled elements; a vendor that does
 * not apply to the device, is missing or computes a wrong product is skipped with its reason. */
#define VENDOR_CHECKS 64

struct vendor_set {
    struct clu_vendor_gemm *gemm[CLU_VENDOR_COUNT]; /* NULL: skipped */
    char why[CLU_VENDOR_COUNT][200];                /* the reason it is skipped */
    char library[CLU_VENDOR_COUNT][200];            /* what runs, where it is not */
};

static int vendor_product_wrong(int n, const float *a, const float *b, const float *c,
                                uint64_t seed) {
    size_t un = (size_t)n;
    for (int s = 0; s < VENDOR_CHECKS; s++) {
        uint64_t pick = grader_derive_seed(seed, "vendor check", s) % (un * un);
        if (!grader_element_right(n, a, b, c, pick / un, pick % un, NULL))
            return 1;
    }
    return 0;
}

static void vendors_prepare(const struct clu_env *env, int n, const float *a, const float *b,
                            uint64_t seed, struct vendor_set *v) {
    cl_device_type type = 0;
    char vendor[256] = "";
    clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(env->device, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    float *c = malloc((size_t)n * (size_t)n * sizeof *c);
    for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
        char library[300];
        char *why = v->why[id];
        size_t why_size = sizeof v->why[id];
        double seconds;
        v->gemm[id] = NULL;
        if (id == CLU_OPENBLAS && !(type & CL_DEVICE_TYPE_CPU))
            snprintf(why, why_size, "OpenBLAS runs on the CPU, not on this device");
        else if (id == CLU_CUBLAS && !strstr(vendor, "NVIDIA"))
            snprintf(why, why_size, "cuBLAS runs on NVIDIA GPUs only");
        else if (!c)
            snprintf(why, why_size, "out of host memory");
        else if (clu_vendor_prepare(id, env, n, n, n, a, b, &v->gemm[id], library, sizeof library,
                                    why, why_size) == 0) {
            int failed = clu_vendor_launch(v->gemm[id], &seconds, why, why_size) != 0 ||
                         clu_vendor_read(v->gemm[id], c, why, why_size) != 0;
            if (!failed && vendor_product_wrong(n, a, b, c, seed)) {
                snprintf(why, why_size, "%.120s computed a wrong product at N = %d", library, n);
                failed = 1;
            }
            if (!failed) {
                fprintf(stderr, WHO ": %s ready at N = %d\n", library, n);
                snprintf(v->library[id], sizeof v->library[id], "%.199s", library);
                for (char *p = v->library[id]; *p; p++) /* (one reply line) */
                    *p = *p == '\n' ? ' ' : *p;
                continue;
            }
            clu_vendor_release(v->gemm[id]);
            v->gemm[id] = NULL;
        }
        fprintf(stderr, WHO ": %s skipped: %s\n", clu_vendor_name(id), why);
    }
    free(c);
}

static void vendors_release(struct vendor_set *v) {
    for (int id = 0; id < CLU_VENDOR_COUNT; id++)
        clu_vendor_release(v->gemm[id]);
}

/* `vendor R KEY NONCE`: `count` launches one after the other (the sum of their times) and what
 * ran, or why it is skipped. */
static void vendor_command(struct vendor_set *v, int round, const char *key, int count,
                           unsigned long long nonce, FILE *reply) {
    int id = 0;
    while (id < CLU_VENDOR_COUNT && strcmp(key, clu_vendor_key(id)) != 0)
        id++;
    double seconds = 0.0, one = 0.0;
    char why[200] = "not a vendor";
    int done = 0;
    if (id < CLU_VENDOR_COUNT && !v->gemm[id])
        snprintf(why, sizeof why, "%s", v->why[id]);
    else if (id < CLU_VENDOR_COUNT) {
        while (done < count && clu_vendor_launch(v->gemm[id], &one, why, sizeof why) == 0 &&
               one > 0.0) {
            seconds += one;
            done++;
        }
        if (done == count) {
            fprintf(reply, SERVE_VENDOR " %d %llu %.9g %s\n", round, nonce, seconds,
                    v->library[id]);
            return;
        }
    }
    for (char *p = why; *p; p++) /* one reply line */
        if (*p == '\n')
            *p = ' ';
    fprintf(reply, SERVE_SKIPPED " %d %llu %s\n", round, nonce, why);
}

/* --serve's state: the kernel and its launch, and the launch sets of a timed command. Each set is
 * an A, B and C of its own on the device (set 0 the harness's first buffers), so that no launch of
 * a command finds its inputs or its C as an earlier launch left them. */
struct served {
    const struct clu_env *env;
    const struct grader_exercise *ex;
    struct grader_size size;
    const struct grader_variant *variant;
    struct grader_launch *launch;
    cl_mem sets[SERVE_MAX_SETS][3];
    int count;              /* sets made (the last inputs command's SETS) */
    int used;               /* sets of the last inputs command */
    size_t c_count;         /* C's floats, its guard zone aside */
    float *a, *b, *c;       /* host copies of one set at a time */
    const size_t *in_count; /* A's and B's floats */
    size_t c_total;         /* C's floats with its guard zone */
    const char *dir;        /* where save writes */
    struct vendor_set *vendors;
    const struct clu_device_fill *fill; /* A and B made on the device (NULL: on the host) */
};

/* `inputs R SEED COUNT`: COUNT sets, set k's A and B from grader_launch_seed(SEED, k) and C back to
 * the unwritten NaN with its guard zone. 0, or -1 (the device is out of memory: said on stderr). */
static int serve_inputs(struct served *sv, uint64_t seed, int count) {
    const struct clu_env *env = sv->env;
    for (; sv->count < count; sv->count++) { /* more sets than before */
        cl_int err;
        for (int m = 0; m < 3; m++) {
            size_t floats = m < 2 ? sv->in_count[m] : sv->c_total;
            sv->sets[sv->count][m] =
                clCreateBuffer(env->context, CL_MEM_READ_WRITE, floats * sizeof(float), NULL, &err);
            if (err != CL_SUCCESS) {
                fprintf(stderr, WHO ": %d launch sets do not fit the device (%s)\n", count,
                        clu_error_name(err));
                return -1;
            }
        }
    }
    sv->used = count;
    for (int k = 0; k < count; k++) {
        uint64_t launch_seed = grader_launch_seed(seed, k);
        cl_mem *abc = sv->sets[k];
        if (sv->fill) {
            CLU_CHECK(
                clu_device_fill(sv->fill, env->queue, abc[0], sv->in_count[0], launch_seed, 0));
            CLU_CHECK(
                clu_device_fill(sv->fill, env->queue, abc[1], sv->in_count[1], launch_seed, 1));
        } else {
            clu_random_fill(sv->a, sv->in_count[0], launch_seed, 0);
            clu_random_fill(sv->b, sv->in_count[1], launch_seed, 1);
            CLU_CHECK(clEnqueueWriteBuffer(env->queue, abc[0], CL_TRUE, 0,
                                           sv->in_count[0] * sizeof(float), sv->a, 0, NULL, NULL));
            CLU_CHECK(clEnqueueWriteBuffer(env->queue, abc[1], CL_TRUE, 0,
                                           sv->in_count[1] * sizeof(float), sv->b, 0, NULL, NULL));
        }
        /* C: the unwritten NaN, then the guard zone, both filled on the device (no 64 MB copy
         * at N = 4096) */
        const cl_uint unwritten = CLU_UNWRITTEN_BITS;
        const float guard = HARNESS_GUARD_VALUE;
        CLU_CHECK(clEnqueueFillBuffer(env->queue, abc[2], &unwritten, sizeof unwritten, 0,
                                      sv->c_count * sizeof(float), 0, NULL, NULL));
        if (sv->c_total > sv->c_count)
            CLU_CHECK(clEnqueueFillBuffer(
                env->queue, abc[2], &guard, sizeof guard, sv->c_count * sizeof(float),
                (sv->c_total - sv->c_count) * sizeof(float), 0, NULL, NULL));
    }
    CLU_CHECK(clFinish(env->queue));
    return 0;
}

/* `launch R LAUNCHES`: LAUNCHES launches, launch k on set k mod sets, enqueued back to back and
 * waited for together; *seconds the sum of their event times. A set used again first has its C
 * filled with the unwritten NaN (no launch finds C as the one before left it); `fill R LAUNCHES`
 * (fills_only) makes those fills alone, for the grader to take their time out. */
static cl_int serve_launches(struct served *sv, int launches, int fills_only, double *seconds) {
    cl_event *done = calloc((size_t)launches, sizeof *done);
    cl_int err = done ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    int made = 0;
    const cl_uint unwritten = CLU_UNWRITTEN_BITS;
    *seconds = 0.0;
    for (; made < launches && err == CL_SUCCESS; made++) {
        cl_mem *abc = sv->sets[made % sv->used];
        if (made >= sv->used)
            err = clEnqueueFillBuffer(sv->env->queue, abc[2], &unwritten, sizeof unwritten, 0,
                                      sv->c_count * sizeof(float), 0, NULL, NULL);
        if (fills_only || err != CL_SUCCESS)
            continue;
        err = grader_set_args(sv->ex, sv->launch->kernel, sv->size, sv->variant, abc);
        if (err == CL_SUCCESS)
            err = grader_enqueue(sv->launch, sv->env->queue, &done[made]);
        if (err == CL_SUCCESS && !done[made])
            err = CLU_NOT_LAUNCHED;
    }
    if (err == CL_SUCCESS)
        err = clFinish(sv->env->queue);
    for (int k = 0; k < made && done; k++)
        if (done[k]) {
            if (err == CL_SUCCESS)
                *seconds += clu_event_seconds(done[k]);
            clReleaseEvent(done[k]);
        }
    free(done);
    return err;
}

/* --serve: the timed runs, one command at a time from the grader, which holds the clock.
 * Commands on stdin, one reply line each on fd 3 (the grader's own channel: a kernel's printf
 * goes to stdout, the log):
 *   (at start)                -> "ready" after the build and two untimed launches
 *   inputs R SEED SETS NONCE  -> SETS launch sets (serve_inputs); "inputs R NONCE"
 *   launch R COUNT NONCE      -> COUNT launches on the sets in turn, back to back, waited for;
 *                                "launched R NONCE SECONDS" (the sum of their event times)
 *   fill R COUNT NONCE        -> the fills of C that launch R COUNT makes, alone; "filled R NONCE"
 *   save R K NONCE            -> set K's C with its guard zone saved as c-R-K.bin; "saved R NONCE"
 *   vendor R KEY NONCE        -> (--vendors) the last COUNT of launches of that vendor's SGEMM;
 *                                "vendor R NONCE SECONDS LIBRARY", or "vendor-skipped R NONCE
 * REASON" End of input ends it. Nothing it says is believed: the grader times each launch command
 * with its own clock, chooses the seeds and checks every saved C itself; the nonces only keep
 * a reply from being taken for another. The reference kernel runs in a process of its own.
 * The words are exercise/protocol.h's SERVE_ names. */
static int serve(struct served *sv) {
    const struct clu_env *env = sv->env;
    FILE *reply = fdopen(3, "w");
    if (!reply) {
        fprintf(stderr, WHO ": " FLAG_SERVE " needs the grader's reply channel on fd 3\n");
        return HARNESS_USAGE;
    }
    struct clu_stats unused;
    /* two untimed launches: POCL generates code at the first, caches settle at the second */
    CLU_CHECK_ERR(clu_time_launches(env->queue, grader_enqueue, sv->launch, 2, 0, &unused),
                  "warm-up");
    fprintf(reply, SERVE_READY "\n");
    fflush(reply);
    char line[256], key[32];
    int count = 1, sets = 1;
    while (fgets(line, sizeof line, stdin)) {
        int round = -1, set = -1;
        unsigned long long seed = 0, nonce = 0;
        double seconds = 0.0;
        if (sscanf(line, SERVE_INPUTS " %d %llu %d %llu", &round, &seed, &sets, &nonce) == 4 &&
            sets >= 1 && sets <= SERVE_MAX_SETS) {
            if (serve_inputs(sv, seed, sets) != 0)
                return HARNESS_OPENCL;
            fprintf(reply, SERVE_INPUTS " %d %llu\n", round, nonce);
        } else if (sscanf(line, SERVE_LAUNCH " %d %d %llu", &round, &count, &nonce) == 3 &&
                   count >= 1 && count <= SERVE_MAX_LAUNCHES) {
            CLU_CHECK_ERR(serve_launches(sv, count, 0, &seconds), "timed launch");
            fprintf(reply, SERVE_LAUNCHED " %d %llu %.9g\n", round, nonce, seconds);
        } else if (sscanf(line, SERVE_FILL " %d %d %llu", &round, &count, &nonce) == 3 &&
                   count >= 1 && count <= SERVE_MAX_LAUNCHES) {
            CLU_CHECK_ERR(serve_launches(sv, count, 1, &seconds), "fills of C");
            fprintf(reply, SERVE_FILLED " %d %llu\n", round, nonce);
        } else if (sv->vendors &&
                   sscanf(line, SERVE_VENDOR " %d %31s %llu", &round, key, &nonce) == 3) {
            vendor_command(sv->vendors, round, key, count, nonce, reply);
        } else if (sscanf(line, SERVE_SAVE " %d %d %llu", &round, &set, &nonce) == 3 && set >= 0 &&
                   set < sv->count) {
            char name[32];
            snprintf(name, sizeof name, RESULT_LAUNCH, round, set);
            if (save_buffer(env, sv->sets[set][2], sv->c, sv->c_total, sv->dir, name) != 0)
                return HARNESS_USAGE;
            fprintf(reply, SERVE_SAVED " %d %llu\n", round, nonce);
        } else {
            fprintf(stderr, WHO ": unknown command: %s", line);
            return HARNESS_USAGE;
        }
        fflush(reply);
    }
    fclose(reply);
    return HARNESS_OK;
}

/* The kernel at one size, from inputs of seed: launched once and C, A and B saved into out, or
 * (f->serving) timed as serve() is told. A HARNESS_ status (some failures exit with theirs). */
static int at_size(const struct harness_flags *f, const struct grader_exercise *ex,
                   const struct clu_env *env, const struct grader_variant *variant,
                   cl_kernel kernel, struct grader_size size, uint64_t seed, const char *out) {
    struct grader_launch student;
    if (grader_plan_launch(ex, env, size, variant, &student) != 0)
        return HARNESS_BAD_DEVICE;
    student.kernel = kernel;
    size_t guard = f->guard ? grader_guard_count(ex, size) : 0; /* 0: --exact */
    size_t in_count[2] = {grader_a_count(ex, size), grader_b_count(ex, size)};
    size_t in_guard[2] = {0, 0}; /* (none under oclgrind, which checks the true bounds) */
    for (int i = 0; i < 2 && guard; i++)
        in_guard[i] = grader_input_guard(ex, size, i);
    size_t out_count = grader_output_count(ex, size);
    float *a = malloc((in_count[0] + in_guard[0]) * sizeof *a);
    float *b = malloc((in_count[1] + in_guard[1]) * sizeof *b);
    float *c = malloc((out_count + guard) * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, WHO ": out of host memory at N = %d\n", size.n);
        return HARNESS_OPENCL;
    }
    clu_random_fill(a, in_count[0], seed, 0);
    clu_random_fill(b, in_count[1], seed, 1);
    clu_fill_past_end(a + in_count[0], in_guard[0]);
    clu_fill_past_end(b + in_count[1], in_guard[1]);
    clu_fill_unwritten(c, out_count); /* the grader tells unwritten from computed NaN */
    for (size_t i = out_count; i < out_count + guard; i++)
        c[i] = HARNESS_GUARD_VALUE;
    cl_mem abc[3] = {buffer(env, in_count[0] + in_guard[0], a),
                     buffer(env, in_count[1] + in_guard[1], b), buffer(env, out_count + guard, c)};
    if (grader_set_args(ex, student.kernel, size, variant, abc) != CL_SUCCESS)
        return HARNESS_BAD_ARGS; /* the message, with the signature, is on stderr */
    char options[400];
    grader_build_options(variant, options, sizeof options);
    check_fit(env, &student, options, abc[2], c, out_count + guard);

    int status = HARNESS_OK;
    if (f->serving) {
        /* (square sizes only: the timed comparison is at N x N x N) */
        struct vendor_set vendors = {0};
        if (f->vendors && size.m == size.n && size.k == size.n)
            vendors_prepare(env, size.n, a, b, seed, &vendors);
        /* A GPU makes each round's inputs itself (a copy of them cost more than the launches at
         * N = 4096); a CPU device on the host, as before: there the kernel is an LLVM build a
         * process, and the copy no dearer than the fill */
        cl_device_type type = CL_DEVICE_TYPE_CPU;
        struct clu_device_fill fill = {0};
        int on_device =
            clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
            !(type & CL_DEVICE_TYPE_CPU) && clu_device_fill_open(env, &fill) == CL_SUCCESS;
        struct served sv = {.env = env,
                            .ex = ex,
                            .size = size,
                            .variant = variant,
                            .launch = &student,
                            .count = 1,
                            .used = 1,
                            .c_count = out_count,
                            .a = a,
                            .b = b,
                            .c = c,
                            .in_count = in_count,
                            .c_total = out_count + guard,
                            .dir = out,
                            .vendors = f->vendors ? &vendors : NULL,
                            .fill = on_device ? &fill : NULL};
        memcpy(sv.sets[0], abc, sizeof abc);
        status = serve(&sv);
        if (on_device)
            clu_device_fill_close(&fill);
        for (int k = 1; k < sv.count; k++) /* (set 0 is abc, released below) */
            for (int m = 0; m < 3; m++)
                if (sv.sets[k][m])
                    clReleaseMemObject(sv.sets[k][m]);
        vendors_release(&vendors);
    } else {
        cl_event done;
        CLU_CHECK(grader_enqueue(&student, env->queue, &done));
        CLU_CHECK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
        if (save_buffer(env, abc[2], c, out_count + guard, out, RESULT_C) != 0 ||
            save_buffer(env, abc[0], a, in_count[0] + in_guard[0], out, RESULT_A) != 0 ||
            save_buffer(env, abc[1], b, in_count[1] + in_guard[1], out, RESULT_B) != 0)
            status = HARNESS_USAGE;
    }
    for (int i = 0; i < 3; i++)
        clReleaseMemObject(abc[i]);
    free(a);
    free(b);
    free(c);
    return status;
}

/* With --then: a size's files all saved (RESULT_DONE in its folder) */
static void mark_done(const char *dir) {
    char path[4096 + 64];
    snprintf(path, sizeof path, "%s/" RESULT_DONE, dir);
    FILE *done = fopen(path, "w");
    if (done)
        fclose(done);
}

int grader_harness_main(int argc, char **argv) {
    struct harness_flags f = {.guard = HARNESS_GUARD};
    int usage = harness_read_flags(argc, argv, &f);
    if (usage != HARNESS_OK)
        return usage;
    const struct grader_exercise *ex = grader_find_exercise(f.id);
    struct grader_size size = {f.m ? f.m : f.n, f.n, f.k ? f.k : f.n};
    struct grader_variant variant = grader_variant_of(ex, f.block, f.check);
    struct grader_values defined; /* the --define values, when given */
    usage = harness_apply_defines(&f, ex, &variant, &defined);
    if (usage != HARNESS_OK)
        return usage;
    struct clu_env env;
    if (clu_env_open(&env, f.device) != 0)
        return HARNESS_BAD_DEVICE;
    struct grader_launch first; /* (a device that cannot take the launch says so before a build) */
    if (grader_plan_launch(ex, &env, size, &variant, &first) != 0)
        return HARNESS_BAD_DEVICE;
    cl_program program;
    cl_kernel kernel = kernel_from(ex, &env, f.kernel, &variant, &program);
    /* --then's sizes in the same process, each in a folder of its own, after the first: a GPU
     * driver's start (0.3 s on the H200) once for all of an exercise's hidden sizes */
    /* (a done file that cannot be written only leaves its size to a run of its own) */
    int status = at_size(&f, ex, &env, &variant, kernel, size, f.seed, f.out);
    if (status == HARNESS_OK && f.then_count)
        mark_done(f.out);
    for (int t = 0; t < f.then_count && status == HARNESS_OK; t++) {
        char dir[4096], name[32];
        snprintf(name, sizeof name, RESULT_THEN, t + 1);
        if (snprintf(dir, sizeof dir, "%s/%s", f.out, name) >= (int)sizeof dir) {
            fprintf(stderr, WHO ": " FLAG_OUT " is too long\n");
            status = HARNESS_USAGE;
            break;
        }
        if (mkdir(dir, 0700) != 0) {
            fprintf(stderr, WHO ": cannot make %s\n", dir);
            status = HARNESS_USAGE;
            break;
        }
        status = at_size(&f, ex, &env, &variant, kernel, f.then[t], f.then_seed[t], dir);
        if (status == HARNESS_OK)
            mark_done(dir);
    }
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clu_env_close(&env);
    return status;
}
