/* vendor.c - the vendor SGEMMs of the benchmark: OpenBLAS on the host and CLBlast on an OpenCL
 * device (cuBLAS on a CUDA device is in cublas.c), each timed on the same A and B as the
 * workbook's kernels, and the loading they share (vendor.h).
 *
 * Every library is opened at run time with dlopen and its few functions are declared here, so the
 * workbook builds without any vendor header and runs where a library is missing: that vendor is
 * then skipped with a one-line reason naming the package to install. A library once opened stays
 * loaded for the rest of the process: unloading a threaded BLAS or the CUDA runtime in the middle
 * of a process is not safe, and CLBlast keeps its compiled kernels in a cache of its own, so the
 * second and later sizes on a device do not compile again.
 *
 * BENCH_NO_VENDOR=openblas,clblast,cublas (any of them, or "all") skips the named vendors, as if
 * the library were absent; the tests use it.
 */
#define _GNU_SOURCE /* dladdr, strncasecmp */
#include "bench/vendor.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- reasons and names */

void vendor_say(char *buf, size_t size, const char *fmt, ...) {
    if (!buf || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static int vendor_disabled(const char *name) {
    const char *p = getenv("BENCH_NO_VENDOR");
    if (!p)
        return 0;
    size_t length = strlen(name);
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        const char *word = p;
        while (*p && *p != ',' && !isspace((unsigned char)*p))
            p++;
        size_t size = (size_t)(p - word);
        if ((size == length && strncasecmp(word, name, length) == 0) ||
            (size == 3 && strncasecmp(word, "all", 3) == 0))
            return 1;
    }
    return 0;
}

int vendor_start(struct clu_stats *stats, char *name, size_t name_size, const char *shown,
                 const char *key, char *why, size_t why_size) {
    memset(stats, 0, sizeof *stats);
    vendor_say(name, name_size, "%s", shown);
    vendor_say(why, why_size, "%s", "");
    if (!vendor_disabled(key))
        return 0;
    vendor_say(why, why_size, "%s disabled by BENCH_NO_VENDOR", shown);
    return 1;
}

void vendor_words(const char *s, int words, char *out, size_t size) {
    size_t end = 0;
    for (int w = 0; w < words && s[end]; w++) {
        while (s[end] == ' ')
            end++;
        while (s[end] && s[end] != ' ')
            end++;
    }
    vendor_say(out, size, "%.*s", (int)(end < INT_MAX ? end : INT_MAX), s);
}

void vendor_file_version(void *symbol, const char *stem, char *out, size_t size) {
    vendor_say(out, size, "%s", "");
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname)
        return;
    char *path = realpath(info.dli_fname, NULL);
    if (!path)
        return;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t stem_length = strlen(stem);
    const char *version = base + stem_length;
    if (strncmp(base, stem, stem_length) == 0 && strchr(version, '.'))
        vendor_say(out, size, "%s", version);
    free(path);
}

/* ---------------------------------------------------------------- loading */

void *vendor_open(struct vendor_lib *lib) {
    for (int i = 0; !lib->handle && lib->names[i]; i++) {
        lib->handle = dlopen(lib->names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib->handle)
            lib->opened = lib->names[i];
    }
    return lib->handle;
}

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym needs data and code pointers "
                                                         "of one size");

/* ISO C has no conversion between object and function pointers, so the bits are copied, which
 * POSIX guarantees to work. */
int vendor_sym(const struct vendor_lib *lib, const char *symbol, void *fn, size_t fn_size,
               char *why, size_t why_size) {
    void *address = dlsym(lib->handle, symbol);
    if (!address || fn_size != sizeof address) {
        memset(fn, 0, fn_size);
        vendor_say(why, why_size, "%s has no symbol %s", lib->opened, symbol);
        return -1;
    }
    memcpy(fn, &address, fn_size);
    return 0;
}

/* ---------------------------------------------------------------- checking the product */

#define VENDOR_SAMPLES 256 /* random elements checked, besides the four corners */

/* splitmix64: the sample positions, the same on every run of a given N. */
static uint64_t vendor_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Check C = A*B at the four corners and VENDOR_SAMPLES random elements (every element when N*N is
 * not larger) against a double-precision dot product, within clu_dot_tolerance. Returns 0, or -1
 * with "wrong result at C(i,j): expected x got y" in why. */
int bench_check_product(int n, const float *a, const float *b, const float *c, char *why,
                        size_t why_size) {
    size_t un = (size_t)n;
    int every = un * un <= VENDOR_SAMPLES + 4;
    size_t count = every ? un * un : VENDOR_SAMPLES + 4;
    uint64_t state = 0x76656E646F72ull ^ (uint64_t)un; /* "vendor" */
    for (size_t s = 0; s < count; s++) {
        size_t i, j;
        if (every) {
            i = s / un;
            j = s % un;
        } else if (s < 4) {
            i = (s & 1) ? un - 1 : 0;
            j = (s & 2) ? un - 1 : 0;
        } else {
            i = (size_t)(vendor_random(&state) % un);
            j = (size_t)(vendor_random(&state) % un);
        }
        double sum = 0.0, scale = 0.0;
        for (size_t k = 0; k < un; k++) {
            double product = (double)a[i * un + k] * (double)b[k * un + j];
            sum += product;
            scale += fabs(product);
        }
        double got = (double)c[i * un + j];
        if (!(fabs(got - sum) <= clu_dot_tolerance(n, scale))) { /* NaN is wrong too */
            vendor_say(why, why_size, "wrong result at C(%zu,%zu): expected %.9g got %.9g", i, j,
                       sum, got);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- OpenBLAS */

#define CBLAS_ROW_MAJOR 101 /* CblasRowMajor */
#define CBLAS_NO_TRANS  111 /* CblasNoTrans */

/* cblas_sgemm of an LP64 build (32-bit blasint), as Debian's libopenblas0 is. */
typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc);
typedef char *(*openblas_string_fn)(void);
typedef int (*openblas_int_fn)(void);

static const char *const openblas_names[] = {"libopenblas.so.0", "libopenblas.so", NULL};
static struct vendor_lib openblas_lib = {openblas_names, NULL, NULL};

struct openblas_run {
    cblas_sgemm_fn sgemm; /* the library's cblas_sgemm */
    int n;                /* matrix order */
    const float *a, *b;   /* inputs */
    float *c;             /* output */
};

static int openblas_run(void *ctx, double *seconds) {
    struct openblas_run *r = ctx;
    double start = bench_now();
    r->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, r->n, r->n, r->n, 1.0f, r->a, r->n,
             r->b, r->n, 0.0f, r->c, r->n);
    *seconds = bench_now() - start;
    return 0;
}

/* "OpenBLAS 0.3.21 (Haswell kernels; 2 threads)" from whatever the library tells. */
static void openblas_describe(char *library, size_t library_size) {
    openblas_string_fn get_config, get_corename;
    openblas_int_fn get_threads;
    VENDOR_SYM(&openblas_lib, "openblas_get_config", get_config, NULL, 0);
    VENDOR_SYM(&openblas_lib, "openblas_get_corename", get_corename, NULL, 0);
    VENDOR_SYM(&openblas_lib, "openblas_get_num_threads", get_threads, NULL, 0);

    char name[64] = "OpenBLAS", kernels[64] = "", threads[32] = "";
    const char *config = get_config ? get_config() : NULL;
    if (config && strncmp(config, "OpenBLAS ", 9) == 0)
        vendor_words(config, 2, name, sizeof name);
    const char *core = get_corename ? get_corename() : NULL;
    if (core && *core)
        snprintf(kernels, sizeof kernels, "%s kernels; ", core);
    /* the thread count is left at the library's default (all cores, or OPENBLAS_NUM_THREADS) */
    int count = get_threads ? get_threads() : 0;
    if (count > 0)
        snprintf(threads, sizeof threads, "%d thread%s", count, count == 1 ? "" : "s");
    else
        snprintf(threads, sizeof threads, "default threads");
    vendor_say(library, library_size, "%s (%s%s)", name, kernels, threads);
}

int bench_openblas(int n, const float *a, const float *b, struct clu_stats *stats, char *library,
                   size_t library_size, char *why, size_t why_size) {
    if (vendor_start(stats, library, library_size, "OpenBLAS", "openblas", why, why_size))
        return 1;
    if (!vendor_open(&openblas_lib)) {
        vendor_say(why, why_size, "libopenblas.so.0 not found: apt-get install libopenblas0");
        return 1;
    }
    struct openblas_run r = {NULL, n, a, b, NULL};
    if (VENDOR_SYM(&openblas_lib, "cblas_sgemm", r.sgemm, why, why_size) != 0)
        return 1;
    openblas_describe(library, library_size);

    r.c = malloc((size_t)n * (size_t)n * sizeof *r.c);
    if (!r.c) {
        vendor_say(why, why_size, "out of memory for C (N = %d)", n);
        return 1;
    }
    int result = 1;
    if (bench_repeat(openblas_run, &r, 1, stats) != 0)
        vendor_say(why, why_size, "timing cblas_sgemm failed");
    else if (bench_check_product(n, a, b, r.c, why, why_size) == 0)
        result = 0;
    free(r.c);
    if (result != 0)
        memset(stats, 0, sizeof *stats);
    return result;
}

/* ---------------------------------------------------------------- CLBlast */

#define CLBLAST_ROW_MAJOR 101 /* CLBlastLayoutRowMajor */
#define CLBLAST_NO_TRANS  111 /* CLBlastTransposeNo */

/* CLBlastSgemm of CLBlast's C API (clblast_c.h, 1.x): enums are passed as int. */
typedef int (*clblast_sgemm_fn)(int layout, int trans_a, int trans_b, size_t m, size_t n, size_t k,
                                float alpha, cl_mem a, size_t a_offset, size_t a_ld, cl_mem b,
                                size_t b_offset, size_t b_ld, float beta, cl_mem c, size_t c_offset,
                                size_t c_ld, cl_command_queue *queue, cl_event *event);

static const char *const clblast_names[] = {"libclblast.so.1", "libclblast.so", NULL};
static struct vendor_lib clblast_lib = {clblast_names, NULL, NULL};

/* Name of a CLBlast status: codes above -64 are OpenCL's, the rest CLBlast's own. */
static const char *clblast_status_name(int status) {
    if (status > -64)
        return clu_error_name(status);
    switch (status) {
    case -1024:
        return "CLBlastNotImplemented";
    case -2046:
        return "CLBlastInvalidLocalMemUsage";
    case -2041:
        return "CLBlastDatabaseError";
    case -2040:
        return "CLBlastUnknownError";
    case -2039:
        return "CLBlastUnexpectedError";
    default:
        return "CLBlast error";
    }
}

struct clblast_run {
    clblast_sgemm_fn sgemm;  /* the library's CLBlastSgemm */
    cl_command_queue queue;  /* env's queue */
    size_t n;                /* matrix order */
    cl_mem a, b, c;          /* device buffers */
    int status;              /* first failure: CLBlast status, or OpenCL's from clFinish */
    const char *failed_call; /* which call failed */
};

/* One call, timed by wall clock up to the end of clFinish: CLBlast may enqueue several kernels
 * (padding, transposes, the GEMM) and its event covers only the last one. */
static int clblast_run(void *ctx, double *seconds) {
    struct clblast_run *r = ctx;
    cl_event event = NULL;
    double start = bench_now();
    int status =
        r->sgemm(CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANS, CLBLAST_NO_TRANS, r->n, r->n, r->n, 1.0f,
                 r->a, 0, r->n, r->b, 0, r->n, 0.0f, r->c, 0, r->n, &r->queue, &event);
    cl_int finished = clFinish(r->queue);
    *seconds = bench_now() - start;
    if (event)
        clReleaseEvent(event);
    if (status != 0 || finished != CL_SUCCESS) {
        r->status = status != 0 ? status : finished;
        r->failed_call = status != 0 ? "CLBlastSgemm" : "clFinish after CLBlastSgemm";
        return -1;
    }
    return 0;
}

int bench_clblast(const struct clu_env *env, int n, const float *a, const float *b,
                  struct clu_stats *stats, char *library, size_t library_size, char *why,
                  size_t why_size) {
    if (vendor_start(stats, library, library_size, "CLBlast", "clblast", why, why_size))
        return 1;
    if (!vendor_open(&clblast_lib)) {
        vendor_say(why, why_size, "libclblast.so.1 not found: apt-get install libclblast1");
        return 1;
    }
    struct clblast_run r = {NULL, env->queue, (size_t)n, NULL, NULL, NULL, 0, NULL};
    if (VENDOR_SYM(&clblast_lib, "CLBlastSgemm", r.sgemm, why, why_size) != 0)
        return 1;
    char version[32];
    vendor_file_version(dlsym(clblast_lib.handle, "CLBlastSgemm"), "libclblast.so.", version,
                        sizeof version);
    vendor_say(library, library_size, "CLBlast%s%s", *version ? " " : "", version);

    size_t bytes = r.n * r.n * sizeof(float);
    float *c = calloc(r.n * r.n, sizeof *c); /* zeros: C starts defined although beta = 0 */
    if (!c) {
        vendor_say(why, why_size, "out of memory for C (N = %d)", n);
        return 1;
    }
    int result = 1;
    cl_int err_a = CL_SUCCESS, err_b = CL_SUCCESS, err_c = CL_SUCCESS;
    /* COPY_HOST_PTR only reads the host arrays, so casting const away is safe */
    r.a = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)a,
                         &err_a);
    r.b = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)b,
                         &err_b);
    r.c = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, c, &err_c);
    cl_int err = err_a != CL_SUCCESS ? err_a : err_b != CL_SUCCESS ? err_b : err_c;
    if (err != CL_SUCCESS) {
        vendor_say(why, why_size, "clCreateBuffer of %zu bytes failed: %s (%d)", bytes,
                   clu_error_name(err), (int)err);
        goto done;
    }
    /* one warm-up call, where CLBlast compiles its kernels for this device (seconds on a CPU) */
    if (bench_repeat(clblast_run, &r, 1, stats) != 0) {
        vendor_say(why, why_size, "%s failed: %s (%d)", r.failed_call,
                   clblast_status_name(r.status), r.status);
        goto done;
    }
    err = clEnqueueReadBuffer(env->queue, r.c, CL_TRUE, 0, bytes, c, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        vendor_say(why, why_size, "clEnqueueReadBuffer of C failed: %s (%d)", clu_error_name(err),
                   (int)err);
        goto done;
    }
    if (bench_check_product(n, a, b, c, why, why_size) == 0)
        result = 0;
done:
    if (r.a)
        clReleaseMemObject(r.a);
    if (r.b)
        clReleaseMemObject(r.b);
    if (r.c)
        clReleaseMemObject(r.c);
    free(c);
    if (result != 0)
        memset(stats, 0, sizeof *stats);
    return result;
}
