/* peak.cl - FP32 multiply-add throughput and copy bandwidth of a device.
 *
 * peak_float, peak_float4, peak_float8: work-item g runs PEAK_CHAINS = 8 independent
 * chains x = x*m + c (4 steps of each per iteration, loops iterations) on T-typed values
 * and stores the sum of its chains in out[g]; flops = 2 * 8 * 4 * loops * width(T) per
 * work-item. With m = 0.999 and c = 0.001 the chains stay near 1 (no overflow, no
 * denormals). The plain C loop it replaces, per work-item g:
 *     for (i = 0; i < loops; i++)
 *         for (s = 0; s < 4; s++)
 *             for (k = 0; k < 8; k++) x[k] = x[k] * m + c;
 *     out[g] = x[0] + ... + x[7];
 *
 * peak_copy: b[i] = a[i] over float4 elements, 1-D NDRange {elements}; bytes = 32 each.
 */

/* fma() is the device's fused multiply-add; the multiplier and addend are arguments, so nothing is
 * constant-folded, and every chain reaches the output, so none is dead code. */
#define PEAK_STEP                                                        \
    x0 = fma(x0, vm, vc); x1 = fma(x1, vm, vc); x2 = fma(x2, vm, vc); \
    x3 = fma(x3, vm, vc); x4 = fma(x4, vm, vc); x5 = fma(x5, vm, vc); \
    x6 = fma(x6, vm, vc); x7 = fma(x7, vm, vc);
#define PEAK_KERNEL(T)                                                           \
__kernel void peak_##T(const int loops, const float m, const float c,            \
                       __global T *out)                                          \
{                                                                                \
    const size_t g = get_global_id(0);                                           \
    const T vm = (T)(m), vc = (T)(c);                                            \
    T x0 = (T)((float)(g & 1023) * 1.0e-4f), x1 = x0 + (T)(0.125f);              \
    T x2 = x0 + (T)(0.25f), x3 = x0 + (T)(0.375f), x4 = x0 + (T)(0.5f);          \
    T x5 = x0 + (T)(0.625f), x6 = x0 + (T)(0.75f), x7 = x0 + (T)(0.875f);        \
    for (int i = 0; i < loops; i++) {                                            \
        PEAK_STEP PEAK_STEP PEAK_STEP PEAK_STEP                                  \
    }                                                                            \
    out[g] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));                  \
}
PEAK_KERNEL(float)
PEAK_KERNEL(float4)
PEAK_KERNEL(float8)

__kernel void peak_copy(__global const float4 *a, __global float4 *b)
{
    const size_t i = get_global_id(0);
    b[i] = a[i];
}
