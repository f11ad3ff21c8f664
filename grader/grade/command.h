/* command.h - the grade command (grade_command.c, the grader's default), which main.c's table of
 * commands runs, and what its command line shares with make tune's (tune/tune_command.c):
 * command_args.c.
 */
#ifndef GRADER_GRADE_COMMAND_H
#define GRADER_GRADE_COMMAND_H

#include "grade/grade.h"

#include <stdint.h>
#include <stdio.h>

#define EXIT_FULL  0 /* every point */
#define EXIT_LOST  1 /* some point lost */
#define EXIT_USAGE 2 /* the grader could not grade (bad flags, unwritable results) */
#define EXIT_BUSY  3 /* not graded: the machine was too busy to grade fairly */

/* Prints the grader's other commands, one line each, for the grade command's usage. */
typedef void (*grader_commands_fn)(FILE *out);

/* The default command: grade a submission (its usage lists the commands through commands). */
int grader_grade_main(int argc, char **argv, const char *self, grader_commands_fn commands);

/* grader --anchor (anchor.c): the capstone's anchor of each row of `chosen` that has
 * vendor_ratios timed now (or found kept), at each size a comparison would reach, and said; on a
 * quiet machine before a batch, so that its gradings find it kept. EXIT_FULL, or EXIT_BUSY where
 * one could not be timed. */
int grade_anchor_command(const struct grader_config *cfg, const struct grader_exercise *rows,
                         const int *chosen, int count);

/* ---------------------------------------------------------------- shared (command_args.c) */

/* A seed nobody can guess, from /dev/urandom (the time and pid where it cannot be read). */
uint64_t grader_hidden_seed(void);

/* --timeout: seconds, the whole text a finite number >= 0 (0: the default). 0, or -1. */
int grader_parse_seconds(const char *text, double *out);

/* --seed: decimal digits only (strtoull would take a sign, spaces and a wrap-around). 0, or -1. */
int grader_parse_seed(const char *text, uint64_t *out);

/* A value that is no number of the kind the flag wants: one line, the usage exit status. */
int grader_bad_number(const char *flag, const char *value, const char *want);

/* Absolute form of a path that must exist, or exit with a message. */
const char *grader_absolute(const char *path, const char *what);

/* Whether bubblewrap is installed and can make a sandbox here (it cannot inside some
 * containers); says so in one line when it cannot. */
int grader_sandbox_works(const struct grader_config *cfg);

#endif
