/* main.c - the grader's command line: a table of commands (grading, the default; the jailed
 * children; the benchmark; make tune), each its own parser in its wing's file (grade/
 * grade_command.c, tune/tune_command.c, bench/bench_command.c, child/). `make grade` runs it.
 */
#define _DEFAULT_SOURCE /* readlink */
#include "grader.h"
#include "grade/command.h"
#include "tune/tune.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the command table */

static void usage_commands(FILE *out); /* the table's lines, for grade's usage (below) */

static int grade_command(int argc, char **argv, const char *self) {
    return grader_grade_main(argc, argv, self, usage_commands);
}

static int harness_command(int argc, char **argv, const char *self) {
    (void)self;
    return grader_harness_main(argc, argv);
}

static int cuda_harness_command(int argc, char **argv, const char *self) {
    (void)self;
    return grader_cuda_harness_main(argc, argv);
}

static int list_command(int argc, char **argv, const char *self) {
    (void)self;
    if (argc > 1) {
        fprintf(stderr, "grader: --list takes no arguments (got \"%s\")\n", argv[1]);
        return EXIT_USAGE;
    }
    grader_list_exercises(stdout);
    return 0;
}

/* Each command the grader's first argument selects, with what it needs. */
static const struct command {
    const char *flag; /* argv[1] that selects it; NULL: the default, grading */
    int (*run)(int argc, char **argv, const char *self); /* argv from its flag on (grade: all) */
    int needs_self; /* reads the grader's own path (the jailed children do not: one failure less) */
    const char *what; /* one line for usage() */
} commands[] = {
    {HARNESS_COMMAND, harness_command, 0, "run one kernel for the grader (its jailed child)"},
    {CUDA_HARNESS_COMMAND, cuda_harness_command, 0,
     "run one CUDA kernel for the grader (its child)"},
    {"--bench", bench_main, 1, "the lecture's GFLOP/s table, measured here (make bench)"},
    {"--tune", grader_tune_main, 1, "search an exercise's tuning values on a device (make tune)"},
    {"--list", list_command, 0, "the exercises of the table: id, kind, points, extension, title"},
    {NULL, grade_command, 1, "grade a submission (the default: the flags above)"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage_commands(FILE *out) {
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-15s %s\n", commands[i].flag ? commands[i].flag : "(none)",
                commands[i].what);
}

int main(int argc, char **argv) {
    /* Large blocks from the heap, kept when freed: glibc maps each block over 32 MB afresh and
     * unmaps it at free, and a 64 MB C loaded at every timed round then cost 0.3 s of page faults
     * on a VM (16k faults) where reading it into the kept heap takes 5 ms */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    const struct command *cmd = &commands[COMMAND_COUNT - 1];
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (commands[i].flag && argc > 1 && strcmp(argv[1], commands[i].flag) == 0)
            cmd = &commands[i];
    char self[PATH_MAX] = "";
    if (cmd->needs_self) {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            fprintf(stderr, "grader: cannot find its own executable through /proc/self/exe\n");
            return EXIT_USAGE;
        }
        self[len] = '\0';
    }
    return cmd->flag ? cmd->run(argc - 1, argv + 1, self) : cmd->run(argc, argv, self);
}
