/* tune.h - the tune wing: `make tune`'s search of an exercise's tuning values on a device
 * (tune.c), timed as the grader times (grade/timing_protocol.h), and its command line
 * (tune_command.c), which main.c's table runs. It sits above grade/, whose protocol and
 * canonical kernel text it uses; nothing in grade/ uses it.
 */
#ifndef GRADER_TUNE_H
#define GRADER_TUNE_H

#include "grade/grade.h"

#include <stddef.h>
#include <stdint.h>

/* What `grader --tune` searches and where its best goes. */
struct grader_tune_request {
    const struct grader_exercise *ex; /* a row with candidates (exercise.h) */
    const char *kernel;               /* the kernel.cl tuned (the reference's or a submission's) */
    int side;                         /* its line in the file: TUNING_REFERENCE or _SUBMISSION */
    const char *tuning_file;          /* the device's tuning file, where the best is kept */
    const char *device;               /* the device's name, for the report */
    size_t max_group;                 /* its largest work-group (CL_DEVICE_MAX_WORK_GROUP_SIZE) */
    double budget;                    /* seconds the whole search may take */
    uint64_t seed;                    /* the order of the random candidates */
};

/* The search (tune.c): the row's defaults first (which set the timed N: a launch of at least 20
 * ms where the device allows it), then the grid of candidates, every one where the budget allows
 * it, else a random sample and the neighbours of the best; each built with its values and timed
 * in a jailed serving harness as the grader times (timing_protocol.h), every round's C checked. A
 * progress line on stderr, then the table and the best on stdout, and the best kept in the tuning
 * file.
 * Returns 0 when a best was found and kept, 1 when nothing could be timed or kept. */
int grader_tune(const struct grader_config *cfg, const struct grader_tune_request *req);

/* --tune: search an exercise's tuning values on a device (make tune). */
int grader_tune_main(int argc, char **argv, const char *self);

#endif
