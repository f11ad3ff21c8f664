/* Planted bug: a host program that prints a perfect result and never runs the kernel. A grader
 * that reads what programs print would give it full marks. */
#include <stdio.h>

int main(void) {
    printf("C row per work-item, A row private\n");
    printf("device: pthread (Portable Computing Language)  N: 1024\n");
    printf("kernel: median 1.000 ms (min 1.000, max 1.000 over 5 runs)  2147.48 GFLOP/s\n");
    printf("verification: PASS (max error 0, all 1048576 elements within tolerance)\n");
    return 0;
}
