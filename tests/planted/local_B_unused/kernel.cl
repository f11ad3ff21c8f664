/* Planted shortcut: right results, but the column of B is read straight from global memory and
 * the local buffer Bwrk is never used - the step's technique is missing. Correctness tests cannot
 * see it; the memory traffic oclgrind counts can. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Bwrk)
{
    int i = get_global_id(0);
    float Awrk[1024];
    for (int k = 0; k < N; k++)
        Awrk[k] = A[i * N + k];
    for (int j = 0; j < N; j++) {
        float tmp = 0.0f;
        for (int k = 0; k < N; k++)
            tmp += Awrk[k] * B[k * N + j];
        C[i * N + j] = tmp;
    }
}
