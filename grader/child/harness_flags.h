/* harness_flags.h - the command line of `grader --harness` (harness.c's top says what each flag
 * means): read into a struct, and the --define values applied to a row's tuning values.
 */
#ifndef GRADER_CHILD_HARNESS_FLAGS_H
#define GRADER_CHILD_HARNESS_FLAGS_H

#include "exercise/exercise.h"
#include "exercise/tuning.h"

#include <stddef.h>
#include <stdint.h>

/* What the command line says (see the top of the file). */
struct harness_flags {
    const char *id, *kernel, *out; /* --ex, --kernel, --out */
    const char *device;            /* --device; NULL: clu_env_open's default */
    int n, m, k;                   /* --n, --m, --k (0: N) */
    int block;                     /* --block; 0: the table row's BLOCK */
    int check;                     /* --check-tuning */
    uint64_t seed;                 /* --seed */
    size_t guard;                  /* floats of guard zone after C; 0 with --exact */
    int serving;                   /* --serve */
    int vendors;                   /* --vendors */

    const char *defines[CLU_MAX_DEFINES]; /* --define NAME=VALUE, as given */
    int define_count;                     /* how many */

    struct grader_size then[GRADER_MAX_SIZES]; /* --then M,N,K,SEED: sizes after --n's */
    uint64_t then_seed[GRADER_MAX_SIZES];      /* ... and their seeds */
    int then_count;                            /* how many */
};

/* The command line: 0, or HARNESS_USAGE after one line on stderr. */
int harness_read_flags(int argc, char **argv, struct harness_flags *f);

/* The --define values in place of the row's (values holds the variant's first): 0, or
 * HARNESS_USAGE after one line on stderr (a name the row has not, a value that is no number). */
int harness_apply_defines(const struct harness_flags *f, const struct grader_exercise *ex,
                          struct grader_variant *variant, struct grader_values *values);

#endif
