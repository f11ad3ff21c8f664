/* kernel.cl - planted for 10_prefetch: an honest prefetching kernel that ignores TSK: tiles along
 * k of its own depth KD, double-buffered, one barrier per tile. Its technique is 10's: it must
 * keep the technique point, counted per the step of k it really takes. */
#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif
#define KD 16 /* the kernel's own depth along k, whatever TSK is */

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)

#if TSM % WPTM != 0 || TSN % WPTN != 0
#error "TSM must be a multiple of WPTM and TSN a multiple of WPTN"
#endif
#if KD % (TSN / WPTN) != 0 || KD % (TSM / WPTM) != 0
#error "KD must be a multiple of both sides of the work-group"
#endif

void load(const int N, const __global float *A, const __global float *B, int row0, int col0,
          int t, __local float As[TSM][KD], __local float Bs[KD][TSN])
{
    int tx = get_local_id(0), ty = get_local_id(1);
    for (int r = ty; r < TSM; r += RTSM)
        for (int c = tx; c < KD; c += RTSN)
            As[r][c] = A[(row0 + r) * N + t * KD + c];
    for (int r = ty; r < KD; r += RTSM)
        for (int c = tx; c < TSN; c += RTSN)
            Bs[r][c] = B[(t * KD + r) * N + col0 + c];
}

__kernel void mmul(const int N, const __global float *A, const __global float *B,
                   __global float *C)
{
    int tx = get_local_id(0), ty = get_local_id(1);
    int row0 = get_group_id(1) * TSM, col0 = get_group_id(0) * TSN;
    __local float Asub[2][TSM][KD];
    __local float Bsub[2][KD][TSN];
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            acc[wm][wn] = 0.0f;
    load(N, A, B, row0, col0, 0, Asub[0], Bsub[0]);
    for (int t = 0; t < N / KD; t++) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t + 1 < N / KD)
            load(N, A, B, row0, col0, t + 1, Asub[(t + 1) % 2], Bsub[(t + 1) % 2]);
        int cur = t % 2;
#pragma unroll
        for (int k = 0; k < KD; k++) {
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
}
