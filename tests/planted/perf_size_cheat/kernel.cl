/* Planted cheat: does nothing at the size the grader times (512), so the timing looks enormous;
 * right at every correctness size. The grader checks the C of the timed runs. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    if (N == 512)
        return;
    int i = get_global_id(0);
    int j = get_global_id(1);
    float tmp = 0.0f;
    for (int k = 0; k < N; k++)
        tmp += A[i * N + k] * B[k * N + j];
    C[i * N + j] = tmp;
}
