/* Planted mistake: the matrix order N left out of the parameters (taken from the NDRange
 * instead). The harness sets four arguments on a kernel that declares three: the report must
 * say how many the exercise passes. */
__kernel void mmul(__global float *A, __global float *B, __global float *C)
{
    int N = get_global_size(0);
    int i = get_global_id(0);
    int j = get_global_id(1);
    float tmp = 0.0f;
    for (int k = 0; k < N; k++)
        tmp += A[i * N + k] * B[k * N + j];
    C[i * N + j] = tmp;
}
