/* Planted cheat: 00_vadd's host program with no OpenCL at all: a and b from the workbook's own
 * generator, c = a + b on the CPU, saved. The right result, no kernel built or launched: the
 * host points must be lost. */
#include "clu.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1 << 20, "c = a + b on the CPU");
    size_t n = (size_t)opt.n;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c)
        return 2;
    clu_random_fill(a, n, opt.seed, 0);
    clu_random_fill(b, n, opt.seed, 1);
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    return opt.output && clu_save_result(opt.output, c, n) != 0 ? 2 : 0;
}
