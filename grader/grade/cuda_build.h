/* cuda_build.h - the CUDA twin's build (cuda_build.c), for cuda.c.
 */
#ifndef GRADER_GRADE_CUDA_BUILD_H
#define GRADER_GRADE_CUDA_BUILD_H

#include "grade/grade.h"
#include "exercise/tuning.h"

#include <stddef.h>

/* Where nvcc is: on $PATH, else where the CUDA toolkit installs it. 0, or -1 if nowhere. */
int grader_find_nvcc(char *path, size_t size);

/* nvcc kernel.cu -> kernel.fatbin in dir, sandboxed like a student's build: for the GPU's own
 * architecture (machine code and PTX), or nvcc's default where nvcc does not know that GPU; with
 * -DBLOCK=block where the variant has no tuning values, else -D for each. Returns 0, or -1 with
 * the compiler's output in *log (malloc'd). */
int grader_cuda_build(const struct grader_config *cfg, const char *nvcc, const char *dir,
                      int capability, const struct grader_variant *variant, int block, char **log);

#endif
