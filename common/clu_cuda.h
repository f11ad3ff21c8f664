/* clu_cuda.h - the CUDA side of the workbook's host library, for the CUDA twins' main.cu (06 and
 * 13): the error idiom, the device as the OpenCL programs choose theirs (--list, --device), and
 * the timed launches. Header only, and only for nvcc: libclu.a is built with a C compiler where
 * no CUDA toolkit is, so these are static functions compiled into each twin. Include it after
 * clu.h (the flags, inputs, reference and statistics the twins share with every program).
 */
#ifndef CLU_CUDA_H
#define CLU_CUDA_H

#include "clu.h"

#include <cuda_runtime.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the exit status of a failed CUDA call: the OpenCL programs' status for theirs */
#define CLU_EXIT_CUDA 3

/* The workbook's error idiom in CUDA: on failure print the error's name, the operation, file
 * and line, and exit with CLU_EXIT_CUDA. A kernel's own errors (an illegal address) show at the
 * next call that waits for it. */
#define CUDA_CHECK(call) clu_cuda_check((call), #call, __FILE__, __LINE__)
static inline void clu_cuda_check(cudaError_t err, const char *operation, const char *file,
                                  int line) {
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "CUDA error %s (%d) in %s at %s:%d: %s\n", cudaGetErrorName(err), (int)err,
            operation, file, line, cudaGetErrorString(err));
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        fprintf(stderr, "  this program needs an NVIDIA GPU and its driver (nvidia-smi lists "
                        "them); the OpenCL exercises run anywhere\n");
    exit(CLU_EXIT_CUDA);
}

/* malloc, or exit 2 with a message. */
static inline void *clu_cuda_host_alloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* Whether needle is part of hay, ignoring case. */
static inline int clu_cuda_contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

/* The device a twin runs on, and the versions its report prints. */
struct clu_cuda_device {
    int index;
    cudaDeviceProp prop;
    int driver, runtime; /* 13000 for CUDA 13.0 */
};

/* The device of opt, as the OpenCL programs read --device: none the first, a number its index
 * from --list, otherwise part of its name; made current. With --list, the devices are listed
 * instead. 0 when opened, 1 when listed (the program ends, successfully), 2 when no device
 * matches (said on stderr). */
static inline int clu_cuda_open(const struct clu_options *opt, struct clu_cuda_device *d) {
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    memset(d, 0, sizeof *d);
    d->index = -1;
    const char *spec = opt->device;
    char *end = NULL;
    long index = spec && *spec ? strtol(spec, &end, 10) : 0;
    for (int i = 0; i < count; i++) {
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, i));
        if (opt->list)
            printf("%d: %s (compute capability %d.%d, %d multiprocessors, %.1f GiB)\n", i, p.name,
                   p.major, p.minor, p.multiProcessorCount,
                   (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
        else if (d->index < 0 && (end && *end == '\0' ? i == index
                                  : spec && *spec     ? clu_cuda_contains(p.name, spec)
                                                      : i == 0))
            d->index = i, d->prop = p;
    }
    if (opt->list)
        return 1;
    if (d->index < 0) {
        fprintf(stderr,
                "no CUDA device matches \"%s\" (from --device or $DEVICE); --list shows them\n",
                spec ? spec : "");
        return 2;
    }
    CUDA_CHECK(cudaSetDevice(d->index));
    CUDA_CHECK(cudaDriverGetVersion(&d->driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&d->runtime));
    return 0;
}

/* "NAME (CUDA driver 13.0, runtime 13.0)" into buf. */
static inline void clu_cuda_device_text(const struct clu_cuda_device *d, char *buf, size_t size) {
    snprintf(buf, size, "%s (CUDA driver %d.%d, runtime %d.%d)", d->prop.name, d->driver / 1000,
             d->driver % 1000 / 10, d->runtime / 1000, d->runtime % 1000 / 10);
}

/* One untimed launch (loading the module, and compiling its PTX where the GPU is newer than the
 * code nvcc made), then `repeats` launches, each timed by two events around it: their seconds'
 * statistics. launch(context) starts one launch and checks that it could start. */
static inline struct clu_stats clu_cuda_time(void (*launch)(void *), void *context, int repeats) {
    launch(context);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *samples = (double *)clu_cuda_host_alloc((size_t)repeats * sizeof *samples);
    for (int r = 0; r < repeats; r++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventRecord(start));
        launch(context);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = 1e-3 * (double)ms;
    }
    struct clu_stats stats = clu_stats_of(samples, repeats);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    free(samples);
    return stats;
}

#endif
