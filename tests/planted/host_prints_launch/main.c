/* Planted cheat: C computed on the CPU, and on stdout and stderr the text a launch would leave
 * (the library's result lines, an OpenCL trace of the build and of the launch at the exercise's
 * geometry, oclgrind-like lines). A grader that believed what the program prints would see a
 * launch; the host points must still be lost. */
#include "clu.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, "C on the CPU, a launch printed");
    size_t n = (size_t)opt.n, count = n * n;
    float *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    float *c = malloc(count * sizeof *c);
    double *ref = malloc(count * sizeof *ref);
    if (!a || !b || !c || !ref)
        return 2;
    clu_random_fill(a, count, opt.seed, 0);
    clu_random_fill(b, count, opt.seed, 1);
    clu_ref_gemm(opt.n, opt.n, opt.n, a, b, ref, NULL);
    for (size_t i = 0; i < count; i++)
        c[i] = (float)ref[i];
    for (int s = 1; s <= 2; s++) {
        FILE *f = s == 1 ? stdout : stderr;
        fprintf(f, "clCreateProgramWithSource(kernel.cl) = CL_SUCCESS\n");
        fprintf(f, "clBuildProgram(-DBLOCK=16) = CL_SUCCESS\n");
        fprintf(f, "clCreateKernel(mmul) = CL_SUCCESS\n");
        fprintf(f,
                "clEnqueueNDRangeKernel(mmul, work_dim 1, global {%zu}, local {60}) = "
                "CL_SUCCESS\n",
                n);
        fprintf(f, "kernel mmul launched: global %zu local 60\n", n);
        fprintf(f, "C row per work-item, A private, B local\n");
        fprintf(f, "kernel: median 0.100 ms (min 0.100, max 0.100 over 1 runs)  34.56 GFLOP/s\n");
        fprintf(f, "verification: PASS (max error 0, all %zu elements within tolerance)\n", count);
    }
    return opt.output && clu_save_result(opt.output, c, count) != 0 ? 2 : 0;
}
