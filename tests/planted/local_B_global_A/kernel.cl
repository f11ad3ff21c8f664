/* Planted shortcut: right results and the column of B goes through local memory as the step
 * asks, but the row of A is read from global memory in the inner loop instead of once into a
 * private array. The local loads are there, the global ones are one per multiply-add too many:
 * the report must name A, not B. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Bwrk)
{
    int i = get_global_id(0);
    int iloc = get_local_id(0);
    int nloc = get_local_size(0);
    for (int j = 0; j < N; j++) {
        for (int k = iloc; k < N; k += nloc)
            Bwrk[k] = B[k * N + j];
        barrier(CLK_LOCAL_MEM_FENCE);
        float tmp = 0.0f;
        for (int k = 0; k < N; k++)
            tmp += A[i * N + k] * Bwrk[k];
        C[i * N + j] = tmp;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
