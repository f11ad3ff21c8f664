/* Planted cheat: right when C starts as NaN (every correctness run), but once C holds a result
 * it returns at once - so a timed run after the warm-up would do no work at all. The grader
 * refills C with NaN before each timed launch and checks what the timed runs computed. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    if (!isnan(C[i * N + j]))
        return;
    float tmp = 0.0f;
    for (int k = 0; k < N; k++)
        tmp += A[i * N + k] * B[k * N + j];
    C[i * N + j] = tmp;
}
