/* tests/blas_cores.c - one library's cblas_sgemm timed at N, for tests/blas_cores.sh: the CPU
 * anchor's kernels against a second BLAS on the same machine (issue 36).
 *
 * usage: blas_cores LIBRARY N  ->  one line: library, its core (OpenBLAS's openblas_get_corename,
 * else "-"), N, the best and the median GFLOP/s of 9 products after one untimed, the first
 * element checked against a double dot product. The library is dlopen'ed, so that the caller's
 * environment (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE) is what it reads when it loads. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
enum { ROW_MAJOR = 101, NO_TRANS = 111, RUNS = 9 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int n = argc == 3 ? atoi(argv[2]) : 0;
    if (n < 16 || n > 16384) {
        fprintf(stderr, "usage: blas_cores LIBRARY N (16 to 16384)\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW);
    sgemm_fn sgemm = lib ? (sgemm_fn)(size_t)dlsym(lib, "cblas_sgemm") : NULL;
    if (!sgemm) {
        fprintf(stderr, "blas_cores: %s: %s\n", argv[1], lib ? "no cblas_sgemm" : dlerror());
        return 1;
    }
    char *(*corename)(void) = (char *(*)(void))(size_t)dlsym(lib, "openblas_get_corename");
    size_t count = (size_t)n * (size_t)n;
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b),
          *c = malloc(count * sizeof *c);
    if (!a || !b || !c)
        return 1;
    unsigned state = 12345u;
    for (size_t i = 0; i < count; i++) {
        a[i] = (float)((state = state * 1103515245u + 12345u) >> 16 & 0x7fff) / 32768.0f - 0.5f;
        b[i] = (float)((state = state * 1103515245u + 12345u) >> 16 & 0x7fff) / 32768.0f - 0.5f;
    }
    double seconds[RUNS];
    sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        seconds[r] = now() - t;
    }
    double dot = 0.0, size = 0.0;
    for (int k = 0; k < n; k++) {
        dot += (double)a[k] * (double)b[(size_t)k * (size_t)n];
        size += fabs((double)a[k] * (double)b[(size_t)k * (size_t)n]);
    }
    int right = fabs(dot - (double)c[0]) <= 1e-5 * size + 1e-6;
    qsort(seconds, RUNS, sizeof seconds[0], by_value);
    double flops = 2.0 * (double)n * (double)n * (double)n;
    printf("%s,%s,%d,%.1f,%.1f,%s\n", argv[1], corename ? corename() : "-", n,
           flops / seconds[0] * 1e-9, flops / seconds[RUNS / 2] * 1e-9, right ? "right" : "WRONG");
    return right ? 0 : 1;
}
