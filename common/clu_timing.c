/* clu_timing.c - kernel times from profiling events: warm-up, repeats, min/median/max. */
#include "clu.h"

#include <stdlib.h>

double clu_event_seconds(cl_event event) {
    cl_ulong start = 0, end = 0;
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    return end > start ? (double)(end - start) * 1e-9 : 0.0;
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

struct clu_stats clu_stats_of(double *samples, int n) {
    struct clu_stats s = {0, 0, 0, n};
    if (n <= 0)
        return s;
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return s;
}

/* One launch, waited for; *seconds gets its event time. */
static cl_int launch_once(cl_command_queue queue, clu_launch_fn launch, void *ctx,
                          double *seconds) {
    cl_event done = NULL;
    cl_int err = launch(ctx, queue, &done);
    if (err != CL_SUCCESS) {
        if (done)
            clReleaseEvent(done);
        return err;
    }
    if (done == NULL)
        return CLU_NOT_LAUNCHED;
    err = clWaitForEvents(1, &done);
    if (err == CL_SUCCESS && seconds)
        *seconds = clu_event_seconds(done);
    clReleaseEvent(done);
    return err != CL_SUCCESS ? err : clFinish(queue);
}

cl_int clu_time_launches(cl_command_queue queue, clu_launch_fn launch, void *ctx, int warmup,
                         int repeats, struct clu_stats *stats) {
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < warmup && err == CL_SUCCESS; i++)
        err = launch_once(queue, launch, ctx, NULL);
    double *samples = calloc(repeats > 0 ? (size_t)repeats : 1, sizeof *samples);
    if (!samples)
        return CL_OUT_OF_HOST_MEMORY;
    int done = 0;
    while (err == CL_SUCCESS && done < repeats) {
        err = launch_once(queue, launch, ctx, &samples[done]);
        if (err == CL_SUCCESS)
            done++;
    }
    *stats = clu_stats_of(samples, done);
    free(samples);
    return err;
}
