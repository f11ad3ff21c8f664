/* child.h - the programs the grader runs jailed, as `grader --harness` (harness.c, the OpenCL
 * kernel) and `grader --cuda-harness` (cuda_harness.c, the CUDA twin, over the driver binding of
 * cuda_driver.c). They decide nothing: they run one kernel and save what it computed;
 * exercise/protocol.h holds their flags and what the grader reads back. flags.c reads the numbers
 * and faults of their command lines (harness_flags.c the harness's whole). launch_layer.c, built on
 * its own (an LD_AUDIT module), goes into the student's host program and only reports its OpenCL
 * calls (protocol.h's records).
 */
#ifndef GRADER_CHILD_H
#define GRADER_CHILD_H

/* `grader --harness ...`: see harness.c for the flags. Returns the exit status. */
int grader_harness_main(int argc, char **argv);

/* `grader --cuda-harness ...`: runs a CUDA kernel for the grader (cuda_harness.c). */
int grader_cuda_harness_main(int argc, char **argv);

/* ---------------------------------------------------------------- command lines (flags.c) */

/* The getopt_long option string of every child: no short flags, stop at the first operand, and
 * ':' for a flag without its value, so that each fault has its own line. */
#define CHILD_OPTSTRING "+:"

/* The value of a number flag: digits only, in [min, max]. 0, or -1 with one line on stderr
 * naming `who` (the child) and the flag. */
int child_number(const char *who, const char *flag, const char *text, unsigned long long min,
                 unsigned long long max, unsigned long long *value);

/* One line on stderr for what getopt_long returned instead of a flag (`got`: '?' or ':'), or for
 * an operand left at argv[optind] once it returned -1 (got -1). */
void child_bad_flag(const char *who, int got, char **argv);

#endif
