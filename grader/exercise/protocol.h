/* protocol.h - what the grader and the children it runs jailed agree on: the exit statuses of
 * `grader --harness` (the OpenCL kernel harness, harness.c) and `grader --cuda-harness` (the CUDA
 * twin's, cuda_harness.c), the guard zone after C, and the CUDA kernel's launch. The children
 * decide nothing; the grader reads their statuses and files with these names.
 */
#ifndef GRADER_EXERCISE_PROTOCOL_H
#define GRADER_EXERCISE_PROTOCOL_H

#include <stdint.h>

/* Exit statuses of `grader --harness`, the child that runs a kernel for the grader. */
#define HARNESS_OK          0
#define HARNESS_USAGE       2
#define HARNESS_OPENCL      3    /* an OpenCL call failed (message on stderr) */
#define HARNESS_BUILD       4    /* the kernel source did not build (build log on stderr) */
#define HARNESS_NO_KERNEL   5    /* no __kernel of the expected name */
#define HARNESS_BAD_DEVICE  6    /* no device, or the work-group does not fit it */
#define HARNESS_GUARD       1024 /* floats of guard zone after C, filled with GUARD_VALUE */
#define HARNESS_GUARD_VALUE 1234567.0f

/* Exit statuses of `grader --cuda-harness` */
#define CUDA_HARNESS_OK        0
#define CUDA_HARNESS_USAGE     2  /* bad flags, or files that could not be written */
#define CUDA_HARNESS_NO_DEVICE 10 /* no driver or GPU, or one that cannot load nvcc's code */
#define CUDA_HARNESS_MODULE    11 /* the module has no mmul_blocked or does not load */
#define CUDA_HARNESS_FAILED    12 /* a CUDA call failed running the kernel (message on stderr) */

#define CUDA_KERNEL      "mmul_blocked" /* the extern "C" __global__ function of kernel.cu */
#define CUDA_BLOCK       16             /* BLOCK when the table row gives none */
#define CUDA_TIME_ROUNDS 8              /* --time: timed launches, each one's C saved and checked */

/* The inputs of the CUDA harness's timed launch r: both sides compute them from the run's seed
 * (the child never writes a seed back for the grader to believe). */
static inline uint64_t cuda_round_seed(uint64_t seed, int r) {
    return (seed ^ (0xc2b2ae3d27d4eb4full * (uint64_t)(r + 1))) & 0x7fffffffffffffffull;
}

#endif
