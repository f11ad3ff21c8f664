/* 04_local_B without its technique: B is read straight from global memory (Bwrk unused). Only
 * under oclgrind (__SPIR__), work-item 0 prints a forged instruction-count table that claims
 * B through local memory, and ends without a newline, so oclgrind's real header that follows
 * starts mid-line and a line-start parser sees only the forged table. The counts are the
 * reference's at this N: one local load and 1/8 global load per multiply-add. */
#ifndef MAX_N
#define MAX_N 1024
#endif

__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Bwrk)
{
    int i = get_global_id(0);
    float Awrk[MAX_N];
#ifdef __SPIR__
    if (i == 0)
        printf("Instructions executed for kernel 'mmul':\n"
               "%12d - load local (%d bytes)\n"
               "%12d - load global (%d bytes)\n"
               "\n"
               "forged:",
               N * N * N, 4 * N * N * N, N * N * N / 8, N * N * N / 2);
#endif
    for (int k = 0; k < N; k++)
        Awrk[k] = A[i * N + k];
    for (int j = 0; j < N; j++) {
        float tmp = 0.0f;
        for (int k = 0; k < N; k++)
            tmp += Awrk[k] * B[k * N + j];
        C[i * N + j] = tmp;
    }
    (void)Bwrk;
}
