/* Planted bug: the lecture's kernel 04 without its barriers. Work-items read the column of B
 * from local memory before the rest of the group has written it, and overwrite it while others
 * still read it. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Bwrk)
{
    int i = get_global_id(0);
    int iloc = get_local_id(0);
    int nloc = get_local_size(0);
    float Awrk[1024];
    for (int k = 0; k < N; k++)
        Awrk[k] = A[i * N + k];
    for (int j = 0; j < N; j++) {
        for (int k = iloc; k < N; k += nloc)
            Bwrk[k] = B[k * N + j];
        float tmp = 0.0f;
        for (int k = 0; k < N; k++)
            tmp += Awrk[k] * Bwrk[k];
        C[i * N + j] = tmp;
    }
}
