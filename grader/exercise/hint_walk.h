/* hint_walk.h - hints of how a kernel walks A and B (hint_walk.c). */
#ifndef GRADER_EXERCISE_HINT_WALK_H
#define GRADER_EXERCISE_HINT_WALK_H

#include "exercise/exercise.h"

#include <stddef.h>
#include <stdint.h>

/* Whether got is within tol of want (a NaN never is): the one test of an element both hint files
 * use. */
int grader_close_to(float got, double want, double tol);

/* For a wrong C of any shape s (M x N, row-major, from the inputs of seed; expected and tol the
 * reference's): 1 with a hint in hint when the wrong elements fit one model of the sum: a sum
 * never reset between elements of a row or column, the sum of only the first terms of K (the
 * last partial tile dropped), A or B read with another row length or transposed; else 0. */
int grader_walk_hint(struct grader_size s, uint64_t seed, const float *got, const double *expected,
                     const double *tol, char *hint, size_t size);

#endif
