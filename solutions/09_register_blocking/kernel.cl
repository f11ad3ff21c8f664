/* kernel.cl - 09_register_blocking: C = A * B, each work-item computing a WPTM x WPTN block of C
 * in private registers from TSM x TSK tiles of A and TSK x TSN tiles of B in local memory
 * (2-D register blocking: Volkov & Demmel, SC08; kernel 6 of Nugteren's SGEMM tutorial).
 *
 * Index convention: row-major N x N matrices, A(i,k) = A[i*N + k], B(k,j) = B[k*N + j],
 *             C(i,j) = C[i*N + j]; N is a multiple of TSM, TSN and TSK.
 * Work sizes: 2-D NDRange {N/WPTN, N/WPTM} in work-groups of {RTSN, RTSM} = {TSN/WPTN, TSM/WPTM}.
 *             Dimension 0 runs along a row of C (columns j), dimension 1 down the rows (i).
 *             Work-group (gx, gy) = (get_group_id(0), get_group_id(1)) computes the TSM x TSN
 *             block of C whose top-left element is C(gy*TSM, gx*TSN). Its work-item
 *             (tx, ty) = (get_local_id(0), get_local_id(1)) owns the WPTM x WPTN elements
 *                 C(gy*TSM + ty + wm*RTSM, gx*TSN + tx + wn*RTSN),  wm < WPTM, wn < WPTN:
 *             its rows and columns are strided by the group's size, not side by side, so that
 *             neighbouring work-items read neighbouring words of the tiles and write
 *             neighbouring words of C (coalesced on a GPU, no local-memory bank conflicts).
 * Tile loads: the group's RTSM x RTSN work-items copy each tile together, laid over it with
 *             the same strides as over C: work-item (tx, ty) copies the elements of the A tile
 *             in its own rows ty + wm*RTSM and the columns tx, tx + RTSN, ... < TSK, and the
 *             elements of the B tile in the rows ty, ty + RTSM, ... < TSK and its own columns
 *             tx + wn*RTSN. Neighbouring work-items read neighbouring words of A and B.
 * Divisibility rules (checked below: a combination that breaks one does not build):
 *             TSM % WPTM == 0, TSN % WPTN == 0  (a whole number of work-items per block edge)
 *             TSK % RTSN == 0, TSK % RTSM == 0  (the group covers the tiles' TSK side evenly)
 *             and, on the host, N a multiple of TSM, TSN and TSK, and RTSM*RTSN no larger than
 *             the device's largest work-group.
 * Per multiply-add: 1/WPTN + 1/WPTM local loads (per k, WPTM words of A's tile and WPTN of B's
 * serve WPTM*WPTN multiply-adds) and 1/TSN + 1/TSM global loads.
 * Reference loop this replaces (the loops over i, j become the work-groups and the work-item's
 * private block, k goes tile by tile):
 *     for (i = 0; i < N; i++)
 *         for (j = 0; j < N; j++) {
 *             float tmp = 0.0f;
 *             for (k = 0; k < N; k++)
 *                 tmp += A[i*N + k] * B[k*N + j];
 *             C[i*N + j] = tmp;
 *         }
 */
/* The defaults were the fastest on POCL of the values measured (README); the host program
 * builds the kernel with -DNAME=VALUE for every one of them, --define changes them. */
#ifndef TSM
#define TSM 128 /* rows of the C block of a work-group, and of its A tile */
#endif
#ifndef TSN
#define TSN 128 /* columns of the C block of a work-group, and of its B tile */
#endif
#ifndef TSK
#define TSK 32 /* the tiles' length along k: columns of the A tile, rows of the B tile */
#endif
#ifndef WPTM
#define WPTM 8 /* rows of C per work-item (its private block is WPTM x WPTN floats) */
#endif
#ifndef WPTN
#define WPTN 8 /* columns of C per work-item */
#endif

#define RTSM (TSM / WPTM) /* work-items down a group (local size of dimension 1) */
#define RTSN (TSN / WPTN) /* work-items along a group (local size of dimension 0) */

#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "TSM must be a multiple of WPTM and TSN a multiple of WPTN"
#endif
#if TSK % (TSN / WPTN) != 0 || TSK % (TSM / WPTM) != 0
#error "TSK must be a multiple of both sides of the work-group, TSN/WPTN and TSM/WPTM"
#endif

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    int tx = get_local_id(0);          /* column of the work-item in its group, < RTSN */
    int ty = get_local_id(1);          /* row of the work-item in its group, < RTSM */
    int row0 = get_group_id(1) * TSM;  /* first row of the group's block of C (and of A) */
    int col0 = get_group_id(0) * TSN;  /* first column of the group's block of C (and of B) */
    __local float Asub[TSM][TSK];      /* tile of A: the block's TSM rows, TSK columns */
    __local float Bsub[TSK][TSN];      /* tile of B: TSK rows, the block's TSN columns */

    /* Always true: the host launches exactly enough work-items. The test is here for speed on
     * POCL, as in 04 and 05: inside a branch on the work-item's id, POCL runs each work-item's
     * loop over k as written, with its block of C in registers, instead of turning it into a
     * loop over the work-items (the README has the figures). Every work-item of a group takes
     * the branch, so the barriers stay legal. */
    if (row0 + ty < N && col0 + tx < N) {
        /* Contract: acc[wm][wn] = sum over k of A(row0 + ty + wm*RTSM, k) *
         * B(k, col0 + tx + wn*RTSN) for wm < WPTM, wn < WPTN, accumulated in a private
         * float acc[WPTM][WPTN] that starts at 0.
         * For each tile t = 0 .. N/TSK - 1:
         *   - load the tiles together: Asub[r][c] = A(row0 + r, t*TSK + c) for the rows
         *     r = ty + wm*RTSM (wm < WPTM) and the columns c = tx, tx + RTSN, ... < TSK;
         *     Bsub[r][c] = B(t*TSK + r, col0 + c) for the rows r = ty, ty + RTSM, ... < TSK and
         *     the columns c = tx + wn*RTSN (wn < WPTN);
         *   - barrier(CLK_LOCAL_MEM_FENCE);
         *   - for k < TSK: copy Asub[ty + wm*RTSM][k] into a private areg[wm] (wm < WPTM) and
         *     Bsub[k][tx + wn*RTSN] into a private breg[wn] (wn < WPTN), then
         *     acc[wm][wn] += areg[wm] * breg[wn] for every wm, wn: WPTM + WPTN local loads
         *     for WPTM * WPTN multiply-adds;
         *   - barrier(CLK_LOCAL_MEM_FENCE) before the next tiles overwrite Asub and Bsub.
         * Finally C(row0 + ty + wm*RTSM, col0 + tx + wn*RTSN) = acc[wm][wn] for every wm, wn.
         * Memory: A and B read from global memory only in the tile loads; write exactly these
         * WPTM*WPTN elements of C and nothing else; every work-item reaches every barrier. */
        /* TODO(student) begin */
        float acc[WPTM][WPTN];
        for (int wm = 0; wm < WPTM; wm++)
            for (int wn = 0; wn < WPTN; wn++)
                acc[wm][wn] = 0.0f;
        for (int t = 0; t < N / TSK; t++) {
            /* counted from 0 to constants, not from ty or tx: the loops unroll (on an NVIDIA
             * H200, 36,000 GFLOP/s at N = 4096 and TSK = 16 against 21,000 written from ty) */
#pragma unroll
            for (int wm = 0; wm < WPTM; wm++)
#pragma unroll
                for (int l = 0; l < TSK / RTSN; l++)
                    Asub[ty + wm * RTSM][tx + l * RTSN] =
                        A[(row0 + ty + wm * RTSM) * N + t * TSK + tx + l * RTSN];
#pragma unroll
            for (int l = 0; l < TSK / RTSM; l++)
#pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                    Bsub[ty + l * RTSM][tx + wn * RTSN] =
                        B[(t * TSK + ty + l * RTSM) * N + col0 + tx + wn * RTSN];
            barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
            for (int k = 0; k < TSK; k++) {
                float areg[WPTM], breg[WPTN];
#pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
                    areg[wm] = Asub[ty + wm * RTSM][k];
#pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                    breg[wn] = Bsub[k][tx + wn * RTSN];
#pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
    #pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                        acc[wm][wn] += areg[wm] * breg[wn];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int wm = 0; wm < WPTM; wm++)
            for (int wn = 0; wn < WPTN; wn++)
                C[(row0 + ty + wm * RTSM) * N + col0 + tx + wn * RTSN] = acc[wm][wn];
        /* TODO(student) end */
    }
}
