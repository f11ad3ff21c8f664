/* kernel.cu - 13_fastest_sgemm: the CUDA twin of kernel.cl's sgemm, the same algorithm in CUDA.
 * C = A * B for any M, N, K >= 1: a TSM x TSN block of C per thread block, a WPTM x WPTN block of
 * it per thread in registers, TSM x TSK and TSK x TSN tiles of A and B in shared memory (A
 * transposed), double-buffered with one __syncthreads() per tile and the next tile's global loads
 * in flight during the multiply-adds, float4 loads where a tile lies inside its matrix, the edges
 * handled inside the kernel.
 *
 * Index convention: row-major; A is M x K, B is K x N, C is M x N:
 *     A(i,k) = A[i*K + k],  B(k,j) = B[k*N + j],  C(i,j) = C[i*N + j].
 * Work sizes: a grid of {roundup(N, TSN) / TSN, roundup(M, TSM) / TSM} blocks of
 *             {TSN / WPTN, TSM / WPTM} threads (CUDA counts blocks where OpenCL counts
 *             work-items: OpenCL's NDRange {roundup(N, TSN) / WPTN, roundup(M, TSM) / WPTM}).
 *             x runs along a row of C (the column j), as dimension 0 does in kernel.cl: block
 *             (blockIdx.x, blockIdx.y) computes the TSM x TSN block of C whose corner is
 *             (blockIdx.y*TSM, blockIdx.x*TSN); thread (tx, ty) = (threadIdx.x, threadIdx.y)
 *             owns its rows g*(RTSM*VWM) + ty*VWM + e (g < WPTM/VWM, e < VWM) and columns
 *             h*(RTSN*VWN) + tx*VWN + e (h < WPTN/VWN, e < VWN), as in kernel.cl, whose header
 *             explains the tile layout, the loads and the double buffering step by step.
 * Divisibility rules (checked below): WPTM divides TSM, WPTN TSN, VWM WPTM, VWN WPTN (VWM and
 *             VWN are 1, 2 or 4); 4 divides TSK and TSN; (TSM/WPTM)*(TSN/WPTN) divides
 *             TSM*TSK/4 and TSK*TSN/4. M, N and K need not be multiples of anything. The tuning
 *             values are fixed when nvcc compiles: make cuda CUDA_DEFINES="-DTSK=8". CUDA
 *             allows at most 48 KB of __shared__ arrays declared in the kernel (more only as
 *             dynamic shared memory, which the launch must ask for), so TSK is 16 here where
 *             kernel.cl's default is 32: the two pairs of tiles take 2 * (TSK*(TSM+4) +
 *             TSK*TSN) floats, 33 KB at TSK = 16.
 * Reference loop this replaces:
 *     for (i = 0; i < M; i++)
 *         for (j = 0; j < N; j++) {
 *             float acc = 0.0f;
 *             for (k = 0; k < K; k++)
 *                 acc += A[i*K + k] * B[k*N + j];
 *             C[i*N + j] = acc;
 *         }
 * OpenCL names and their CUDA twins, as in 06: __local -> __shared__, barrier -> __syncthreads,
 * get_local_id -> threadIdx, get_group_id -> blockIdx, reqd_work_group_size -> __launch_bounds__
 * (a bound, not a requirement: the host launches exactly that many threads). OpenCL's float4 has
 * arithmetic and .s0 ..; CUDA's float4 is a struct of x, y, z, w without operators, so here the
 * sums are plain floats and the vectors serve only the loads and stores.
 */
#ifndef TSM
#define TSM 128 /* rows of C (and of the A tile) per block */
#endif
#ifndef TSN
#define TSN 128 /* columns of C (and of the B tile) per block */
#endif
#ifndef TSK
#define TSK 16 /* length of a tile along K (kernel.cl's 32 needs 65 KB: see below) */
#endif
#ifndef WPTM
#define WPTM 8 /* rows of C per thread */
#endif
#ifndef WPTN
#define WPTN 8 /* columns of C per thread */
#endif
#ifndef VWM
#define VWM 4 /* rows of a thread side by side: one vector load of the A tile */
#endif
#ifndef VWN
#define VWN 4 /* columns of a thread side by side: one vector load of the B tile */
#endif

#define RTSM (TSM / WPTM)         /* threads along y */
#define RTSN (TSN / WPTN)         /* threads along x */
#define NT   (RTSM * RTSN)        /* threads of a block */
#define LPTA (TSM * TSK / 4 / NT) /* float4 runs of the A tile each thread loads */
#define LPTB (TSK * TSN / 4 / NT) /* float4 runs of the B tile each thread loads */
#define APAD (TSM + 4)            /* row length of the transposed A tile in shared memory */

#if TSM % WPTM != 0 || TSN % WPTN != 0 || WPTM % VWM != 0 || WPTN % VWN != 0
#error "tuning values: WPTM must divide TSM, WPTN TSN, VWM WPTM and VWN WPTN"
#endif
#if TSK % 4 != 0 || TSN % 4 != 0 || (TSM * TSK / 4) % NT != 0 || (TSK * TSN / 4) % NT != 0
#error "tuning values: 4 must divide TSK and TSN, and (TSM/WPTM)*(TSN/WPTN) TSM*TSK/4 and TSK*TSN/4"
#endif
#if (VWM != 1 && VWM != 2 && VWM != 4) || (VWN != 1 && VWN != 2 && VWN != 4)
#error "VWM and VWN must be 1, 2 or 4"
#endif

/* W floats from p (aligned to W floats) into out[0 .. W-1]: one vector load. */
template <int W> __device__ __forceinline__ void load_vec(const float *p, float *out);
template <> __device__ __forceinline__ void load_vec<1>(const float *p, float *out) {
    out[0] = *p;
}
template <> __device__ __forceinline__ void load_vec<2>(const float *p, float *out) {
    float2 v = *(const float2 *)p;
    out[0] = v.x, out[1] = v.y;
}
template <> __device__ __forceinline__ void load_vec<4>(const float *p, float *out) {
    float4 v = *(const float4 *)p;
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
}
/* in[0 .. W-1] to p (aligned to W floats): one vector store. */
template <int W> __device__ __forceinline__ void store_vec(float *p, const float *in);
template <> __device__ __forceinline__ void store_vec<1>(float *p, const float *in) {
    *p = in[0];
}
template <> __device__ __forceinline__ void store_vec<2>(float *p, const float *in) {
    *(float2 *)p = make_float2(in[0], in[1]);
}
template <> __device__ __forceinline__ void store_vec<4>(float *p, const float *in) {
    *(float4 *)p = make_float4(in[0], in[1], in[2], in[3]);
}

extern "C" __global__ void __launch_bounds__(NT)
    sgemm(const int M, const int N, const int K, const float *A, const float *B, float *C) {
    /* Contract: kernel.cl's, word for word: C(i,j) = sum over k < K of A(i,k) * B(k,j) for every
     * i < M, j < N of the block's part of C, with the thread's rows and columns of the header,
     * the tiles in __shared__ float Asub[2][TSK][APAD] (transposed) and Bsub[2][TSK][TSN]
     * (aligned to 16 bytes), ntiles + 1 steps of: fetch tile t into registers (float4 loads
     * where the tile lies inside its matrix and K or N is a multiple of 4, else element by
     * element with 0 outside), compute with tile t-1, store tile t into buffers t % 2,
     * __syncthreads(); then the stores to C (vector stores inside, element by element at the
     * edges, nothing outside C). Every thread reaches every __syncthreads(). */
    /* TODO(student) begin */
    __shared__ __align__(16) float Asub[2][TSK][APAD];
    __shared__ __align__(16) float Bsub[2][TSK][TSN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * RTSN + tx;
    const int row0 = blockIdx.y * TSM, col0 = blockIdx.x * TSN;
    const int ntiles = (K + TSK - 1) / TSK;
    const bool rows_in = row0 + TSM <= M, cols_in = col0 + TSN <= N;
    const bool a_vec = rows_in && K % 4 == 0, b_vec = cols_in && N % 4 == 0;

    float acc[WPTM][WPTN];
#pragma unroll
    for (int wm = 0; wm < WPTM; wm++)
#pragma unroll
        for (int wn = 0; wn < WPTN; wn++)
            acc[wm][wn] = 0.0f;

    for (int t = 0; t <= ntiles; t++) {
        const int k0 = t * TSK;
        float ra[LPTA][4], rb[LPTB][4]; /* tile t on its way from global to shared memory */
        if (t < ntiles) {
            const bool k_in = k0 + TSK <= K;
#pragma unroll
            for (int l = 0; l < LPTA; l++) {
                const int q = tid + l * NT, m = q / (TSK / 4), k = 4 * (q - m * (TSK / 4));
                const int i = row0 + m, kk = k0 + k;
                if (a_vec && k_in) {
                    load_vec<4>(&A[i * K + kk], ra[l]);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        ra[l][e] = i < M && kk + e < K ? A[i * K + kk + e] : 0.0f;
                }
            }
#pragma unroll
            for (int l = 0; l < LPTB; l++) {
                const int q = tid + l * NT, k = q / (TSN / 4), n = 4 * (q - k * (TSN / 4));
                const int kk = k0 + k, j = col0 + n;
                if (b_vec && k_in) {
                    load_vec<4>(&B[kk * N + j], rb[l]);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        rb[l][e] = kk < K && j + e < N ? B[kk * N + j + e] : 0.0f;
                }
            }
        }
        if (t > 0) {
            const int cur = (t - 1) % 2;
#pragma unroll
            for (int k = 0; k < TSK; k++) {
                float a[WPTM], b[WPTN];
#pragma unroll
                for (int g = 0; g < WPTM / VWM; g++)
                    load_vec<VWM>(&Asub[cur][k][g * RTSM * VWM + ty * VWM], &a[g * VWM]);
#pragma unroll
                for (int h = 0; h < WPTN / VWN; h++)
                    load_vec<VWN>(&Bsub[cur][k][h * RTSN * VWN + tx * VWN], &b[h * VWN]);
#pragma unroll
                for (int wm = 0; wm < WPTM; wm++)
#pragma unroll
                    for (int wn = 0; wn < WPTN; wn++)
                        acc[wm][wn] += a[wm] * b[wn];
            }
        }
        if (t < ntiles) {
#pragma unroll
            for (int l = 0; l < LPTA; l++) {
                const int q = tid + l * NT, m = q / (TSK / 4), k = 4 * (q - m * (TSK / 4));
#pragma unroll
                for (int e = 0; e < 4; e++)
                    Asub[t % 2][k + e][m] = ra[l][e];
            }
#pragma unroll
            for (int l = 0; l < LPTB; l++) {
                const int q = tid + l * NT, k = q / (TSN / 4), n = 4 * (q - k * (TSN / 4));
                store_vec<4>(&Bsub[t % 2][k][n], rb[l]);
            }
        }
        __syncthreads();
    }

    const bool c_vec = rows_in && cols_in && N % VWN == 0;
#pragma unroll
    for (int wm = 0; wm < WPTM; wm++) {
        const int g = wm / VWM, i = row0 + g * RTSM * VWM + ty * VWM + (wm - g * VWM);
#pragma unroll
        for (int h = 0; h < WPTN / VWN; h++) {
            const int j = col0 + h * RTSN * VWN + tx * VWN;
            if (c_vec) {
                store_vec<VWN>(&C[i * N + j], &acc[wm][h * VWN]);
            } else {
#pragma unroll
                for (int e = 0; e < VWN; e++)
                    if (i < M && j + e < N)
                        C[i * N + j + e] = acc[wm][h * VWN + e];
            }
        }
    }
    /* TODO(student) end */
}
