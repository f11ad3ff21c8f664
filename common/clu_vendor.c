/* clu_vendor.c - the vendors' SGEMMs (clu_vendor.h): OpenBLAS on the host and CLBlast on an
 * OpenCL device (cuBLAS on a CUDA device is in clu_cublas.c), and the loading they share
 * (clu_vendor_lib.h).
 *
 * Every library is opened at run time with dlopen and its few functions are declared here, so the
 * workbook builds without any vendor header and runs where a library is missing: that vendor is
 * then skipped with a one-line reason naming the package to install.
 */
#define _GNU_SOURCE /* dladdr, strncasecmp */
#include "clu_vendor_lib.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---------------------------------------------------------------- reasons and names */

void vendor_say(char *buf, size_t size, const char *fmt, ...) {
    if (!buf || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static const char *const vendor_keys[CLU_VENDOR_COUNT] = {"openblas", "clblast", "cublas"};
static const char *const vendor_names[CLU_VENDOR_COUNT] = {"OpenBLAS", "CLBlast", "cuBLAS"};

const char *clu_vendor_key(enum clu_vendor_id id) {
    return id < CLU_VENDOR_COUNT ? vendor_keys[id] : "?";
}

const char *clu_vendor_name(enum clu_vendor_id id) {
    return id < CLU_VENDOR_COUNT ? vendor_names[id] : "?";
}

int vendor_disabled(enum clu_vendor_id id, char *why, size_t why_size) {
    vendor_say(why, why_size, "%s", "");
    const char *p = getenv("BENCH_NO_VENDOR");
    if (!p)
        return 0;
    const char *name = clu_vendor_key(id);
    size_t length = strlen(name);
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        const char *word = p;
        while (*p && *p != ',' && !isspace((unsigned char)*p))
            p++;
        size_t size = (size_t)(p - word);
        if ((size == length && strncasecmp(word, name, length) == 0) ||
            (size == 3 && strncasecmp(word, "all", 3) == 0)) {
            vendor_say(why, why_size, "%s disabled by BENCH_NO_VENDOR", clu_vendor_name(id));
            return 1;
        }
    }
    return 0;
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

/* ---------------------------------------------------------------- any vendor */

static double vendor_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int openblas_prepare(int m, int n, int k, const float *a, const float *b,
                            struct clu_vendor_gemm **out, char *library, size_t library_size,
                            char *why, size_t why_size);
static int clblast_prepare(const struct clu_env *env, int m, int n, int k, const float *a,
                           const float *b, struct clu_vendor_gemm **out, char *library,
                           size_t library_size, char *why, size_t why_size);

int clu_vendor_prepare(enum clu_vendor_id id, const struct clu_env *env, int m, int n, int k,
                       const float *a, const float *b, struct clu_vendor_gemm **out, char *library,
                       size_t library_size, char *why, size_t why_size) {
    *out = NULL;
    vendor_say(library, library_size, "%s", clu_vendor_name(id));
    if (vendor_disabled(id, why, why_size))
        return 1;
    if (m < 1 || n < 1 || k < 1) {
        vendor_say(why, why_size, "no product of %d x %d x %d", m, n, k);
        return 1;
    }
    switch (id) {
    case CLU_OPENBLAS:
        return openblas_prepare(m, n, k, a, b, out, library, library_size, why, why_size);
    case CLU_CLBLAST:
        return clblast_prepare(env, m, n, k, a, b, out, library, library_size, why, why_size);
    case CLU_CUBLAS:
        return vendor_cublas_prepare(m, n, k, a, b, out, library, library_size, why, why_size);
    default:
        vendor_say(why, why_size, "no such vendor");
        return 1;
    }
}

int clu_vendor_launch(struct clu_vendor_gemm *g, double *seconds, char *why, size_t why_size) {
    double start = vendor_now();
    int status = g->launch(g, why, why_size);
    *seconds = vendor_now() - start;
    return status;
}

int clu_vendor_read(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size) {
    return g->read(g, c, why, why_size);
}

void clu_vendor_release(struct clu_vendor_gemm *g) {
    if (g)
        g->release(g);
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

struct openblas_gemm {
    struct clu_vendor_gemm base;
    cblas_sgemm_fn sgemm; /* the library's cblas_sgemm */
    const float *a, *b;   /* inputs, the caller's */
    float *c;             /* output */
};

static int openblas_launch(struct clu_vendor_gemm *g, char *why, size_t why_size) {
    (void)why, (void)why_size;
    struct openblas_gemm *o = (struct openblas_gemm *)g;
    o->sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, g->m, g->n, g->k, 1.0f, o->a, g->k,
             o->b, g->n, 0.0f, o->c, g->n);
    return 0;
}

static int openblas_read(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size) {
    (void)why, (void)why_size;
    memcpy(c, ((struct openblas_gemm *)g)->c, (size_t)g->m * (size_t)g->n * sizeof *c);
    return 0;
}

static void openblas_release(struct clu_vendor_gemm *g) {
    free(((struct openblas_gemm *)g)->c);
    free(g);
}

/* "OpenBLAS 0.3.21 (Haswell kernels; 2 threads)" from whatever the library tells; "SkylakeX
 * kernels, from the CPU's flags" where the core it runs is the one chosen (clu_cpu_core.c). */
static void openblas_describe(const char *chosen, const char *was, char *library,
                              size_t library_size) {
    openblas_string_fn get_config, get_corename;
    openblas_int_fn get_threads;
    VENDOR_SYM(&openblas_lib, "openblas_get_config", get_config, NULL, 0);
    VENDOR_SYM(&openblas_lib, "openblas_get_corename", get_corename, NULL, 0);
    VENDOR_SYM(&openblas_lib, "openblas_get_num_threads", get_threads, NULL, 0);

    char name[64] = "OpenBLAS", kernels[160] = "", threads[32] = "";
    const char *config = get_config ? get_config() : NULL;
    if (config && strncmp(config, "OpenBLAS ", 9) == 0)
        vendor_words(config, 2, name, sizeof name);
    const char *core = get_corename ? get_corename() : NULL;
    if (core && *core)
        snprintf(kernels, sizeof kernels, "%s kernels%s%s%s; ", core,
                 chosen && strcasecmp(core, chosen) == 0 ? ", from the CPU's flags" : "",
                 chosen && *was ? ", not OPENBLAS_CORETYPE's " : "", chosen && *was ? was : "");
    /* the thread count is left at the library's default (all cores, or OPENBLAS_NUM_THREADS) */
    int count = get_threads ? get_threads() : 0;
    if (count > 0)
        snprintf(threads, sizeof threads, "%d thread%s", count, count == 1 ? "" : "s");
    else
        snprintf(threads, sizeof threads, "default threads");
    vendor_say(library, library_size, "%s (%s%s)", name, kernels, threads);
}

static int openblas_prepare(int m, int n, int k, const float *a, const float *b,
                            struct clu_vendor_gemm **out, char *library, size_t library_size,
                            char *why, size_t why_size) {
    /* OpenBLAS's idle threads spin for 2^28 cycles (about 0.1 s) before they sleep, and took a
     * core from whatever the program timed next (CLBlast on POCL here: its threads waited for a
     * CPU half the time). 2^20 cycles (under a millisecond; read when the library loads) still
     * spans the gap between calls made back to back. A value the user set is kept. */
    setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0);
    /* the kernels the CPU runs, not the older ones OpenBLAS falls back to (clu_cpu_core.c) */
    static const char *chosen;
    static char was[64];
    if (!openblas_lib.handle)
        chosen = clu_openblas_choose_core(was, sizeof was);
    if (!vendor_open(&openblas_lib)) {
        vendor_say(why, why_size, "libopenblas.so.0 not found: apt-get install libopenblas0");
        return 1;
    }
    cblas_sgemm_fn sgemm;
    if (VENDOR_SYM(&openblas_lib, "cblas_sgemm", sgemm, why, why_size) != 0)
        return 1;
    openblas_describe(chosen, was, library, library_size);
    struct openblas_gemm *o = calloc(1, sizeof *o);
    float *c = calloc((size_t)m * (size_t)n, sizeof *c);
    if (!o || !c) {
        free(o);
        free(c);
        vendor_say(why, why_size, "out of memory for C (%d x %d)", m, n);
        return 1;
    }
    *o = (struct openblas_gemm){
        {m, n, k, openblas_launch, openblas_read, openblas_release}, sgemm, a, b, c};
    *out = &o->base;
    return 0;
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

struct clblast_gemm {
    struct clu_vendor_gemm base;
    clblast_sgemm_fn sgemm; /* the library's CLBlastSgemm */
    cl_command_queue queue; /* env's queue */
    cl_mem a, b, c;         /* device buffers */
};

static int clblast_launch(struct clu_vendor_gemm *g, char *why, size_t why_size) {
    struct clblast_gemm *r = (struct clblast_gemm *)g;
    size_t m = (size_t)g->m, n = (size_t)g->n, k = (size_t)g->k;
    cl_event event = NULL;
    int status = r->sgemm(CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANS, CLBLAST_NO_TRANS, m, n, k, 1.0f,
                          r->a, 0, k, r->b, 0, n, 0.0f, r->c, 0, n, &r->queue, &event);
    cl_int finished = clFinish(r->queue);
    if (event)
        clReleaseEvent(event);
    if (status != 0) {
        vendor_say(why, why_size, "CLBlastSgemm failed: %s (%d)", clblast_status_name(status),
                   status);
        return -1;
    }
    if (finished != CL_SUCCESS) {
        vendor_say(why, why_size, "clFinish after CLBlastSgemm failed: %s (%d)",
                   clu_error_name(finished), (int)finished);
        return -1;
    }
    return 0;
}

static int clblast_read(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size) {
    struct clblast_gemm *r = (struct clblast_gemm *)g;
    cl_int err = clEnqueueReadBuffer(r->queue, r->c, CL_TRUE, 0,
                                     (size_t)g->m * (size_t)g->n * sizeof *c, c, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        vendor_say(why, why_size, "clEnqueueReadBuffer of C failed: %s (%d)", clu_error_name(err),
                   (int)err);
        return -1;
    }
    return 0;
}

static void clblast_release(struct clu_vendor_gemm *g) {
    struct clblast_gemm *r = (struct clblast_gemm *)g;
    if (r->a)
        clReleaseMemObject(r->a);
    if (r->b)
        clReleaseMemObject(r->b);
    if (r->c)
        clReleaseMemObject(r->c);
    free(r);
}

static int clblast_prepare(const struct clu_env *env, int m, int n, int k, const float *a,
                           const float *b, struct clu_vendor_gemm **out, char *library,
                           size_t library_size, char *why, size_t why_size) {
    if (!env) {
        vendor_say(why, why_size, "no OpenCL device to run CLBlast on");
        return 1;
    }
    if (!vendor_open(&clblast_lib)) {
        vendor_say(why, why_size, "libclblast.so.1 not found: apt-get install libclblast1");
        return 1;
    }
    clblast_sgemm_fn sgemm;
    if (VENDOR_SYM(&clblast_lib, "CLBlastSgemm", sgemm, why, why_size) != 0)
        return 1;
    char version[32];
    vendor_file_version(dlsym(clblast_lib.handle, "CLBlastSgemm"), "libclblast.so.", version,
                        sizeof version);
    vendor_say(library, library_size, "CLBlast%s%s", *version ? " " : "", version);

    struct clblast_gemm *r = calloc(1, sizeof *r);
    float *zeros = calloc((size_t)m * (size_t)n, sizeof *zeros); /* C starts defined */
    if (!r || !zeros) {
        free(r);
        free(zeros);
        vendor_say(why, why_size, "out of memory for C (%d x %d)", m, n);
        return 1;
    }
    r->base = (struct clu_vendor_gemm){m, n, k, clblast_launch, clblast_read, clblast_release};
    r->sgemm = sgemm;
    r->queue = env->queue;
    size_t a_bytes = (size_t)m * (size_t)k * sizeof(float);
    size_t b_bytes = (size_t)k * (size_t)n * sizeof(float);
    size_t c_bytes = (size_t)m * (size_t)n * sizeof(float);
    cl_int err_a = CL_SUCCESS, err_b = CL_SUCCESS, err_c = CL_SUCCESS;
    /* COPY_HOST_PTR only reads the host arrays, so casting const away is safe */
    r->a = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a_bytes, (void *)a,
                          &err_a);
    r->b = clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b_bytes, (void *)b,
                          &err_b);
    r->c = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c_bytes, zeros,
                          &err_c);
    free(zeros);
    cl_int err = err_a != CL_SUCCESS ? err_a : err_b != CL_SUCCESS ? err_b : err_c;
    if (err != CL_SUCCESS) {
        vendor_say(why, why_size, "clCreateBuffer of %zu bytes failed: %s (%d)",
                   a_bytes + b_bytes + c_bytes, clu_error_name(err), (int)err);
        clblast_release(&r->base);
        return 1;
    }
    *out = &r->base;
    return 0;
}
