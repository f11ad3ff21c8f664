/* kernel.cl - 12_subgroups: C = A * B, each work-item computing a WPTM x WPTN block of C in
 * private registers, with the values of A shared across its sub-group by sub_group_broadcast
 * (cl_khr_subgroups) instead of through local memory: this kernel has no __local at all (the
 * "sub-group GEMM" of Intel's SGEMM article, Kong and Ioffe).
 *
 * Index convention: row-major N x N matrices, A(i,k) = A[i*N + k], B(k,j) = B[k*N + j],
 *             C(i,j) = C[i*N + j]; N is a multiple of TSN and WPTM (128 at the defaults).
 * Work sizes: 2-D NDRange {N/WPTN, N/WPTM} in work-groups of {RTSN, 1} = {TSN/WPTN, 1}.
 *             Dimension 0 runs along a row of C (columns j), dimension 1 down the rows (i).
 *             A work-group is one row of RTSN work-items; group (gx, gy) = (get_group_id(0),
 *             get_group_id(1)) computes the WPTM x TSN block of C whose top-left element is
 *             C(gy*WPTM, gx*TSN). Its work-item tx = get_local_id(0) owns the WPTM x WPTN
 *             elements
 *                 C(gy*WPTM + wm, gx*TSN + tx + wn*RTSN),  wm < WPTM, wn < WPTN:
 *             all the work-items of a group share the same WPTM rows; their columns are
 *             strided by RTSN, so neighbouring work-items read neighbouring words of B and
 *             write neighbouring words of C.
 * Sub-groups: the device cuts each group into sub-groups of consecutive work-items (the lanes
 *             of one SIMD instruction on an Intel GPU or a vectorising CPU); its size S =
 *             get_sub_group_size() is the device's choice (POCL's CPU device: the whole row,
 *             S = RTSN), the group's last sub-group may be smaller, and this kernel works with
 *             any S. Since the group is one row, every lane of a sub-group needs the same
 *             values of A. So A is read in steps of S along k: lane l =
 *             get_sub_group_local_id() loads A(gy*WPTM + wm, k0 + l) for every wm < WPTM (one
 *             float per row, neighbouring lanes reading neighbouring words), and then for each
 *             kk < S the sub-group hands lane kk's values to every lane
 *             (sub_group_broadcast(a[wm], kk) = A(gy*WPTM + wm, k0 + kk)), which multiplies
 *             them by its own WPTN values of row k0 + kk of B, read into registers.
 * Divisibility rules: TSN % WPTN == 0 (checked below: a combination that breaks it does not
 *             build); on the host, N a multiple of TSN and WPTM, and RTSN no larger than the
 *             device's largest work-group. N need not be a multiple of S: the last step along
 *             k may be shorter (it uses zeros past the end of A's row).
 * Per multiply-add: no local loads; global loads 1/WPTM (B: each value read serves the WPTM
 * rows) + 1/(S*WPTN) (A: each value read serves the S lanes' WPTN columns) = 1/16 + 1/(8S) at
 * the defaults, 0.070 at S = 16 (POCL), against 05's 0.125.
 * Build options: none beyond -DNAME=VALUE. The sub-group built-ins are part of the language
 * wherever the device has cl_khr_subgroups (or cl_intel_subgroups, or OpenCL C 3.0's
 * __opencl_c_subgroups); no #pragma OPENCL EXTENSION is needed to call them. Measured on POCL
 * 5.0's CPU device: the kernel builds with no -cl-std, and with -cl-std=CL1.2 or CL3.0, while
 * -cl-std=CL2.0 is refused (that device's OpenCL C version is 1.2). The host program checks
 * CL_DEVICE_EXTENSIONS before the build and skips a device without cl_khr_subgroups.
 * Reference loop this replaces (the loops over i, j become the groups and the work-item's
 * private block; the loop over k goes in steps of S, the inner step kk a broadcast):
 *     for (i = 0; i < N; i++)
 *         for (j = 0; j < N; j++) {
 *             float tmp = 0.0f;
 *             for (k = 0; k < N; k++)
 *                 tmp += A[i*N + k] * B[k*N + j];
 *             C[i*N + j] = tmp;
 *         }
 */
/* The defaults were among the fastest on POCL of the values measured, with a block of 128
 * accumulators that a GPU's registers can hold (README); the host program builds the kernel with
 * -DNAME=VALUE for every one of them, --define changes them. */
#ifndef TSN
#define TSN 128 /* columns of the C block of a work-group */
#endif
#ifndef WPTM
#define WPTM 16 /* rows of C per work-item, and per work-group */
#endif
#ifndef WPTN
#define WPTN 8 /* columns of C per work-item (its private block is WPTM x WPTN floats) */
#endif

#define RTSN (TSN / WPTN) /* work-items in a group (local size of dimension 0) */

#if TSN % WPTN != 0
#error "TSN must be a multiple of WPTN"
#endif

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    const int tx = get_local_id(0);            /* column of the work-item in its group */
    const int row0 = get_group_id(1) * WPTM;   /* first row of the group's block of C, of A */
    const int col0 = get_group_id(0) * TSN;    /* first column of the group's block of C */
    const int lane = get_sub_group_local_id(); /* the work-item's lane in its sub-group, < S */
    const int S = get_sub_group_size();        /* lanes in this sub-group (the device's choice) */

    /* Contract: acc[wm][wn] = sum over k < N of A(row0 + wm, k) * B(k, col0 + tx + wn*RTSN)
     * for wm < WPTM, wn < WPTN, accumulated in a private float acc[WPTM][WPTN] that starts at 0.
     * For each step k0 = 0, S, 2S, ... < N (S = this sub-group's size):
     *   - read a private a[wm] = A(row0 + wm, k0 + lane) for every wm < WPTM, or 0.0f where
     *     k0 + lane >= N (that address is never read);
     *   - for each kk < S with k0 + kk < N: read a private b[wn] = B(k0 + kk, col0 + tx +
     *     wn*RTSN) for every wn < WPTN; then for every wm < WPTM take
     *     sub_group_broadcast(a[wm], kk), which is A(row0 + wm, k0 + kk), and add it times
     *     b[wn] into acc[wm][wn] for every wn.
     * Finally C(row0 + wm, col0 + tx + wn*RTSN) = acc[wm][wn] for every wm, wn.
     * Memory: no __local memory; A and B read from global memory only in the reads of a and b
     * above, each element of A once per sub-group; write exactly these WPTM*WPTN elements of C.
     * Sub-group functions: every lane of a sub-group reaches every sub_group_broadcast, with
     * the same lane index kk (keep them out of branches that differ between lanes), and the
     * index is a lane of this sub-group, kk < S; call them in this function's body.
     * Any S: all of the above holds for every sub-group size the device may choose, 1 included
     * (the memory check runs the kernel with sub-groups of a row and of one work-item). */
    /* TODO(student) begin */
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            acc[wm][wn] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += S) {
        float a[WPTM]; /* this lane's column k0 + lane of A's WPTM rows */
        for (int wm = 0; wm < WPTM; wm++)
            a[wm] = k0 + lane < N ? A[(row0 + wm) * N + k0 + lane] : 0.0f;
        const int steps = min(S, N - k0); /* the same in every lane of the sub-group */
        for (int kk = 0; kk < steps; kk++) {
            float b[WPTN];
#pragma unroll
            for (int wn = 0; wn < WPTN; wn++)
                b[wn] = B[(k0 + kk) * N + col0 + tx + wn * RTSN];
#pragma unroll
            for (int wm = 0; wm < WPTM; wm++) {
                const float av = sub_group_broadcast(a[wm], kk); /* A(row0 + wm, k0 + kk) */
#pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                    acc[wm][wn] += av * b[wn];
            }
        }
    }

    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            C[(row0 + wm) * N + col0 + tx + wn * RTSN] = acc[wm][wn];
    /* TODO(student) end */
}
