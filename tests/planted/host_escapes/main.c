/* Planted attack: a host program that reads the reference solution and tries to replace files of
 * the workbook (relative to the grader's working folder, the workbook root under make test).
 * In the grader's sandbox neither works, and the program then computes its result honestly; if
 * either works, it saves no result and loses the host-program points. */
#include "clu.h"

#include <stdio.h>

static cl_int set_args(struct clu_mm *mm) {
    cl_int n = mm->opt.n;
    CLU_CHECK(clSetKernelArg(mm->kernel, 0, sizeof n, &n));
    CLU_CHECK(clSetKernelArg(mm->kernel, 1, sizeof(cl_mem), &mm->a));
    CLU_CHECK(clSetKernelArg(mm->kernel, 2, sizeof(cl_mem), &mm->b));
    CLU_CHECK(clSetKernelArg(mm->kernel, 3, sizeof(cl_mem), &mm->c));
    return CL_SUCCESS;
}

static cl_int launch(struct clu_mm *mm, cl_event *done) {
    size_t global[2] = {(size_t)mm->opt.n, (size_t)mm->opt.n};
    return clEnqueueNDRangeKernel(mm->env.queue, mm->kernel, 2, NULL, global, NULL, 0, NULL, done);
}

int main(int argc, char **argv) {
    FILE *solution = fopen("solutions/01_per_element/kernel.cl", "r");
    FILE *planted = fopen("build/planted-escape", "w");
    if (solution || planted) {
        puts(solution ? "read the reference solution" : "wrote into the workbook");
        return 0;
    }
    static const struct clu_mm_exercise exercise = {
        .title = "C(i,j) per work-item, all global",
        .kernel_name = "mmul",
        .default_n = 1024,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
