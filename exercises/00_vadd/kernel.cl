/* kernel.cl - 00_vadd: c = a + b, one element of c per work-item.
 *
 * Index convention: vectors of count floats; element i of a is a[i].
 * Work sizes: 1-D NDRange of exactly count work-items; i = get_global_id(0) is the element; the
 *             host passes no local size and lets the runtime choose.
 * Reference loop this replaces (the loop becomes the NDRange):
 *     for (i = 0; i < count; i++)
 *         c[i] = a[i] + b[i];
 */
__kernel void vadd(__global const float *a, __global const float *b, __global float *c,
                   const unsigned int count)
{
    unsigned int i = get_global_id(0);

    /* Contract: write c[i] = a[i] + b[i] for this work-item's i, guarded by `if (i < count)` so
     * that a global size rounded up past count would write nothing out of bounds.
     * Memory: read a[i] and b[i] from global memory, write exactly one element of c (c[i]);
     * write nothing else. One work-item per element, 1-D, no local size assumed. */
    /* TODO(student) begin */
    /* TODO(student) end */
}
