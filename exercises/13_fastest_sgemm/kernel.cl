/* kernel.cl - 13_fastest_sgemm, the capstone: C = A * B for any M, N, K >= 1, as fast as we can
 * make it, combining the steps before it: a TSM x TSN block of C per work-group (05), a
 * WPTM x WPTN block of it per work-item in registers (09), vector loads (08), tiles of A and B in
 * local memory double-buffered with one barrier per tile and the next tile's global loads in
 * flight during the multiply-adds (10), and the edges handled inside the kernel (11). New here:
 * the A tile is stored transposed so that the inner loop reads vectors from both tiles, each
 * work-item's rows and columns come in side-by-side runs of VWM and VWN (one vector load from
 * local memory each), and the tiles that lie wholly inside A and B (all of them but the edges)
 * are loaded with float4 loads and no tests.
 *
 * Index convention: row-major; A is M x K, B is K x N, C is M x N:
 *     A(i,k) = A[i*K + k],  B(k,j) = B[k*N + j],  C(i,j) = C[i*N + j].
 * Work sizes: 2-D NDRange {roundup(N, TSN) / WPTN, roundup(M, TSM) / WPTM} in work-groups of
 *             {RTSN, RTSM} = {TSN / WPTN, TSM / WPTM} (the kernel requires exactly that group:
 *             reqd_work_group_size). Dimension 0 runs along a row of C (the column j),
 *             dimension 1 down the rows (i). Group (gx, gy) = (get_group_id(0), get_group_id(1))
 *             computes the TSM x TSN block of C whose corner is (gy*TSM, gx*TSN).
 * A work-item's block: work-item (tx, ty) = (get_local_id(0), get_local_id(1)) owns the rows
 *             g*(RTSM*VWM) + ty*VWM + e   (g < WPTM/VWM, e < VWM)
 *             and the columns
 *             h*(RTSN*VWN) + tx*VWN + e   (h < WPTN/VWN, e < VWN)
 *             of the group's block: runs of VWM rows and VWN columns side by side, the runs
 *             strided by the group. At VWM = VWN = 4 and 16 x 16 work-items, the 32 work-items of
 *             an NVIDIA warp (two values of ty) read 2 float4 of the A tile (a broadcast) and 16
 *             neighbouring float4 of the B tile per k: no bank conflicts. On a CPU, VWN = WPTN
 *             makes each row of the work-item's block one vector register.
 * Tiles: Asub[k][m] = A(row0 + m, k0 + k) (transposed, rows padded by 4 floats: the stores of
 *             the transpose then hit different banks), Bsub[k][n] = B(k0 + k, col0 + n). Each is
 *             loaded as float4 runs along k (A) and along n (B): the work-group's NT = RTSM*RTSN
 *             work-items load LPTA = TSM*TSK/4/NT and LPTB = TSK*TSN/4/NT of them each, run
 *             q = tid + l*NT (tid = ty*RTSN + tx) at row q / (TSK/4), column 4*(q % (TSK/4)) of
 *             the A tile and row q / (TSN/4), column 4*(q % (TSN/4)) of the B tile, so that
 *             neighbouring work-items read neighbouring addresses. A tile wholly inside its
 *             matrix, with K (for A) or N (for B) a multiple of 4, is read with float4 loads
 *             and no tests; any other (the edges, or sizes that are not multiples of 4) element
 *             by element, an element outside the matrix stored as 0: the zeros add nothing, so
 *             the inner loop has no tests. An element of C outside the matrix is computed (as 0)
 *             and never stored; a block wholly inside C with N a multiple of VWN is stored in
 *             vectors, any other element by element.
 * Double buffering: the tiles of step t live in Asub[t % 2], Bsub[t % 2]. The loop runs
 *             t = 0 .. ntiles: fetch tile t from global memory into registers (t < ntiles),
 *             compute with tile t-1 (t > 0), store tile t into the buffers t % 2, one barrier.
 *             The fetch is issued before the multiply-adds and its results are needed only
 *             after them, so on a GPU the loads are in flight while the group computes; the
 *             buffers t % 2 held tile t-2, which every work-item finished with before the last
 *             barrier. One barrier per step, ntiles + 1 in all. Only the sums live across a
 *             barrier (POCL keeps what does in memory, per work-item).
 * Divisibility rules for the tuning values (checked below, at build time):
 *     WPTM divides TSM, WPTN divides TSN;  VWM divides WPTM, VWN divides WPTN (1, 2, 4 or 8);
 *     4 divides TSK and TSN;  NT = (TSM/WPTM)*(TSN/WPTN) divides TSM*TSK/4 and TSK*TSN/4.
 *     M, N and K need not be multiples of anything.
 * Reference loop this replaces (i and j become the work-groups and the work-items' blocks, k goes
 * tile by tile):
 *     for (i = 0; i < M; i++)
 *         for (j = 0; j < N; j++) {
 *             float acc = 0.0f;
 *             for (k = 0; k < K; k++)
 *                 acc += A[i*K + k] * B[k*N + j];
 *             C[i*N + j] = acc;
 *         }
 */
/* The defaults are the fastest measured on an NVIDIA H100 through NVIDIA's OpenCL (README): 43,250
 * GFLOP/s at N = 4096. They take 2 * (TSK*(TSM+4) + TSK*TSN) floats = 65 KB of local memory per
 * group, which the H100 allows; a GPU with 48 KB needs --define TSK=16 (38,400 GFLOP/s on the
 * H100). On a CPU (POCL) run make tune: WPTM=4 VWN=8 on a 2-core Xeon, 1.83x (README). */
#ifndef TSM
#define TSM 128 /* rows of C (and of the A tile) per work-group */
#endif
#ifndef TSN
#define TSN 128 /* columns of C (and of the B tile) per work-group */
#endif
#ifndef TSK
#define TSK 32 /* length of a tile along K: columns of the A tile, rows of the B tile */
#endif
#ifndef WPTM
#define WPTM 8 /* rows of C per work-item (registers: WPTM * WPTN accumulators) */
#endif
#ifndef WPTN
#define WPTN 8 /* columns of C per work-item */
#endif
#ifndef VWM
#define VWM 4 /* rows of a work-item side by side: one vector load of the A tile */
#endif
#ifndef VWN
#define VWN 4 /* columns of a work-item side by side: one vector load of the B tile */
#endif

#define RTSM  (TSM / WPTM)             /* work-items along dimension 1 of a group */
#define RTSN  (TSN / WPTN)             /* work-items along dimension 0 of a group */
#define NT    (RTSM * RTSN)            /* work-items of a group */
#define LPTA  (TSM * TSK / 4 / NT)     /* float4 runs of the A tile each work-item loads */
#define LPTB  (TSK * TSN / 4 / NT)     /* float4 runs of the B tile each work-item loads */
#define APAD  (TSM + (VWM > 4 ? VWM : 4)) /* row length of the transposed A tile in local memory */

#if TSM % WPTM != 0 || TSN % WPTN != 0 || WPTM % VWM != 0 || WPTN % VWN != 0
#error "tuning values: WPTM must divide TSM, WPTN TSN, VWM WPTM and VWN WPTN"
#endif
#if TSK % 4 != 0 || TSN % 4 != 0 || (TSM * TSK / 4) % NT != 0 || (TSK * TSN / 4) % NT != 0
#error "tuning values: 4 must divide TSK and TSN, and (TSM/WPTM)*(TSN/WPTN) TSM*TSK/4 and TSK*TSN/4"
#endif

/* floatM and floatN: the vector types of VWM and VWN floats; LANE_M(v, e) and LANE_N(v, e) its
 * element e (a constant once the loops are unrolled). */
#if VWM == 1
#define floatM        float
#define LANE_M(v, e)  (v)
#elif VWM == 2
#define floatM        float2
#define LANE_M(v, e)  ((e) == 0 ? (v).s0 : (v).s1)
#elif VWM == 4
#define floatM        float4
#define LANE_M(v, e)  ((e) < 2 ? ((e) == 0 ? (v).s0 : (v).s1) : ((e) == 2 ? (v).s2 : (v).s3))
#elif VWM == 8
#define floatM        float8
#define LANE_M(v, e)  ((e) < 4 ? LANE4_((v).lo, (e)) : LANE4_((v).hi, (e) - 4))
#else
#error "VWM must be 1, 2, 4 or 8"
#endif
#if VWN == 1
#define floatN        float
#define LANE_N(v, e)  (v)
#elif VWN == 2
#define floatN        float2
#define LANE_N(v, e)  ((e) == 0 ? (v).s0 : (v).s1)
#elif VWN == 4
#define floatN        float4
#define LANE_N(v, e)  ((e) < 2 ? ((e) == 0 ? (v).s0 : (v).s1) : ((e) == 2 ? (v).s2 : (v).s3))
#elif VWN == 8
#define floatN        float8
#define LANE_N(v, e)  ((e) < 4 ? LANE4_((v).lo, (e)) : LANE4_((v).hi, (e) - 4))
#else
#error "VWN must be 1, 2, 4 or 8"
#endif
#define LANE4_(v, e) ((e) < 2 ? ((e) == 0 ? (v).s0 : (v).s1) : ((e) == 2 ? (v).s2 : (v).s3))

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void sgemm(const int M, const int N, const int K, const __global float *A,
           const __global float *B, __global float *C)
{
    const int tx = get_local_id(0);         /* column of the work-item in its group */
    const int ty = get_local_id(1);         /* row of the work-item in its group */
    const int row0 = get_group_id(1) * TSM; /* first row of the group's block of C */
    const int col0 = get_group_id(0) * TSN; /* first column of the group's block of C */
    const int ntiles = (K + TSK - 1) / TSK; /* tiles along K; the last one may reach past K */

    /* Two pairs of tiles (double buffering). Aligned for the vector loads and stores. */
    __local float Asub[2][TSK][APAD] __attribute__((aligned(64)));
    __local float Bsub[2][TSK][TSN] __attribute__((aligned(64)));

    /* Always true (the host rounds M and N up by less than a tile), but it depends on the
     * work-item's id: as in 11, it keeps POCL from splitting each work-item's loop over the
     * tiles (11's kernel.cl). Every work-item of the group takes it, so the barriers inside are
     * legal. */
    if (row0 + ty < M + TSM && col0 + tx < N + TSN) {
        /* Contract: C(i,j) = sum over k < K of A(i,k) * B(k,j), accumulated in floats, for every
         * i < M and j < N of the group's block; nothing read outside A and B, nothing written
         * outside C, every barrier reached by every work-item of the group. The header above
         * gives the work-item's rows and columns of C (runs of VWM and VWN, strided by the
         * group), the tile layout (Asub transposed) and the share of the tile loads of each
         * work-item; keep them, they are what makes this fast:
         *   - accumulators: floatN acc[WPTM][WPTN / VWN], all 0;
         *   - for t = 0 .. ntiles (ntiles + 1 steps, ONE barrier each):
         *       if t < ntiles, fetch tile t: LPTA float4 runs of A and LPTB of B into private
         *         float4 ra[LPTA], rb[LPTB], with float4 loads and no tests where the tile lies
         *         inside the matrix and K (A) or N (B) is a multiple of 4, else element by
         *         element with 0 outside the matrix (and its address never read);
         *       if t > 0, for each k < TSK: read the work-item's WPTM values of A from row k of
         *         Asub[(t-1) % 2] (WPTM/VWM floatM loads) and its WPTN values of B from row k of
         *         Bsub[(t-1) % 2] (WPTN/VWN floatN loads), and add their products into acc;
         *       if t < ntiles, store ra into Asub[t % 2] (transposed) and rb into Bsub[t % 2];
         *       barrier(CLK_LOCAL_MEM_FENCE);
         *   - store acc into C: vector stores where the group's block lies inside C and N is a
         *     multiple of VWN, else element by element, only where row < M and column < N.
         * Unroll the small loops (#pragma unroll) so that every private array is registers. */
        /* TODO(student) begin */
        /* TODO(student) end */
    }
}
