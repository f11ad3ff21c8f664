/* kernel.cl - 10_prefetch: C = A * B with 09's register blocking (a WPTM x WPTN block of C per
 * work-item, TSM x TSK and TSK x TSN tiles of A and B in local memory), the tiles now
 * double-buffered: while the group computes with one pair of tiles it loads the next pair into
 * the other pair of buffers, so a single barrier per tile suffices and, on a GPU, the loads of
 * the next tiles are in flight while the multiply-adds of this one run (prefetching: kernel 9
 * of Nugteren's SGEMM tutorial).
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
 * Buffers:   tile t lives in Asub[t % 2] and Bsub[t % 2]. Before the loop the group loads tile 0
 *             into buffers 0. At the top of iteration t one barrier makes tile t (loaded in
 *             iteration t-1, or before the loop) visible to all, and tells every work-item that
 *             all have finished computing with tile t-1, whose buffers (t+1) % 2 are therefore
 *             free: the group loads tile t+1 into them, then computes with tile t. No buffer is
 *             written and read by the group between two barriers: race-free with N/TSK
 *             barriers in all, one per tile, where 09 has two per tile.
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

/* Copies tile t of A (rows row0 .., columns t*TSK ..) into Asub and tile t of B (rows t*TSK ..,
 * columns col0 ..) into Bsub, the work-item's share of them, as in 09. */
void load_tiles(const int N, const __global float *A, const __global float *B, int row0,
                int col0, int t, __local float Asub[TSM][TSK], __local float Bsub[TSK][TSN])
{
    int tx = get_local_id(0), ty = get_local_id(1);
    /* Contract: Asub[r][c] = A(row0 + r, t*TSK + c) for the rows r = ty + wm*RTSM (wm < WPTM)
     * and the columns c = tx, tx + RTSN, ... < TSK; Bsub[r][c] = B(t*TSK + r, col0 + c) for the
     * rows r = ty, ty + RTSM, ... < TSK and the columns c = tx + wn*RTSN (wn < WPTN). No
     * barrier here: the kernel places them. */
    /* TODO(student) begin */
    /* counted from 0 to constants, as in 09: the loops unroll */
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
    /* TODO(student) end */
}

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    int tx = get_local_id(0);          /* column of the work-item in its group, < RTSN */
    int ty = get_local_id(1);          /* row of the work-item in its group, < RTSM */
    int row0 = get_group_id(1) * TSM;  /* first row of the group's block of C (and of A) */
    int col0 = get_group_id(0) * TSN;  /* first column of the group's block of C (and of B) */
    __local float Asub[2][TSM][TSK];   /* two tiles of A: tile t in Asub[t % 2] */
    __local float Bsub[2][TSK][TSN];   /* two tiles of B: tile t in Bsub[t % 2] */

    /* Always true: the host launches exactly enough work-items. The test is here for speed on
     * POCL, as in 04, 05 and 09: inside a branch on the work-item's id, POCL runs each
     * work-item's loop over k as written, with its block of C in registers. Every work-item of
     * a group takes the branch, so the barriers stay legal. */
    if (row0 + ty < N && col0 + tx < N) {
        /* Contract: the sums of 09, acc[wm][wn] = sum over k of A(row0 + ty + wm*RTSM, k) *
         * B(k, col0 + tx + wn*RTSN), in a private float acc[WPTM][WPTN] that starts at 0,
         * with double-buffered tiles and ONE barrier per tile:
         *   - load_tiles(..., 0, Asub[0], Bsub[0]) before the loop;
         *   - for each tile t = 0 .. N/TSK - 1: barrier(CLK_LOCAL_MEM_FENCE); then, if there
         *     is a tile t+1, load_tiles(..., t + 1, Asub[(t+1) % 2], Bsub[(t+1) % 2]); then
         *     09's loop over k < TSK on Asub[t % 2] and Bsub[t % 2] (per k: WPTM words of A's
         *     tile into private areg, WPTN of B's into breg, WPTM*WPTN multiply-adds).
         * Finally C(row0 + ty + wm*RTSM, col0 + tx + wn*RTSN) = acc[wm][wn] for every wm, wn.
         * Memory: A and B read from global memory only in load_tiles, and nothing past the last
         * tile; write exactly these WPTM*WPTN elements of C; every work-item reaches every
         * barrier, N/TSK of them. */
        /* TODO(student) begin */
        float acc[WPTM][WPTN];
        for (int wm = 0; wm < WPTM; wm++)
            for (int wn = 0; wn < WPTN; wn++)
                acc[wm][wn] = 0.0f;
        load_tiles(N, A, B, row0, col0, 0, Asub[0], Bsub[0]);

        for (int t = 0; t < N / TSK; t++) {
            /* tile t is loaded, and everyone is done with tile t-1 and its buffers */
            barrier(CLK_LOCAL_MEM_FENCE);
            if (t + 1 < N / TSK)
                load_tiles(N, A, B, row0, col0, t + 1, Asub[(t + 1) % 2], Bsub[(t + 1) % 2]);

            int cur = t % 2;
#pragma unroll
            for (int k = 0; k < TSK; k++) {
                float areg[WPTM], breg[WPTN];
#pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
                    areg[wm] = Asub[cur][ty + wm * RTSM][k];
#pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                    breg[wn] = Bsub[cur][k][tx + wn * RTSN];
#pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
    #pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                        acc[wm][wn] += areg[wm] * breg[wn];
            }
        }

        for (int wm = 0; wm < WPTM; wm++)
            for (int wn = 0; wn < WPTN; wn++)
                C[(row0 + ty + wm * RTSM) * N + col0 + tx + wn * RTSN] = acc[wm][wn];
        /* TODO(student) end */
    }
}
