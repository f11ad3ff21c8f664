/* kernel.cu - 06_cuda_memory_model: the CUDA twin of 05_blocked_16x16's kernel. C = A * B by
 * BLOCK x BLOCK tiles held in shared memory (CUDA's name for OpenCL's local memory).
 *
 * Index convention: row-major N x N matrices, C(i,j) = C[i*N + j]; N is a multiple of BLOCK.
 * Work sizes: a grid of {N/BLOCK, N/BLOCK} blocks of {BLOCK, BLOCK} threads; one element of C
 *             per thread. x is the row, as dimension 0 is in 05 (the same kernel, word for word):
 *               i  = blockIdx.x * BLOCK + threadIdx.x   row of C       (get_global_id(0))
 *               j  = blockIdx.y * BLOCK + threadIdx.y   column of C    (get_global_id(1))
 *               li = threadIdx.x, lj = threadIdx.y       place in the tile (get_local_id)
 *             CUDA counts blocks, OpenCL counts work-items: OpenCL's NDRange {N, N} in groups
 *             of {BLOCK, BLOCK} is CUDA's grid {N/BLOCK, N/BLOCK} of blocks {BLOCK, BLOCK}.
 *             threadIdx.x moves fastest within a warp, so neighbouring threads here touch A, B
 *             and C a row apart: 05's layout, kept so that the two APIs run the same kernel.
 * Reference loop this replaces (C's block (ib, jb) is the sum over kb of A's block (ib, kb)
 * times B's block (kb, jb); each tile read from global memory is used BLOCK times):
 *     for (i = 0; i < N; i++)
 *         for (j = 0; j < N; j++) {
 *             float tmp = 0.0f;
 *             for (kb = 0; kb < N / BLOCK; kb++)
 *                 for (k = kb*BLOCK; k < (kb+1)*BLOCK; k++)
 *                     tmp += A[i*N + k] * B[k*N + j];
 *             C[i*N + j] = tmp;
 *         }
 * OpenCL names and their CUDA twins:
 *     __kernel                 ->  extern "C" __global__ (extern "C": the name stays mmul_blocked)
 *     __global float *         ->  float * (device memory from cudaMalloc)
 *     __local (a kernel arg)   ->  __shared__ (an array declared in the kernel, sized at compile
 *                                  time: the host allocates nothing)
 *     get_local_id(d)          ->  threadIdx.x / .y
 *     get_group_id(d)          ->  blockIdx.x / .y
 *     get_local_size(d)        ->  blockDim.x / .y
 *     get_global_id(d)         ->  blockIdx.x * blockDim.x + threadIdx.x (and .y)
 *     barrier(CLK_LOCAL_MEM_FENCE)  ->  __syncthreads()
 */
#ifndef BLOCK
#define BLOCK 16 /* tile edge: blocks of BLOCK x BLOCK threads; `make BLOCK=8` builds another */
#endif

extern "C" __global__ void mmul_blocked(const int N, const float *A, const float *B, float *C) {
    /* Contract: C(i,j) = sum over k of A(i,k) * B(k,j), accumulated in a float, tile by tile,
     * exactly as 05's kernel does, with i, j, li, lj as the header above defines them.
     * Declare two tiles in shared memory, __shared__ float Awrk[BLOCK * BLOCK], Bwrk[...];
     * for kb = 0 .. N/BLOCK - 1, each thread loads one element of each tile,
     *     Awrk[li*BLOCK + lj] = A[i*N + (kb*BLOCK + lj)]     (tile (block row of i, kb) of A)
     *     Bwrk[li*BLOCK + lj] = B[(kb*BLOCK + li)*N + j]     (tile (kb, block column of j) of B)
     * then __syncthreads(), adds Awrk[li*BLOCK + k] * Bwrk[k*BLOCK + lj] for k = 0 .. BLOCK-1,
     * and reaches a second __syncthreads() before the next tiles overwrite Awrk and Bwrk.
     * Finally write C[i*N + j].
     * Memory: read A and B (device memory, read only), the tiles in __shared__ memory (2 *
     * BLOCK * BLOCK floats), write exactly one element of C and nothing else. Launched with a
     * grid of {N/BLOCK, N/BLOCK} blocks of {BLOCK, BLOCK} threads; every thread of a block must
     * reach every __syncthreads(). */
    /* TODO(student) begin */
    /* TODO(student) end */
}
