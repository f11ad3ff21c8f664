/* Planted mistake: one parameter more than the exercise passes (a local buffer copied from a
 * later step). The kernel would compute the right result, but the harness sets only four
 * arguments, so the launch fails: the report must say how many the exercise passes. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Bwrk)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    float tmp = 0.0f;
    for (int k = 0; k < N; k++)
        tmp += A[i * N + k] * B[k * N + j];
    C[i * N + j] = tmp;
}
