/* Planted bug: A's block row taken from the group id of dimension 1 (C's column) while C's row
 * comes from dimension 0, and B's block column from dimension 1 as it should be. Only the
 * diagonal blocks come out right; with constant input matrices every block looks right. (The
 * lecture's printed kernel mixes up both operands' blocks: lecture_blocked_kernel.) */
#ifndef BLOCK
#define BLOCK 16
#endif
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Awrk, __local float *Bwrk)
{
    int i = get_global_id(0), j = get_global_id(1);
    int li = get_local_id(0), lj = get_local_id(1);
    int wrong_block_row = get_group_id(1) * BLOCK;
    float tmp = 0.0f;
    for (int kb = 0; kb < N / BLOCK; kb++) {
        Awrk[li * BLOCK + lj] = A[(wrong_block_row + li) * N + kb * BLOCK + lj];
        Bwrk[li * BLOCK + lj] = B[(kb * BLOCK + li) * N + j];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BLOCK; k++)
            tmp += Awrk[li * BLOCK + k] * Bwrk[k * BLOCK + lj];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[i * N + j] = tmp;
}
