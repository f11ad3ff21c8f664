/* child.h - the programs the grader runs jailed, as `grader --harness` (harness.c, the OpenCL
 * kernel) and `grader --cuda-harness` (cuda_harness.c, the CUDA twin). They decide nothing: they
 * run one kernel and save what it computed; protocol.h holds what the grader reads back.
 */
#ifndef GRADER_CHILD_H
#define GRADER_CHILD_H

/* `grader --harness ...`: see harness.c for the flags. Returns the exit status. */
int grader_harness_main(int argc, char **argv);

/* `grader --cuda-harness ...`: runs a CUDA kernel for the grader (cuda_harness.c). */
int grader_cuda_harness_main(int argc, char **argv);

#endif
