/* Planted cheat: a host program that never touches OpenCL. It fills A and B with the workbook's
 * own generator, computes C on the CPU with the library's reference product and saves it: the
 * right result, with no kernel built or launched. The host points are for host code that drives
 * the device, so it must lose them. */
#include "clu.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, "C on the CPU");
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
    return opt.output && clu_save_result(opt.output, c, count) != 0 ? 2 : 0;
}
