/* findings.h - oclgrind's --log file read and summarised for a student: what it found, counted by
 * kind, and each place once (a data race with both of its accesses), named by kernel.cl's line
 * numbers. The memory check (memcheck.c) and the host program's run under oclgrind
 * (host_oclgrind.c) read their logs with it. */
#ifndef GRADER_OCLGRIND_FINDINGS_H
#define GRADER_OCLGRIND_FINDINGS_H

#include <stddef.h>

/* oclgrind's --max-errors: high enough that the hundreds of uninitialised stores of C that a
 * missing barrier causes (one per element) leave room for the races that cause them, which
 * oclgrind reports only at the barrier or the end of the work-group; at about 450 bytes an entry
 * the log stays near 2 MB */
#define FINDINGS_MAX_ERRORS "5000"
/* ... and what oclgrind writes to its log on reaching it, after which it writes nothing more:
 * where a run under it is stopped (jail.h's done_when), its findings complete */
#define FINDINGS_CAPPED_TAIL "errors generated - suppressing further errors"
#define FINDINGS_MAX_BYTES   (8u << 20) /* of a log read: --max-errors keeps a true one smaller */

/* oclgrind's checks, as every run of a student's code under it takes them (argv entries), but
 * the one for uninitialised values (OCLGRIND_UNINITIALIZED). Its simulated device offers 32 KiB
 * of local memory and groups of 1024 by default: 10's and 13's tiles at their graded values take
 * 64 KiB, and a tuning file's values may take more of both (what the graded device allows is
 * checked on the device itself) */
#define OCLGRIND_CHECKS                                                                            \
    "--data-races", "--check-api", "--max-errors", FINDINGS_MAX_ERRORS, "--local-mem-size",        \
        "1048576", "--max-wgsize", "4096"
/* ... the check for uninitialised values: the one that stops on LLVM's `freeze` in 21.10 */
#define OCLGRIND_UNINITIALIZED "--uninitialized"
/* ... and its build of the kernel without LLVM's optimisations: what it runs where it cannot
 * interpret the optimised build (21.10 and the `freeze` of a signed / and % of the same numbers;
 * about 8 times slower, 3 times the memory) */
#define OCLGRIND_UNOPTIMISED "--build-options", "-cl-opt-disable"
/* time limits of the runs under oclgrind, in the grader's --timeout */
#define OCLGRIND_PACE             3
#define OCLGRIND_UNOPTIMISED_PACE 12
#define FINDINGS_MAX_PLACES       12 /* places kept; the others are counted */

enum grader_finding_kind {
    FINDING_READ_OUT,    /* Invalid read ... at <space> memory address */
    FINDING_WRITE_OUT,   /* Invalid write ... */
    FINDING_RACE_LOCAL,  /* ... data race at local memory address */
    FINDING_RACE_GLOBAL, /* ... data race at global memory address */
    FINDING_UNINIT,      /* Uninitialized value ... */
    FINDING_DIVERGENCE,  /* Work-group divergence detected ... */
    FINDING_UNALIGNED,   /* Invalid memory load/store - ... pointer is not aligned ... */
    FINDING_API,         /* Oclgrind - OpenCL runtime error detected (--check-api) */
    FINDING_OTHER,       /* anything else oclgrind said */
    FINDING_KINDS
};

/* One place: the entries of one kind at the same lines of kernel.cl (or, for an API error, the
 * same function, error and explanation). */
struct grader_finding_place {
    enum grader_finding_kind kind;
    size_t count;
    char title[100];  /* oclgrind's first line less its address: "Invalid write of size 4 at
                         local memory" */
    char detail[200]; /* an API error: "clEnqueueNDRangeKernel: CL_INVALID_WORK_GROUP_SIZE:
                         local_work_size[0]=7 does not divide global_work_size[0]=24" */
    int lines;        /* source lines below: 0, 1, or 2 (a race's two accesses, a divergence's
                         two barriers) */
    int line[2], column[2];
    char source[2][90]; /* the text of each line, as oclgrind quotes it */
};

struct grader_findings {
    size_t counts[FINDING_KINDS]; /* entries by kind */
    size_t total;                 /* entries (oclgrind's own "Oclgrind: ..." notes left out) */
    int capped;                   /* oclgrind stopped reporting at --max-errors */
    int blank;                    /* the log holds only white space (or is missing) */
    /* "OCLGRIND FATAL ERROR" entries: oclgrind could not interpret the kernel (an instruction it
     * does not know), so it checked nothing there; not findings, not in total or counts */
    size_t fatal;
    char fatal_what[100]; /* the first one's words: "Unsupported instruction: freeze" */
    size_t place_count;
    size_t left_out; /* entries whose place did not fit in places */
    struct grader_finding_place places[FINDINGS_MAX_PLACES];
};

/* Read oclgrind's log at path: a plain file with one link, opened without following a link or
 * blocking, at most FINDINGS_MAX_BYTES of it. A missing file reads as blank. 0, or -1 with why
 * set when it is there but is not such a file. */
int grader_read_findings(const char *path, struct grader_findings *f, char *why, size_t why_size);

/* The student's summary: "oclgrind found: 3 out-of-bounds writes; ..." with a hint for each kind
 * (kernel_hints: the hints about kernel code; local_race_hint: the step's own for a race in local
 * memory, NULL: the general one), then each place with its lines of kernel.cl. */
void grader_describe_findings(const struct grader_findings *f, int kernel_hints,
                              const char *local_race_hint, char *out, size_t size);

#endif
