/* kernel.cl - 02_per_row: C = A * B, one row of C per work-item, all operands global.
 *
 * Index convention: row-major N x N matrices, C(i,j) = C[i*N + j].
 * Work sizes: 1-D NDRange {N}; i = get_global_id(0) is the row of C this work-item computes; the
 *             host passes no local size and lets the runtime choose.
 * Reference loop this replaces (the outer loop becomes the NDRange):
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

    /* Contract: write the whole row i of C: for every column j (0 <= j < N), C(i,j) = sum over k
     * of A(i,k) * B(k,j), accumulated in a float.
     * Memory: read A and B from global memory, write exactly the N elements C[i*N + 0 .. N-1].
     * Every row i with 0 <= i < N is one work-item; write nothing else. */
    /* TODO(student) begin */
    for (int j = 0; j < N; j++) {
        float tmp = 0.0f;
        for (int k = 0; k < N - 1; k++) /* planted: stops one short, A(i,N-1)*B(N-1,j) missing */
            tmp += A[i * N + k] * B[k * N + j];
        C[i * N + j] = tmp;
    }
    /* TODO(student) end */
}
