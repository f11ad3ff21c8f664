/* Planted cheat: the host program builds kernel.cl and enqueues mmul, but over half the rows
 * (a global size of N / 2, not N), and then saves C computed on the CPU with the library's
 * reference product. The result is right and a kernel ran, but not at the exercise's geometry:
 * the host points must be lost. */
#include "clu.h"

#include <stdlib.h>

int main(int argc, char **argv) {
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, 1024, "a launch over half the rows, C on the CPU");
    struct clu_env env;
    if (clu_env_open(&env, opt.device) != 0)
        return CLU_EXIT_OPENCL;
    cl_program program;
    cl_kernel kernel = clu_kernel_next_to_exe(&env, "mmul", "-DBLOCK=16", &program);
    size_t n = (size_t)opt.n, count = n * n, bytes = count * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    double *ref = malloc(count * sizeof *ref);
    if (!a || !b || !c || !ref)
        return 2;
    clu_random_fill(a, count, opt.seed, 0);
    clu_random_fill(b, count, opt.seed, 1);
    cl_int err, order = opt.n;
    cl_mem d[3];
    float *host[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        d[i] = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host[i],
                              &err);
        CLU_CHECK_ERR(err, "clCreateBuffer");
    }
    CLU_CHECK(clSetKernelArg(kernel, 0, sizeof order, &order));
    for (cl_uint i = 0; i < 3; i++)
        CLU_CHECK(clSetKernelArg(kernel, i + 1, sizeof(cl_mem), &d[i]));
    CLU_CHECK(clSetKernelArg(kernel, 4, sizeof(float) * n, NULL));
    size_t global = n / 2, local = clu_divisor_at_most(global, 64);
    CLU_CHECK(clEnqueueNDRangeKernel(env.queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    CLU_CHECK(clFinish(env.queue));
    clu_ref_gemm(opt.n, opt.n, opt.n, a, b, ref, NULL);
    for (size_t i = 0; i < count; i++)
        c[i] = (float)ref[i];
    return opt.output && clu_save_result(opt.output, c, count) != 0 ? 2 : 0;
}
