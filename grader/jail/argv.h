/* argv.h - a growing argument vector for the programs the grader runs: push strings (copied),
 * push printf-formatted ones, hand argv (NULL-terminated) to exec. No fixed-size arrays: a
 * sandbox prefix of any length fits. Out of memory aborts (the grader cannot go on without it). */
#ifndef GRADER_ARGV_H
#define GRADER_ARGV_H

#include <stddef.h>

struct grader_argv {
    char **argv;     /* NULL-terminated; each string owned by the vector */
    size_t count;    /* strings pushed */
    size_t capacity; /* slots allocated, the NULL included */
};

#define GRADER_ARGV_INIT                                                                           \
    { NULL, 0, 0 }

void grader_argv_push(struct grader_argv *v, const char *arg);
void grader_argv_pushf(struct grader_argv *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Push every string of a NULL-terminated list. */
void grader_argv_push_all(struct grader_argv *v, const char *const *args);
/* Free the strings and the array; the vector is empty and reusable. */
void grader_argv_clear(struct grader_argv *v);

#endif
