/* kernel.cl - 11_any_size: C = A * B for any M, N, K >= 1, with 2-D register blocking (a
 * TSM x TSK tile of A and a TSK x TSN tile of B in local memory, a WPTM x WPTN block of C in each
 * work-item's private registers), the edges of the matrices handled inside the kernel.
 *
 * Index convention: row-major; A is M x K, B is K x N, C is M x N:
 *     A(i,k) = A[i*K + k],  B(k,j) = B[k*N + j],  C(i,j) = C[i*N + j].
 * Work sizes: 2-D NDRange {roundup(N, TSN) / WPTN, roundup(M, TSM) / WPTM} in work-groups of
 *             {RTSN, RTSM} = {TSN / WPTN, TSM / WPTM}: dimension 0 runs along a row of C (the
 *             column j), dimension 1 down the rows (i). Group (gx, gy) = (get_group_id(0),
 *             get_group_id(1)) computes the TSM x TSN block of C whose corner is
 *             (gy*TSM, gx*TSN). In it the work-item (tx, ty) = (get_local_id(0), get_local_id(1))
 *             owns WPTM rows ROWM(wm) (wm < WPTM) and WPTN columns COLN(wn) (wn < WPTN) of the
 *             block, laid out as LAYOUT says (below).
 * Layout (a tuning value, as CLBlast's STRM and STRN):
 *     LAYOUT 1: side by side, ROWM(wm) = ty*WPTM + wm and COLN(wn) = tx*WPTN + wn: each
 *               work-item reads WPTN neighbouring floats of a row of the B tile at each k, which
 *               a CPU compiler makes one vector load (POCL: 3 times LAYOUT 2's speed);
 *     LAYOUT 2: strided by the group's size, ROWM(wm) = ty + wm*RTSM and COLN(wn) = tx + wn*RTSN
 *               (09's layout): neighbouring work-items read neighbouring words of the tiles and
 *               write neighbouring words of C, as a GPU's memory wants, and the transposed A
 *               tile has one word of padding per row, so that the work-items storing a column
 *               of it hit different banks (an NVIDIA H200 at N = 4096: 36,060 GFLOP/s against
 *               LAYOUT 1's 19,604 at the same tiles).
 * Bounds: the edge groups reach past the matrices (up to TSM-1 rows, TSN-1 columns, and the last
 *         tile along K up to TSK-1 columns of A and rows of B). A tile element outside A or B is
 *         stored into local memory as 0, so the inner loop needs no tests: the zeros add nothing
 *         to the sums. An element of C outside the matrix is computed (as 0) but never stored.
 * Divisibility rules for the tuning values (checked below, at build time; LAYOUT is 1 or 2):
 *     WPTM divides TSM and WPTN divides TSN (the work-items' blocks tile the group's block);
 *     TSM/WPTM and TSN/WPTN both divide TSK (the tile loads: each work-item loads WPTM rows by
 *     TSK/(TSN/WPTN) columns of the A tile and TSK/(TSM/WPTM) rows by WPTN columns of the B tile).
 *     M, N and K need not be multiples of anything.
 * Reference loop this replaces (the sum over k cut into tiles of TSK):
 *     for (i = 0; i < M; i++)
 *         for (j = 0; j < N; j++) {
 *             float acc = 0.0f;
 *             for (k = 0; k < K; k++)
 *                 acc += A[i*K + k] * B[k*N + j];
 *             C[i*N + j] = acc;
 *         }
 */
#ifndef TSM
#define TSM 64 /* rows of C (and of the A tile) per work-group */
#endif
#ifndef TSN
#define TSN 64 /* columns of C (and of the B tile) per work-group */
#endif
#ifndef TSK
#define TSK 16 /* length of a tile along K: columns of the A tile, rows of the B tile */
#endif
#ifndef WPTM
#define WPTM 8 /* rows of C per work-item (registers: WPTM * WPTN accumulators) */
#endif
#ifndef WPTN
#define WPTN 8 /* columns of C per work-item */
#endif

#ifndef LAYOUT
#define LAYOUT 1 /* a work-item's rows and columns: 1 side by side (a CPU's), 2 strided (a GPU's) */
#endif

#define RTSM (TSM / WPTM) /* work-items along dimension 1 of a group */
#define RTSN (TSN / WPTN) /* work-items along dimension 0 of a group */

#if TSM % WPTM != 0 || TSN % WPTN != 0 || TSK % RTSM != 0 || TSK % RTSN != 0
#error "tuning values: WPTM must divide TSM, WPTN TSN, and TSM/WPTM and TSN/WPTN must divide TSK"
#endif
#if LAYOUT != 1 && LAYOUT != 2
#error "tuning values: LAYOUT is 1 (side by side) or 2 (strided)"
#endif

/* The work-item's wm-th row and wn-th column of its group's block of C (ty and tx its local ids),
 * and the padding of the transposed A tile's rows. */
#if LAYOUT == 1
#define ROWM(wm) (ty * WPTM + (wm))
#define COLN(wn) (tx * WPTN + (wn))
#define PADA     0
#else
#define ROWM(wm) (ty + (wm) * RTSM)
#define COLN(wn) (tx + (wn) * RTSN)
#define PADA     1
#endif

__kernel void sgemm(const int M, const int N, const int K, const __global float *A,
                    const __global float *B, __global float *C)
{
    const int tx = get_local_id(0);         /* column of the work-item in its group */
    const int ty = get_local_id(1);         /* row of the work-item in its group */
    const int row0 = get_group_id(1) * TSM; /* first row of the group's block of C */
    const int col0 = get_group_id(0) * TSN; /* first column of the group's block of C */
    const int ntiles = (K + TSK - 1) / TSK; /* tiles along K; the last one may reach past K */

    /* The tiles. Asub is stored transposed, Asub[k][m] = A(row0 + m, k0 + k), so that at each k
     * the inner loop reads a row of each tile: Asub[k][ROWM(wm)] and Bsub[k][COLN(wn)]. */
    __local float Asub[TSK][TSM + PADA];
    __local float Bsub[TSK][TSN];

    /* Always true (the group's corner lies inside C: the host rounds M and N up by less than a
     * tile), but it depends on the work-item's id. It is there for speed on POCL, as in 05 (04's
     * README, "Why the kernel has if (i < N)"): it keeps each work-item's loop over k as its own
     * loop. Measured: without it the solution runs about half as many instructions again per
     * launch on POCL 3.1. Every work-item of a group takes the branch, so the barriers inside
     * stay legal. */
    if (row0 + ty < M + TSM && col0 + tx < N + TSN) {
        /* Contract: C(i,j) = sum over k < K of A(i,k) * B(k,j), accumulated in floats, for every
         * i < M and j < N of the group's block, tile by tile: for t = 0 .. ntiles-1,
         *   - the group loads the A tile, Asub[k][m] = A(row0 + m, t*TSK + k), and the B tile,
         *     Bsub[k][n] = B(t*TSK + k, col0 + n), for all m < TSM, n < TSN, k < TSK, shared out
         *     among the group's work-items. An element whose row or column lies outside its
         *     matrix (row0 + m >= M or t*TSK + k >= K for A; t*TSK + k >= K or col0 + n >= N
         *     for B) is stored as 0.0f, and its address is never read;
         *   - barrier(CLK_LOCAL_MEM_FENCE);
         *   - each work-item adds Asub[k][ROWM(wm)] * Bsub[k][COLN(wn)] for k < TSK into its
         *     WPTM x WPTN private accumulators (wm < WPTM, wn < WPTN), with no bounds tests;
         *   - barrier(CLK_LOCAL_MEM_FENCE) before the next tiles overwrite these.
         * Finally store accumulator (wm, wn) at C(row0 + ROWM(wm), col0 + COLN(wn)),
         * only where that row is < M and that column < N. Read nothing outside A and B, write
         * nothing outside C, and keep every barrier where all work-items of the group reach it. */
        /* TODO(student) begin */
        float acc[WPTM][WPTN];
        #pragma unroll
        for (int wm = 0; wm < WPTM; wm++)
            #pragma unroll
            for (int wn = 0; wn < WPTN; wn++)
                acc[wm][wn] = 0.0f;

        for (int t = 0; t < ntiles; t++) {
            const int k0 = t * TSK;
            /* A tile that lies wholly inside its matrix needs no test per element; the
             * compiler then makes the loads of such tiles a loop without tests (measured on
             * POCL 3.1: without these two flags the tests cost about a quarter more
             * instructions per launch). */
            const int a_inside = row0 + TSM <= M && k0 + TSK <= K;
            const int b_inside = k0 + TSK <= K && col0 + TSN <= N;
            /* The A tile: this work-item loads rows ty + r*RTSM (r < WPTM) and columns
             * tx + c*RTSN (c < TSK/RTSN), so neighbouring work-items read neighbouring
             * addresses of a row of A (in either layout). Outside A: a zero. The loops count
             * from 0 to constants, so that they unroll (#pragma unroll: a GPU's compiler). */
            #pragma unroll
            for (int r = 0; r < WPTM; r++) {
                const int m = ty + r * RTSM, i = row0 + m;
                #pragma unroll
                for (int c = 0; c < TSK / RTSN; c++) {
                    const int k = tx + c * RTSN, kk = k0 + k;
                    float a = 0.0f;
                    if (a_inside || (i < M && kk < K))
                        a = A[i * K + kk];
                    Asub[k][m] = a;
                }
            }
            /* The B tile: rows ty + r*RTSM (r < TSK/RTSM), columns tx + c*RTSN (c < WPTN),
             * along a row of B. Outside B: a zero. */
            #pragma unroll
            for (int r = 0; r < TSK / RTSM; r++) {
                const int k = ty + r * RTSM, kk = k0 + k;
                #pragma unroll
                for (int c = 0; c < WPTN; c++) {
                    const int n = tx + c * RTSN, j = col0 + n;
                    float b = 0.0f;
                    if (b_inside || (kk < K && j < N))
                        b = B[kk * N + j];
                    Bsub[k][n] = b;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            /* No tests here: the zeros outside the matrices add nothing to the sums. */
            #pragma unroll
            for (int k = 0; k < TSK; k++) {
                float areg[WPTM], breg[WPTN];
                #pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
                    areg[wm] = Asub[k][ROWM(wm)];
                #pragma unroll
                for (int wn = 0; wn < WPTN; wn++)
                    breg[wn] = Bsub[k][COLN(wn)];
                #pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
                    #pragma unroll
                    for (int wn = 0; wn < WPTN; wn++)
                        acc[wm][wn] += areg[wm] * breg[wn];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        /* The edge groups computed (zero) elements outside C too: those are not stored. */
        #pragma unroll
        for (int wm = 0; wm < WPTM; wm++) {
            const int i = row0 + ROWM(wm);
            #pragma unroll
            for (int wn = 0; wn < WPTN; wn++) {
                const int j = col0 + COLN(wn);
                if (i < M && j < N)
                    C[i * N + j] = acc[wm][wn];
            }
        }
        /* TODO(student) end */
    }
}
