/* kernel.cl - planted for 10_prefetch: 09's structure (one buffer, two barriers per tile) with
 * tiles along k of the kernel's own depth KD, whatever TSK the host passes: CLBlast's direct
 * GEMM tiles K by its own size the same way. At the memory check's N = 32 and TSK = 8 there is
 * one tile of 32 and two barriers: "0.50 barriers per tile" counted per TSK. Not prefetching. */
#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
#endif
#ifndef TSK
#define TSK 32
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif
#define KD 32 /* the kernel's own depth along k: TSK is ignored */

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)

#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "TSM must be a multiple of WPTM and TSN a multiple of WPTN"
#endif
#if KD % (TSN / WPTN) != 0 || KD % (TSM / WPTM) != 0
#error "KD must be a multiple of both sides of the work-group"
#endif

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    int tx = get_local_id(0), ty = get_local_id(1);
    int row0 = get_group_id(1) * TSM, col0 = get_group_id(0) * TSN;
    __local float Asub[TSM][KD];
    __local float Bsub[KD][TSN];
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            acc[wm][wn] = 0.0f;
    for (int t = 0; t < N / KD; t++) {
        for (int r = ty; r < TSM; r += RTSM)
            for (int c = tx; c < KD; c += RTSN)
                Asub[r][c] = A[(row0 + r) * N + t * KD + c];
        for (int r = ty; r < KD; r += RTSM)
            for (int c = tx; c < TSN; c += RTSN)
                Bsub[r][c] = B[(t * KD + r) * N + col0 + c];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < KD; k++) {
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
}
