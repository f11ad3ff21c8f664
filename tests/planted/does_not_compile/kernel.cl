/* Planted bug: a missing semicolon; the grader must show the OpenCL build log. */
#ifndef BLOCK
#define BLOCK 16
#endif
__kernel void mmul(const int N, __global float *A, __global float *B, __global float *C,
                   __local float *Awrk, __local float *Bwrk)
{
    int i = get_global_id(0)
    C[i] = 0.0f;
}
