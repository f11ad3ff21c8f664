/* clu_vendor.h - the vendors' SGEMMs (OpenBLAS on the host, CLBlast on an OpenCL device, cuBLAS
 * in FP32 on the first CUDA device), opened at run time with dlopen, so that everything builds
 * and runs without them: a vendor missing is skipped with a one-line reason naming the package.
 * `make bench` times them beside the exercises; the grader times them beside the capstone.
 *
 * One product at a time: prepare (A and B copied where the library reads them), launch as often
 * as wanted (each launch ends when the product is done: clFinish, cudaDeviceSynchronize), read C
 * back, release. Sizes are any M x N x K, row-major like every exercise.
 *
 * BENCH_NO_VENDOR=openblas,clblast,cublas (any of them, or "all") skips the named vendors, as if
 * the library were absent; the tests use it.
 */
#ifndef CLU_VENDOR_H
#define CLU_VENDOR_H

#include "clu.h"

enum clu_vendor_id { CLU_OPENBLAS, CLU_CLBLAST, CLU_CUBLAS, CLU_VENDOR_COUNT };

/* "openblas", "clblast", "cublas": the key of BENCH_NO_VENDOR, bench.csv and the grader's report */
const char *clu_vendor_key(enum clu_vendor_id id);

/* "OpenBLAS", "CLBlast", "cuBLAS" */
const char *clu_vendor_name(enum clu_vendor_id id);

struct clu_vendor_gemm; /* a prepared product, opaque */

/* Prepare C = A*B, A M x K and B K x N: CLBlast on env's device (env is not used by the others).
 * Returns 0 with *out set and `library` describing what ran (e.g. "OpenBLAS 0.3.21 (Haswell
 * kernels; 2 threads)", "NVIDIA H100 80GB HBM3 (sm_90): cuBLAS 12.8.4 in FP32 (pedantic math; no
 * TF32)"), or 1 with why set (not installed, disabled by BENCH_NO_VENDOR, no CUDA device, out of
 * memory). A and B must stay valid until the release for OpenBLAS, which reads them in place. */
int clu_vendor_prepare(enum clu_vendor_id id, const struct clu_env *env, int m, int n, int k,
                       const float *a, const float *b, struct clu_vendor_gemm **out, char *library,
                       size_t library_size, char *why, size_t why_size);

/* One product, timed on the wall clock up to its end (the libraries may launch several kernels:
 * padding, transposes, the GEMM, and their events cover only some of them). 0 with *seconds, or
 * -1 with why. */
int clu_vendor_launch(struct clu_vendor_gemm *g, double *seconds, char *why, size_t why_size);

/* C of the last launch into c (M x N floats). 0, or -1 with why. */
int clu_vendor_read(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size);

/* Free what prepare took (the library itself stays loaded: unloading a threaded BLAS or the CUDA
 * runtime mid-process is not safe, and CLBlast caches its compiled kernels). NULL is fine. */
void clu_vendor_release(struct clu_vendor_gemm *g);

/* The newest OpenBLAS core (OPENBLAS_CORETYPE's name: "SkylakeX", "Haswell", "SandyBridge",
 * "Nehalem", "Core2") whose instruction sets all appear in flags, /proc/cpuinfo's space-separated
 * flags of an x86-64 CPU; NULL where none does (another architecture). clu_cpu_core.c. */
const char *clu_openblas_core_of_flags(const char *flags);

/* OPENBLAS_CORETYPE's name's rank: higher runs newer SGEMM kernels (SkylakeX 6, Haswell and Zen 5,
 * Prescott 1); -1 for a name it does not know. */
int clu_openblas_core_rank(const char *core);

/* The core to set for a CPU with these flags where the environment's OPENBLAS_CORETYPE is set
 * (NULL or "": none): the flags' core, unless set names one as new or one it does not know; NULL
 * to leave things as they are. */
const char *clu_openblas_core_decide(const char *flags, const char *set);

/* Before OpenBLAS loads: OPENBLAS_CORETYPE set as clu_openblas_core_decide says for this CPU's
 * flags (/proc/cpuinfo). The core set, or NULL (OpenBLAS's or the environment's choice stands);
 * the environment's value before into was ("" where unset). */
const char *clu_openblas_choose_core(char *was, size_t was_size);

#endif
