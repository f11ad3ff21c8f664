/* clu_cublas.c - cuBLAS SGEMM in FP32 on the first CUDA device (clu_vendor.h): the CUDA runtime
 * and cuBLAS opened at run time with dlopen (clu_vendor_lib.h), so the workbook builds and runs
 * without CUDA.
 */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "clu_vendor_lib.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA runtime and cuBLAS calls used, with their enums as int and handles as void *. */
typedef int (*cuda_count_fn)(int *count);
typedef int (*cuda_attribute_fn)(int *value, int attribute, int device);
typedef int (*cuda_properties_fn)(void *properties, int device);
typedef int (*cuda_malloc_fn)(void **pointer, size_t bytes);
typedef int (*cuda_free_fn)(void *pointer);
typedef int (*cuda_memcpy_fn)(void *to, const void *from, size_t bytes, int kind);
typedef int (*cuda_sync_fn)(void);
typedef const char *(*cuda_error_string_fn)(int error);
typedef int (*cublas_create_fn)(void **handle);
typedef int (*cublas_destroy_fn)(void *handle);
typedef int (*cublas_math_fn)(void *handle, int mode);
typedef int (*cublas_version_fn)(void *handle, int *version);
typedef int (*cublas_sgemm_fn)(void *handle, int trans_a, int trans_b, int m, int n, int k,
                               const float *alpha, const float *a, int lda, const float *b, int ldb,
                               const float *beta, float *c, int ldc);

#define CUDA_MEMCPY_HOST_TO_DEVICE 1  /* cudaMemcpyHostToDevice */
#define CUDA_MEMCPY_DEVICE_TO_HOST 2  /* cudaMemcpyDeviceToHost */
#define CUDA_ATTR_CC_MAJOR         75 /* cudaDevAttrComputeCapabilityMajor */
#define CUDA_ATTR_CC_MINOR         76 /* cudaDevAttrComputeCapabilityMinor */
#define CUBLAS_OP_N                0  /* no transpose */
#define CUBLAS_DEFAULT_MATH        0  /* CUDA 11+: FP32 in FP32, TF32 only if asked for */
#define CUBLAS_PEDANTIC_MATH       2  /* CUDA 11+: the prescribed compute type, nothing faster */
/* cudaDeviceProp is large and changes between CUDA versions, but its first member has always been
 * char name[256]: the properties are read into a buffer far larger than any version's struct and
 * only the name is taken. */
#define CUDA_PROPERTIES_BYTES 65536

static const char *const cublas_names[] = {"libcublas.so", "libcublas.so.13", "libcublas.so.12",
                                           "libcublas.so.11", NULL};
static const char *const cudart_names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                           "libcudart.so.11", NULL};
static struct vendor_lib cublas_lib = {cublas_names, NULL, NULL};
static struct vendor_lib cudart_lib = {cudart_names, NULL, NULL};

struct cuda_api {
    cuda_count_fn get_device_count;
    cuda_attribute_fn device_get_attribute;
    cuda_properties_fn get_device_properties; /* _v2 (CUDA 12+) or the original; may be NULL */
    cuda_malloc_fn malloc;
    cuda_free_fn free;
    cuda_memcpy_fn memcpy;
    cuda_sync_fn synchronize;
    cuda_error_string_fn error_string;
    cublas_create_fn create;
    cublas_destroy_fn destroy;
    cublas_math_fn set_math_mode;
    cublas_version_fn get_version;
    cublas_sgemm_fn sgemm;
};

static const char *cublas_status_name(int status) {
    switch (status) {
    case 1:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
        return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
        return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
        return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
        return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
        return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
        return "cuBLAS error";
    }
}

/* Resolve the runtime's symbols, then cuBLAS's; -1 with the first missing one in why. */
static int cuda_resolve_runtime(struct cuda_api *api, char *why, size_t why_size) {
    memset(api, 0, sizeof *api);
    if (VENDOR_SYM(&cudart_lib, "cudaGetDeviceProperties_v2", api->get_device_properties, NULL,
                   0) != 0)
        VENDOR_SYM(&cudart_lib, "cudaGetDeviceProperties", api->get_device_properties, NULL, 0);
    if (VENDOR_SYM(&cudart_lib, "cudaGetDeviceCount", api->get_device_count, why, why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaDeviceGetAttribute", api->device_get_attribute, why,
                   why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaMalloc", api->malloc, why, why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaFree", api->free, why, why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaMemcpy", api->memcpy, why, why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaDeviceSynchronize", api->synchronize, why, why_size) ||
        VENDOR_SYM(&cudart_lib, "cudaGetErrorString", api->error_string, why, why_size))
        return -1;
    return 0;
}

static int cuda_resolve_cublas(struct cuda_api *api, char *why, size_t why_size) {
    if (VENDOR_SYM(&cublas_lib, "cublasCreate_v2", api->create, why, why_size) ||
        VENDOR_SYM(&cublas_lib, "cublasDestroy_v2", api->destroy, why, why_size) ||
        VENDOR_SYM(&cublas_lib, "cublasSetMathMode", api->set_math_mode, why, why_size) ||
        VENDOR_SYM(&cublas_lib, "cublasGetVersion_v2", api->get_version, why, why_size) ||
        VENDOR_SYM(&cublas_lib, "cublasSgemm_v2", api->sgemm, why, why_size))
        return -1;
    return 0;
}

/* "NVIDIA H100 80GB HBM3 (sm_90)": the name through cudaGetDeviceProperties (see
 * CUDA_PROPERTIES_BYTES), the compute capability through cudaDeviceGetAttribute. */
static void cuda_device_name(const struct cuda_api *api, char *name, size_t size) {
    char *properties = api->get_device_properties ? calloc(1, CUDA_PROPERTIES_BYTES) : NULL;
    const char *device = "CUDA device 0";
    if (properties && api->get_device_properties(properties, 0) == 0 && properties[0]) {
        properties[255] = '\0';
        device = properties;
    }
    int major = 0, minor = 0;
    if (api->device_get_attribute(&major, CUDA_ATTR_CC_MAJOR, 0) == 0 &&
        api->device_get_attribute(&minor, CUDA_ATTR_CC_MINOR, 0) == 0)
        vendor_say(name, size, "%s (sm_%d%d)", device, major, minor);
    else
        vendor_say(name, size, "%s", device);
    free(properties);
}

struct cublas_gemm {
    struct clu_vendor_gemm base;
    struct cuda_api api; /* resolved calls */
    void *handle;        /* cuBLAS handle */
    void *a, *b, *c;     /* device buffers */
};

/* cuBLAS is column-major and a row-major matrix read as column-major is its transpose, so
 * C^T = B^T A^T is computed with the operands swapped: the column-major result is row-major C. */
static int cublas_launch(struct clu_vendor_gemm *g, char *why, size_t why_size) {
    struct cublas_gemm *r = (struct cublas_gemm *)g;
    const float one = 1.0f, zero = 0.0f;
    int status = r->api.sgemm(r->handle, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->m, g->k, &one, r->b,
                              g->n, r->a, g->k, &zero, r->c, g->n);
    int synced = r->api.synchronize();
    if (status != 0) {
        vendor_say(why, why_size, "cublasSgemm failed: %s (%d)", cublas_status_name(status),
                   status);
        return -1;
    }
    if (synced != 0) {
        vendor_say(why, why_size, "cudaDeviceSynchronize after cublasSgemm failed: %s",
                   r->api.error_string(synced));
        return -1;
    }
    return 0;
}

static int cublas_read(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size) {
    struct cublas_gemm *r = (struct cublas_gemm *)g;
    int err =
        r->api.memcpy(c, r->c, (size_t)g->m * (size_t)g->n * sizeof *c, CUDA_MEMCPY_DEVICE_TO_HOST);
    if (err != 0) {
        vendor_say(why, why_size, "cudaMemcpy of C failed: %s", r->api.error_string(err));
        return -1;
    }
    return 0;
}

static void cublas_release(struct clu_vendor_gemm *g) {
    struct cublas_gemm *r = (struct cublas_gemm *)g;
    if (r->handle)
        r->api.destroy(r->handle);
    if (r->a)
        r->api.free(r->a);
    if (r->b)
        r->api.free(r->b);
    if (r->c)
        r->api.free(r->c);
    free(r);
}

int vendor_cublas_prepare(int m, int n, int k, const float *a, const float *b,
                          struct clu_vendor_gemm **out, char *library, size_t library_size,
                          char *why, size_t why_size) {
    /* the small runtime first: without a driver or a device this returns in milliseconds, before
     * the hundreds of megabytes of cuBLAS are mapped */
    if (!vendor_open(&cudart_lib)) {
        vendor_say(why, why_size, "%s",
                   vendor_open(&cublas_lib) ? "libcublas found but no CUDA runtime (libcudart)"
                                            : "no CUDA toolkit (libcublas) found");
        return 1;
    }
    struct cublas_gemm *r = calloc(1, sizeof *r);
    if (!r) {
        vendor_say(why, why_size, "out of memory");
        return 1;
    }
    r->base = (struct clu_vendor_gemm){m, n, k, cublas_launch, cublas_read, cublas_release};
    struct cuda_api *api = &r->api;
    if (cuda_resolve_runtime(api, why, why_size) != 0) {
        free(r);
        return 1;
    }
    int count = 0;
    int err = api->get_device_count(&count);
    if (err != 0 || count < 1) {
        /* the runtime opens the driver itself: if it is not loaded now, there is none */
        void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!driver)
            vendor_say(why, why_size, "no CUDA device: no NVIDIA driver (libcuda.so.1) found");
        else
            vendor_say(why, why_size, "no CUDA device: %s",
                       err != 0 ? api->error_string(err) : "the driver reports none");
        if (driver)
            dlclose(driver); /* NOLOAD took a reference */
        free(r);
        return 1;
    }
    if (!vendor_open(&cublas_lib)) {
        vendor_say(why, why_size, "no CUDA toolkit (libcublas) found");
        free(r);
        return 1;
    }
    if (cuda_resolve_cublas(api, why, why_size) != 0) {
        free(r);
        return 1;
    }
    char name[300];
    cuda_device_name(api, name, sizeof name);

    size_t a_bytes = (size_t)m * (size_t)k * sizeof(float);
    size_t b_bytes = (size_t)k * (size_t)n * sizeof(float);
    size_t c_bytes = (size_t)m * (size_t)n * sizeof(float);
    if ((err = api->malloc(&r->a, a_bytes)) != 0 || (err = api->malloc(&r->b, b_bytes)) != 0 ||
        (err = api->malloc(&r->c, c_bytes)) != 0) {
        vendor_say(why, why_size, "cudaMalloc of %zu bytes failed: %s", a_bytes + b_bytes + c_bytes,
                   api->error_string(err));
        cublas_release(&r->base);
        return 1;
    }
    if ((err = api->memcpy(r->a, a, a_bytes, CUDA_MEMCPY_HOST_TO_DEVICE)) != 0 ||
        (err = api->memcpy(r->b, b, b_bytes, CUDA_MEMCPY_HOST_TO_DEVICE)) != 0) {
        vendor_say(why, why_size, "cudaMemcpy of A and B failed: %s", api->error_string(err));
        cublas_release(&r->base);
        return 1;
    }
    int status = api->create(&r->handle);
    if (status != 0) {
        r->handle = NULL;
        vendor_say(why, why_size, "cublasCreate failed: %s (%d)", cublas_status_name(status),
                   status);
        cublas_release(&r->base);
        return 1;
    }
    /* FP32 throughout, no TF32 tensor cores: PEDANTIC (CUDA 11+), else DEFAULT, which before
     * CUDA 11 had no TF32 and since CUDA 11 uses it only when TF32_TENSOR_OP_MATH is set */
    const char *math = "pedantic";
    if (api->set_math_mode(r->handle, CUBLAS_PEDANTIC_MATH) != 0) {
        math = "default";
        if ((status = api->set_math_mode(r->handle, CUBLAS_DEFAULT_MATH)) != 0) {
            vendor_say(why, why_size, "cublasSetMathMode failed: %s (%d)",
                       cublas_status_name(status), status);
            cublas_release(&r->base);
            return 1;
        }
    }
    int version = 0;
    if (api->get_version(r->handle, &version) == 0 && version > 0)
        vendor_say(library, library_size, "%s: cuBLAS %d.%d.%d in FP32 (%s math; no TF32)", name,
                   version / 10000, version / 100 % 100, version % 100, math);
    else
        vendor_say(library, library_size, "%s: cuBLAS in FP32 (%s math; no TF32)", name, math);
    *out = &r->base;
    return 0;
}
