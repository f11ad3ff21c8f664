/* peak.c - the device's own ceilings, measured rather than looked up: FP32 multiply-add throughput
 * (GFLOP/s) and global memory bandwidth (GB/s), each by a small kernel of ours, for the roofline
 * and the "% of peak" column of the benchmark.
 *
 * FP32: every work-item runs 8 independent chains of multiply-adds (mad), 4 steps of each per loop
 * iteration, in float, float4 and float8 variants; the best variant is the figure. Bandwidth: a
 * float4 copy b[i] = a[i] between two 256 MB buffers, counting the bytes read and written. Each
 * kernel is built and launched once untimed, then its size is scaled until one timed run lasts at
 * least PEAK_MIN_RUN seconds, and bench_repeat times the runs by their profiling events. The
 * kernels are in peak.cl, next to this file, read at run time from the workbook's tree.
 */
#include "bench/bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PEAK_MIN_RUN       0.02 /* seconds one timed run must last: launch overheads vanish */
#define PEAK_AIM           1.5  /* scaling aims at this times PEAK_MIN_RUN: room for a slow probe */
#define PEAK_MAX_LOOPS     (1 << 26)  /* loop count cap of the FMA kernel (no int overflow) */
#define PEAK_MAX_BATCH     1024       /* launches per timed run cap of the copy kernel */
#define PEAK_GROUP         256        /* local size of the FMA kernel (or the kernel's limit) */
#define PEAK_OVERSUBSCRIBE 8          /* FMA work-items: compute units * max group * this */
#define PEAK_MIN_ITEMS     (64 << 10) /* ... and at least this many */
#define PEAK_MAX_ITEMS     (4 << 20)  /* ... and at most this many */
#define PEAK_COPY_BYTES    ((size_t)256 << 20) /* each copy buffer, unless max alloc / 4 is less */
#define PEAK_CHAINS        8 /* independent accumulators per work-item (as in the source) */
#define PEAK_STEPS         4 /* multiply-adds of each chain per loop iteration (ditto) */

/* One FMA variant. */
struct peak_variant {
    const char *kernel; /* __kernel name in peak.cl */
    int width;          /* floats per value */
};

static const struct peak_variant peak_variants[] = {
    {"peak_float", 1},
    {"peak_float4", 4},
    {"peak_float8", 8},
};

/* What one timed run launches: `batch` launches of kernel, timed by their events. */
struct peak_run {
    cl_command_queue queue;
    cl_kernel kernel;
    size_t global, local; /* local 0: the runtime chooses */
    int batch;            /* launches per run */
};

/* ---------------------------------------------------------------- running and timing */

/* The batch of launches, waited for; *seconds gets the sum of their event times. */
static cl_int peak_launch(const struct peak_run *r, double *seconds) {
    cl_event events[PEAK_MAX_BATCH] = {NULL};
    int launched = 0;
    cl_int err = CL_SUCCESS;
    for (; launched < r->batch && err == CL_SUCCESS; launched++) {
        err = clEnqueueNDRangeKernel(r->queue, r->kernel, 1, NULL, &r->global,
                                     r->local ? &r->local : NULL, 0, NULL, &events[launched]);
        if (err != CL_SUCCESS)
            break;
    }
    if (err == CL_SUCCESS)
        err = clWaitForEvents((cl_uint)launched, events);
    double sum = 0.0;
    for (int i = 0; i < launched; i++) {
        if (err == CL_SUCCESS)
            sum += clu_event_seconds(events[i]);
        clReleaseEvent(events[i]);
    }
    if (err == CL_SUCCESS)
        err = clFinish(r->queue);
    *seconds = sum;
    return err;
}

/* bench_run_fn over a struct peak_run. */
static int peak_timed_run(void *ctx, double *seconds) {
    cl_int err = peak_launch(ctx, seconds);
    if (err != CL_SUCCESS) {
        clu_report_error(err, "peak kernel launch", __FILE__, __LINE__);
        return -1;
    }
    return 0;
}

/* The fastest of `tries` runs in *seconds: a probe that a busy spell of the machine slowed down
 * would otherwise make the timed runs too short. */
static cl_int peak_probe(const struct peak_run *r, int tries, double *seconds) {
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < tries && err == CL_SUCCESS; i++) {
        double one = 0.0;
        err = peak_launch(r, &one);
        if (i == 0 || one < *seconds)
            *seconds = one;
    }
    return err;
}

/* ---------------------------------------------------------------- FP32 multiply-add peak */

static size_t peak_items(const struct clu_env *env, size_t local) {
    cl_uint units = 1;
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    size_t items = (size_t)(units ? units : 1) * clu_device_max_group(env) * PEAK_OVERSUBSCRIBE;
    if (items < PEAK_MIN_ITEMS)
        items = PEAK_MIN_ITEMS;
    if (items > PEAK_MAX_ITEMS)
        items = PEAK_MAX_ITEMS;
    return (items + local - 1) / local * local; /* a multiple of the local size */
}

/* GFLOP/s of one variant in *gflops; 0, or -1 with why. */
static int peak_fma(const struct clu_env *env, cl_program program, const struct peak_variant *v,
                    double *gflops, char *why, size_t why_size) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, v->kernel, &err);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "FP32 peak: clCreateKernel(%s) failed: %s", v->kernel,
                 clu_error_name(err));
        return -1;
    }
    size_t group = PEAK_GROUP, kernel_group = 0;
    if (clGetKernelWorkGroupInfo(kernel, env->device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof kernel_group, &kernel_group, NULL) == CL_SUCCESS &&
        kernel_group > 0)
        while (group > kernel_group)
            group /= 2;
    struct peak_run run = {env->queue, kernel, 0, group, 1};
    run.global = peak_items(env, group);
    cl_mem out = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY,
                                run.global * sizeof(float) * (size_t)v->width, NULL, &err);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "FP32 peak: clCreateBuffer failed: %s", clu_error_name(err));
        clReleaseKernel(kernel);
        return -1;
    }
    cl_float m = 0.999f, c = 0.001f;
    cl_int loops = 16;
    err = clSetKernelArg(kernel, 1, sizeof m, &m);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 2, sizeof c, &c);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 3, sizeof out, &out);
    /* the first launch (code generation) is untimed; then the loop count grows until one
     * launch lasts PEAK_MIN_RUN */
    double seconds = 0.0;
    for (int first = 1; err == CL_SUCCESS; first = 0) {
        err = clSetKernelArg(kernel, 0, sizeof loops, &loops);
        if (err == CL_SUCCESS)
            err = peak_probe(&run, first ? 1 : 2, &seconds);
        if (err != CL_SUCCESS || first)
            continue;
        if (seconds >= PEAK_MIN_RUN || loops >= PEAK_MAX_LOOPS)
            break;
        double grow = seconds > 0.0 ? PEAK_AIM * PEAK_MIN_RUN / seconds : 64.0;
        grow = grow < 2.0 ? 2.0 : grow > 64.0 ? 64.0 : grow;
        loops = (double)loops * grow > PEAK_MAX_LOOPS ? PEAK_MAX_LOOPS : (cl_int)(loops * grow);
    }
    int status = -1;
    struct clu_stats stats;
    if (err != CL_SUCCESS)
        snprintf(why, why_size, "FP32 peak: %s failed: %s", v->kernel, clu_error_name(err));
    else if (bench_repeat(peak_timed_run, &run, 0, &stats) != 0 || stats.median <= 0.0)
        snprintf(why, why_size, "FP32 peak: timed runs of %s failed", v->kernel);
    else {
        double fmas = (double)run.global * loops * PEAK_CHAINS * PEAK_STEPS * v->width;
        *gflops = 2.0 * fmas / stats.median * 1e-9;
        status = 0;
    }
    clReleaseMemObject(out);
    clReleaseKernel(kernel);
    return status;
}

/* ---------------------------------------------------------------- copy bandwidth */

/* GB/s of the float4 copy in *gbytes; 0, or -1 with why. */
static int peak_copy(const struct clu_env *env, cl_program program, double *gbytes, char *why,
                     size_t why_size) {
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    size_t bytes = PEAK_COPY_BYTES;
    if (max_alloc > 0 && max_alloc / 4 < bytes)
        bytes = (size_t)(max_alloc / 4);
    bytes -= bytes % (16 * 1024); /* whole float4s, in groups of 1024 */
    cl_int err, err_b = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, "peak_copy", &err);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "bandwidth: clCreateKernel(peak_copy) failed: %s",
                 clu_error_name(err));
        return -1;
    }
    cl_mem a = clCreateBuffer(env->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
    cl_mem b = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err_b);
    if (err == CL_SUCCESS)
        err = err_b;
    /* touch both buffers so that no page is first allocated inside a timed run */
    cl_float zero = 0.0f;
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(env->queue, a, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(env->queue, b, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 0, sizeof a, &a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, 1, sizeof b, &b);
    struct peak_run run = {env->queue, kernel, bytes / 16, 0, 1};
    /* one untimed launch, then the fastest of two chooses the launches per run (a copy of
     * 2 x 256 MB takes a fraction of a millisecond on a GPU: a run is then a batch of launches,
     * timed by the sum of their events) */
    double fastest = 0.0;
    if (err == CL_SUCCESS)
        err = peak_probe(&run, 1, &fastest);
    if (err == CL_SUCCESS)
        err = peak_probe(&run, 2, &fastest);
    if (err == CL_SUCCESS && fastest < PEAK_AIM * PEAK_MIN_RUN) {
        double batch = fastest > 0.0 ? PEAK_AIM * PEAK_MIN_RUN / fastest : PEAK_MAX_BATCH;
        run.batch = batch >= PEAK_MAX_BATCH ? PEAK_MAX_BATCH : (int)batch + 1;
    }
    int status = -1;
    struct clu_stats stats;
    if (err != CL_SUCCESS)
        snprintf(why, why_size, "bandwidth: copy kernel failed: %s", clu_error_name(err));
    else if (bench_repeat(peak_timed_run, &run, 0, &stats) != 0 || stats.median <= 0.0)
        snprintf(why, why_size, "bandwidth: timed runs of the copy kernel failed");
    else {
        *gbytes = 2.0 * (double)bytes * run.batch / stats.median * 1e-9;
        status = 0;
    }
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    clReleaseKernel(kernel);
    return status;
}

/* ---------------------------------------------------------------- both */

int bench_measure_peak(const struct clu_env *env, const char *source_path,
                       struct bench_peak *peak) {
    memset(peak, 0, sizeof *peak);
    char *source = clu_read_file(source_path, NULL);
    if (!source) {
        snprintf(peak->why, sizeof peak->why, "cannot read the peak kernels %s: %s", source_path,
                 strerror(errno));
        return -1;
    }
    cl_int err;
    const char *sources[] = {source};
    cl_program program = clCreateProgramWithSource(env->context, 1, sources, NULL, &err);
    free(source);
    if (err != CL_SUCCESS) {
        snprintf(peak->why, sizeof peak->why, "peak kernels: clCreateProgramWithSource: %s",
                 clu_error_name(err));
        return -1;
    }
    err = clBuildProgram(program, 1, &env->device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        /* the whole log to stderr, its start in why */
        size_t size = 0;
        clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
        char *log = calloc(size + 1, 1);
        if (log)
            clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
        fprintf(stderr, "---- OpenCL build log of the peak kernels (%s) ----\n%s\n---- end ----\n",
                env->device_name, log ? log : "");
        for (char *p = log; p && *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        snprintf(peak->why, sizeof peak->why, "peak kernels did not build (%s): %.120s",
                 clu_error_name(err), log ? log : "");
        free(log);
        clReleaseProgram(program);
        return -1;
    }
    /* the best variant: scalar code vectorised by the compiler may beat explicit vectors, or not */
    int status = 0;
    char why[sizeof peak->why] = "";
    for (size_t i = 0; i < sizeof peak_variants / sizeof peak_variants[0]; i++) {
        double gflops = 0.0;
        if (peak_fma(env, program, &peak_variants[i], &gflops, why, sizeof why) == 0) {
            if (gflops > peak->gflops)
                peak->gflops = gflops;
        } else if (!peak->why[0])
            snprintf(peak->why, sizeof peak->why, "%s", why);
    }
    if (peak->gflops <= 0.0)
        status = -1;
    else
        peak->why[0] = '\0'; /* a variant that failed where another ran is no loss */
    if (peak_copy(env, program, &peak->gbytes, why, sizeof why) != 0) {
        status = -1;
        if (!peak->why[0])
            snprintf(peak->why, sizeof peak->why, "%s", why);
    }
    clReleaseProgram(program);
    return status;
}
