/* Planted bug: the column loop runs to j <= N, one past the end of the row; the last row writes
 * C[N*N], one past the end of C, and reads B past its end. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    int i = get_global_id(0);
    for (int j = 0; j <= N; j++) {
        float tmp = 0.0f;
        for (int k = 0; k < N; k++)
            tmp += A[i * N + k] * B[k * N + j];
        C[i * N + j] = tmp;
    }
}
