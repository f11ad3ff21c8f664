/* Planted bug (06's CUDA twin): the solution's blocked kernel, but it computes C only on a few
 * launches of its process and returns at once on every other one, so that most timed launches
 * cost an empty launch. It computes on the first launch (every correctness run is one launch
 * in a fresh process, so the hidden sizes pass) and on every 2000th: the old timing harness
 * launched until 50 ms of kernel time or 2000 launches and checked only the C of the last,
 * launch 2000 after the warm-up. Checking the C of every timed launch catches it.
 * Launches on one stream run in order, so each block takes a ticket and block-count tickets
 * make one launch: every block of a launch agrees on the launch's number. */
#ifndef BLOCK
#define BLOCK 16
#endif
#define COMPUTE_EVERY 2000 /* launches 0, 2000, 4000, ... compute C */

__device__ unsigned int tickets; /* one per block of every launch so far */

extern "C" __global__ void mmul_blocked(const int N, const float *A, const float *B, float *C) {
    __shared__ unsigned int launch;
    if (threadIdx.x == 0 && threadIdx.y == 0)
        launch = atomicAdd(&tickets, 1u) / (gridDim.x * gridDim.y);
    __syncthreads();
    if (launch % COMPUTE_EVERY != 0)
        return; /* the cheat: this launch skips its work */

    __shared__ float Awrk[BLOCK * BLOCK];
    __shared__ float Bwrk[BLOCK * BLOCK];
    int li = threadIdx.x;
    int lj = threadIdx.y;
    int i = blockIdx.x * BLOCK + li;
    int j = blockIdx.y * BLOCK + lj;
    int nblocks = N / BLOCK;
    float tmp = 0.0f;
    for (int kb = 0; kb < nblocks; kb++) {
        Awrk[li * BLOCK + lj] = A[i * N + (kb * BLOCK + lj)];
        Bwrk[li * BLOCK + lj] = B[(kb * BLOCK + li) * N + j];
        __syncthreads();
        for (int k = 0; k < BLOCK; k++)
            tmp += Awrk[li * BLOCK + k] * Bwrk[k * BLOCK + lj];
        __syncthreads();
    }
    C[i * N + j] = tmp;
}
