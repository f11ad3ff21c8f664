/* Planted bug: the k loop is unrolled by 16 and drops the remainder, so C is right only when N
 * is a multiple of 16 - the only sizes a lecture that uses N = 1024 ever tries. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    float tmp = 0.0f;
    for (int k = 0; k + 16 <= N; k += 16)
        for (int kk = 0; kk < 16; kk++)
            tmp += A[i * N + k + kk] * B[(k + kk) * N + j];
    C[i * N + j] = tmp;
}
