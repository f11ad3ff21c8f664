/* host_seen.h - the records of the grader's OpenCL layer (child/launch_layer.c) as
 * host_launches.c parses them, shared with host_args.c, which writes a launch's arguments. Files
 * of grade/ only. */
#ifndef GRADE_HOST_SEEN_H
#define GRADE_HOST_SEEN_H

#include "exercise/exercise.h"
#include "exercise/protocol.h"

#include <stddef.h>

#define MAX_SEEN     64    /* programs, kernels and launches the judgement keeps of each */
#define MAX_MESSAGES 10000 /* read from the channel at most */

struct seen_program {
    int id;
    size_t bytes;
    unsigned long long hash;
};
struct seen_kernel {
    int id, program;
    char name[LAYER_NAME_MAX + 1];
};
#define MAX_ARGS 8 /* the layer's (launch_layer.c) */
struct seen_arg {
    char kind; /* 0 not recorded; else the layer's: m buffer, i a 4-byte value, l local, o other */
    int buffer;
    long long value;
};
struct seen_launch {
    int kernel, status, has_local;
    unsigned dims;
    size_t offset[3], global[3], local[3];
    struct seen_arg args[MAX_ARGS]; /* the A records after its E */
};

struct seen_local {
    int kernel;
    unsigned long long needs, has;
};

/* A guard zone of the layer's found changed after a launch: a write past a buffer's end. */
struct seen_guard {
    int buffer, side, kernel; /* side 0 before the buffer's start, 1 after its end */
    size_t floats;
};

/* What the layer told, its records parsed. */
struct host_seen {
    int hello, foreign;
    struct seen_program programs[MAX_SEEN];
    struct seen_kernel kernels[MAX_SEEN];
    struct seen_launch launches[MAX_SEEN];
    struct seen_local locals[MAX_SEEN]; /* launches the layer failed: local memory past the limit */
    struct seen_guard guards[MAX_SEEN]; /* writes past a buffer's end */
    int program_count, kernel_count, launch_count, local_count, guard_count;
    int last_kept;                                   /* the last E record was kept */
    int exited;                                      /* the exit record came */
    long held, created, held_programs, held_kernels; /* what the program held at its exit */
};

/* Whether the layer's kernel id is one it saw created named name. */
int grade_host_kernel_named(const struct host_seen *s, int id, const char *name);

/* ", arguments N = 130, A: buffer #1 of 28000 bytes, ..." after out: l's arguments as the layer
 * saw them set, by the skeleton's names (nothing where none was recorded). */
void grade_host_args_text(const struct grader_exercise *ex, const struct seen_launch *l, char *out,
                          size_t size);

/* The same for the exercise's launch at size at: the ints' values, the buffers' bytes. */
void grade_host_plan_args_text(const struct grader_exercise *ex, struct grader_size at, char *out,
                               size_t size);

/* "\nwhere the arguments differ: M is 130 where the exercise's is 100; ..." after out, where l's
 * recorded arguments differ from the exercise's at size at (nothing where they agree). */
void grade_host_args_differ(const struct grader_exercise *ex, struct grader_size at,
                            const struct seen_launch *l, char *out, size_t size);

/* "\nthe kernel wrote past the end of C: ..." after out, for each guard zone the layer found
 * changed, the buffer named by the argument it was at a launch (nothing where none was). */
void grade_host_guards_text(const struct grader_exercise *ex, const struct host_seen *s, char *out,
                            size_t size);

#endif
