/* Planted: 08 written with a signed / and % of the same numbers (tid / (TS/WIDTH) and tid % (TS/WIDTH)):
 * right everywhere, but oclgrind 21.10 stops on the `freeze` LLVM makes of the pair. Ordinary
 * code: the grader runs it again under oclgrind built without optimisations, the memory check
 * runs (clean) and nothing is lost. (The rest of this file is the solution.)

 * one column of C per work-item), with the tiles copied from global to local memory WIDTH floats
 * at a time, as float2/float4/float8 vectors (Nugteren's kernel 4, "wider data types").
 *
 * Index convention: row-major N x N matrices, A(i,k) = A[i*N + k], B(k,j) = B[k*N + j],
 *             C(i,j) = C[i*N + j]. Dimension 0 runs along a row of C (the column index j),
 *             dimension 1 down the rows (i), as in 07.
 * Work sizes: 2-D NDRange {N, N/WPT} in work-groups of {TS, TS/WPT}, as in 07. Work-item
 *             (tx, ty) = (get_local_id(0), get_local_id(1)) of group (gx, gy) computes
 *                 C(gy*TS + ty + w*RTS, gx*TS + tx),  w = 0 .. WPT-1,  RTS = TS/WPT.
 *             A tile is TS rows of TS/WIDTH vectors. The group's TS*RTS work-items, numbered
 *             tid = ty*TS + tx, are laid over it row after row: work-item tid copies the vector
 *             in column (tid % (TS/WIDTH))*WIDTH of rows tid / (TS/WIDTH) + l*RTS*WIDTH,
 *             l = 0 .. WPT/WIDTH-1, so neighbouring tid copy neighbouring vectors of a row.
 * Rules for the tuning values: N % TS == 0 (the host checks it; it also puts every vector of A
 *             and B at a multiple of WIDTH floats, as a vector load needs), TS % WPT == 0,
 *             WPT % WIDTH == 0 and WIDTH in {1, 2, 4, 8} (checked below), TS * (TS/WPT)
 *             work-items no more than the device's largest work-group.
 * Reference loop this replaces (07's, with each tile row copied WIDTH floats at a time):
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
#ifndef WIDTH
#define WIDTH 4 /* floats per vector load and store of a tile: 1, 2, 4 or 8 */
#endif
#define RTS (TS / WPT) /* rows of work-items in a group, and the distance between their rows */

#if TS % WPT != 0
#error "WPT must divide TS: the group's TS/WPT rows of work-items must cover the tile exactly"
#endif
#if WPT % WIDTH != 0
#error "WIDTH must divide WPT: each work-item copies WPT/WIDTH vectors of each tile"
#endif
#if WIDTH == 1
typedef float floatW;
#elif WIDTH == 2
typedef float2 floatW;
#elif WIDTH == 4
typedef float4 floatW;
#elif WIDTH == 8
typedef float8 floatW;
#else
#error "WIDTH must be 1, 2, 4 or 8"
#endif

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    const int tx = get_local_id(0);        /* column in the block */
    const int ty = get_local_id(1);        /* first of this work-item's rows in the block */
    const int tid = ty * TS + tx;          /* the work-item's number in its group, for copies */
    const int brow = get_group_id(1) * TS; /* first row of the group's block of C */
    const int bcol = get_group_id(0) * TS; /* first column of the group's block of C */
    const int row = brow + ty;             /* first row i of C; the others are row + w*RTS */
    const int col = bcol + tx;             /* column j of C */
    const int ntiles = N / TS;             /* tiles along a row of A and a column of B */
    /* Asub[r][c] = A(brow + r, kb*TS + c), Bsub[r][c] = B(kb*TS + r, bcol + c); aligned for the
     * vector stores (every vector starts at a multiple of WIDTH floats) */
    __local float Asub[TS][TS] __attribute__((aligned(sizeof(floatW))));
    __local float Bsub[TS][TS] __attribute__((aligned(sizeof(floatW))));

    /* Always true: the host launches exactly N/WPT rows of work-items. The test is here for
     * speed on POCL: in a kernel with barriers it turns an innermost loop that every work-item
     * provably runs alike into a loop over the work-items, each one's sums kept in memory; inside
     * this branch it keeps each work-item's loop (04's README, "Why the kernel has if (i < N)").
     * The barriers stay legal: every work-item of a group takes the branch. */
    if (row < N) {
        /* Contract: 07's kernel with vector copies. For w = 0 .. WPT-1, C(row + w*RTS, col) =
         * sum over k of A(row + w*RTS, k) * B(k, col), accumulated in WPT private floats
         * (float acc[WPT]), tile by tile. With vrow = tid / (TS/WIDTH) and c = (tid % (TS/WIDTH))
         * * WIDTH (write the remainder as tid - vrow*(TS/WIDTH): README, "oclgrind and %"), for
         * kb = 0 .. ntiles-1 each work-item copies, for l = 0 .. WPT/WIDTH-1 and r = vrow +
         * l*RTS*WIDTH, the WIDTH floats
         *     Asub[r][c .. c+WIDTH-1] = A(brow + r, kb*TS + c .. kb*TS + c+WIDTH-1)
         *     Bsub[r][c .. c+WIDTH-1] = B(kb*TS + r, bcol + c .. bcol + c+WIDTH-1)
         * each as ONE load and ONE store of a floatW (through the float pointers cast to
         * const __global floatW * and __local floatW *); then barrier(CLK_LOCAL_MEM_FENCE); then
         * for k = 0 .. TS-1 it reads Bsub[k][tx] once and adds Asub[ty + w*RTS][k] times it to
         * acc[w] for every w; and it reaches a second barrier before the next tiles overwrite
         * Asub and Bsub. Finally C(row + w*RTS, col) = acc[w] for every w.
         * Memory: read A and B from global memory only into the tiles, as floatW; the products
         * from Asub and Bsub; write exactly these WPT elements of C. Every work-item must reach
         * every barrier; write nothing else. */
        /* TODO(student) begin */
        float acc[WPT]; /* this work-item's WPT sums, in registers */
        for (int w = 0; w < WPT; w++)
            acc[w] = 0.0f;

        /* the tile column of this work-item's vectors, a multiple of WIDTH, and its first row */
        const int vrow = tid / (TS / WIDTH);
        const int c = (tid % (TS / WIDTH)) * WIDTH; /* (tid % (TS/WIDTH)) * WIDTH */

        for (int kb = 0; kb < ntiles; kb++) {
            /* neighbouring tid copy neighbouring vectors of a row of A and of B */
            for (int l = 0; l < WPT / WIDTH; l++) {
                const int r = vrow + l * RTS * WIDTH; /* the group's vrows cover RTS*WIDTH rows */
                *(__local floatW *)&Asub[r][c] =
                    *(const __global floatW *)&A[(brow + r) * N + kb * TS + c];
                *(__local floatW *)&Bsub[r][c] =
                    *(const __global floatW *)&B[(kb * TS + r) * N + bcol + c];
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            for (int k = 0; k < TS; k++) {
                const float b = Bsub[k][tx]; /* one local load serves WPT multiply-adds */
                for (int w = 0; w < WPT; w++)
                    acc[w] += Asub[ty + w * RTS][k] * b;
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* the tiles are read out before the next copy */
        }

        for (int w = 0; w < WPT; w++)
            C[(row + w * RTS) * N + col] = acc[w];
        /* TODO(student) end */
    }
}
