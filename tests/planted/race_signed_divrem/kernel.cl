/* Planted: 07 with its tiles copied myGEMM-style, each work-item's element numbered and split
 * by a signed / and % (which oclgrind 21.10's optimised build turns into an instruction it cannot
 * interpret), and a data race in local memory that leaves the result right: every work-item reads
 * a flag its neighbour writes between the same barriers (always 1.0f). The memory check must run
 * and find the race, never be skipped. (The rest of this file is the solution.)

/* kernel.cl - 07_more_work_per_item: C = A * B by TS x TS tiles in local memory, each work-item
 * computing WPT elements of C that lie in one column (Nugteren's kernel 3, "more work per thread").
 *
 * Index convention: row-major N x N matrices, A(i,k) = A[i*N + k], B(k,j) = B[k*N + j],
 *             C(i,j) = C[i*N + j]. From this step on dimension 0 runs along a row of C (the
 *             column index j) and dimension 1 down the rows (i), so neighbouring work-items read
 *             and write neighbouring addresses of B and C (05 had the row on dimension 0).
 * Work sizes: 2-D NDRange {N, N/WPT} in work-groups of {TS, TS/WPT}. A group computes one
 *             TS x TS block of C. Its work-item (tx, ty) = (get_local_id(0), get_local_id(1))
 *             computes the WPT elements
 *                 C(get_group_id(1)*TS + ty + w*RTS, get_group_id(0)*TS + tx),  w = 0 .. WPT-1,
 *             RTS = TS/WPT apart, one column of the block; and loads WPT elements of each tile.
 * Rules for the tuning values: N % TS == 0 (the host checks it), TS % WPT == 0 (checked below),
 *             TS * (TS/WPT) work-items no more than the device's largest work-group.
 * Reference loop this replaces (05's tiled loop; every value read from Bsub now serves WPT rows,
 * so a multiply-add costs 1 + 1/WPT local loads instead of 05's 2):
 *     for (i = 0; i < N; i++)
 *         for (j = 0; j < N; j++) {
 *             float tmp = 0.0f;
 *             for (kb = 0; kb < N / TS; kb++)
 *                 for (k = kb*TS; k < (kb+1)*TS; k++)
 *                     tmp += A[i*N + k] * B[k*N + j];
 *             C[i*N + j] = tmp;
 *         }
 */
#ifndef TS
#define TS 32 /* tile edge: a group computes a TS x TS block of C from TS x TS tiles of A and B */
#endif
#ifndef WPT
#define WPT 8 /* work per work-item: elements of C (rows of the block) each work-item computes */
#endif
#define RTS (TS / WPT) /* rows of work-items in a group, and the distance between their rows */

#if TS % WPT != 0
#error "WPT must divide TS: the group's TS/WPT rows of work-items must cover the tile exactly"
#endif

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    const int tx = get_local_id(0);            /* column in the block */
    const int ty = get_local_id(1);            /* first of this work-item's rows in the block */
    const int col = get_group_id(0) * TS + tx; /* column j of C */
    const int row = get_group_id(1) * TS + ty; /* first row i of C; the others are row + w*RTS */
    const int ntiles = N / TS;                 /* tiles along a row of A and a column of B */
    __local float Asub[TS][TS];                /* Asub[r][c] = A(block row + r, kb*TS + c) */
    __local float Bsub[TS][TS];                /* Bsub[r][c] = B(kb*TS + r, block column + c) */
    __local float flag[TS];                    /* planted: 1.0f, rewritten every tile */

    /* Always true: the host launches exactly N/WPT rows of work-items. The test is here for
     * speed on POCL: in a kernel with barriers it turns an innermost loop that every work-item
     * provably runs alike into a loop over the work-items, each one's sums kept in memory; inside
     * this branch it keeps each work-item's loop (04's README, "Why the kernel has if (i < N)").
     * The barriers stay legal: every work-item of a group takes the branch. */
    if (row < N) {
        /* Contract: for w = 0 .. WPT-1, C(row + w*RTS, col) = sum over k of A(row + w*RTS, k) *
         * B(k, col), accumulated in WPT private floats (float acc[WPT]), tile by tile:
         * for kb = 0 .. ntiles-1, each work-item stores, for w = 0 .. WPT-1,
         *     Asub[ty + w*RTS][tx] = A(row + w*RTS, kb*TS + tx)
         *     Bsub[ty + w*RTS][tx] = B(kb*TS + ty + w*RTS, col)
         * then barrier(CLK_LOCAL_MEM_FENCE); then for k = 0 .. TS-1 it reads Bsub[k][tx] once
         * and adds Asub[ty + w*RTS][k] times it to acc[w] for every w; and it reaches a second
         * barrier before the next tiles overwrite Asub and Bsub. Finally C(row + w*RTS, col) =
         * acc[w] for every w.
         * Memory: read A and B from global memory only into the tiles, the products from Asub
         * and Bsub; write exactly these WPT elements of C. Every work-item must reach every
         * barrier; write nothing else. */
        /* TODO(student) begin */
        float acc[WPT]; /* this work-item's WPT sums, in registers */
        for (int w = 0; w < WPT; w++)
            acc[w] = 0.0f;

        flag[tx] = 1.0f;
        for (int kb = 0; kb < ntiles; kb++) {
            /* myGEMM's copy: the work-item's element id of the tile, its row and column */
            for (int w = 0; w < WPT; w++) {
                const int id = (w * RTS + ty) * TS + tx;
                const int r = id / TS, c = id % TS;
                Asub[r][c] = A[(get_group_id(1) * TS + r) * N + kb * TS + c];
                Bsub[r][c] = B[(kb * TS + r) * N + get_group_id(0) * TS + c];
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            flag[tx] = 1.0f;                          /* planted: the race */
            const float one = flag[(tx + 1) % TS];    /* the neighbour's, unordered */
            for (int k = 0; k < TS; k++) {
                const float b = Bsub[k][tx] * one; /* one local load serves WPT multiply-adds */
                for (int w = 0; w < WPT; w++)
                    acc[w] += Asub[ty + w * RTS][k] * b;
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* the tiles are read out before the next load */
        }

        for (int w = 0; w < WPT; w++)
            C[(row + w * RTS) * N + col] = acc[w];
        /* TODO(student) end */
    }
}
