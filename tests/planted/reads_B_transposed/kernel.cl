/* kernel.cl - 01_per_element: C = A * B, one element of C per work-item, all operands global.
 *
 * Index convention: row-major N x N matrices, C(i,j) = C[i*N + j].
 * Work sizes: 2-D NDRange {N, N}; i = get_global_id(0) is the row, j = get_global_id(1) the
 *             column; the host passes no local size and lets the runtime choose.
 * Reference loop this replaces (the two outer loops become the NDRange):
 *     for (i = 0; i < N; i++)
 *         for (j = 0; j < N; j++) {
 *             float tmp = 0.0f;
 *             for (k = 0; k < N; k++)
 *                 tmp += A[i*N + k] * B[k*N + j];
 *             C[i*N + j] = tmp;
 *         }
 */
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C)
{
    int i = get_global_id(0);
    int j = get_global_id(1);

    /* Contract: write C(i,j) = sum over k of A(i,k) * B(k,j), accumulated in a float.
     * Memory: read A and B from global memory, write exactly one element of C (C[i*N + j]).
     * Every (i, j) with 0 <= i, j < N is one work-item; write nothing else. */
    /* TODO(student) begin */
    float tmp = 0.0f;
    for (int k = 0; k < N; k++)
        tmp += A[i * N + k] * B[j * N + k]; /* planted: walks row j of B, so C = A * B^T */
    C[i * N + j] = tmp;
    /* TODO(student) end */
}
