/* Planted slowness: right results, but every element's sum is computed N*N*N times over (each
 * time from another starting k, so no compiler folds the repeats away). Fast enough at N = 16,
 * a million times the work at N = 100 (N*N times over was 10^10 multiply-adds there, which a
 * quiet machine finished within the 10 s limit): stopped at the time limit there, the report must
 * say the kernel is too slow (it ended, right, at N = 16), not that it may never end. */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    int i = get_global_id(0);
    int j = get_global_id(1);
    float tmp = 0.0f;
    for (int rep = 0; rep < N * N * N; rep++) {
        tmp = 0.0f;
        for (int k = 0; k < N; k++) {
            int kk = (k + rep) % N;
            tmp += A[i * N + kk] * B[kk * N + j];
        }
    }
    C[i * N + j] = tmp;
}
