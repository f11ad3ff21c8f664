/* subgroups.h - the memory check of a kernel that uses sub-groups (cl_khr_subgroups, 12), which
 * oclgrind 21.10 does not implement: the grader writes sub-groups of its own into the canonical
 * text (subgroups_text.c) and checks that text under oclgrind, once with sub-groups of a row of
 * the work-group (as POCL's CPU device makes them) and once of one work-item (subgroups.c).
 *
 * The rewrite keeps every line of kernel.cl at its number (oclgrind names and quotes lines), adds
 * no directive and leaves nothing of the sub-group built-ins' names: the text builds on any
 * OpenCL 1.2 device and under oclgrind. Each call of a sub-group function becomes, on its own
 * line, a GNU statement expression that does what the function does: values are exchanged
 * through a __local array the grader declares in the kernel's body, between two barriers where
 * a sub-group is more than one work-item (POCL does the same), so the accesses that oclgrind
 * judges are at the student's line. A broadcast from a lane that is not in the sub-group reads
 * one element past that array: oclgrind reports it as an out-of-bounds read at that line.
 */
#ifndef GRADER_GRADE_SUBGROUPS_H
#define GRADER_GRADE_SUBGROUPS_H

#include "grade/internal.h"

#include <stddef.h>

/* The sub-groups the grader gives a kernel. */
enum grade_sub_groups {
    SUB_GROUPS_ROW, /* dimension 0 of the work-group (get_local_size(0) work-items), in the order
                       of the local linear id: POCL's CPU device's choice */
    SUB_GROUPS_ONE, /* every work-item a sub-group of its own */
};

/* What a rewrite did. */
struct grade_sub_group_text {
    int calls;    /* sub-group function calls rewritten */
    int injected; /* the exchange array was declared in the kernel's body */
    /* calls of a function that exchanges values (a broadcast, a reduction, a scan, all, any)
     * outside the kernel's body, where the array is not in scope: how many, the first's line and
     * name */
    int outside;
    int outside_line;
    char outside_name[40];
};

/* The array the exchanges go through: declared first in the kernel's body, `slots` elements (at
 * least the work-group's work-items; a lane outside the sub-group reads element `slots`). */
#define SUB_GROUP_SLOTS "__grader_sg_slots"

/* text (length bytes, a canonical text: no comments, no directive but #pragma lines) rewritten
 * for `layout` into *out (malloc'd, NUL-terminated, *out_length bytes, as many lines as text):
 * kernel names the __kernel function whose body gets the array. 0; -1 when memory runs out; -2
 * for a text no device builds in time (calls nested deeper than compilers take brackets, or a
 * rewrite past 64 MB). */
int grade_sub_groups_rewrite(const char *text, size_t length, const char *kernel,
                             enum grade_sub_groups layout, int slots, char **out,
                             size_t *out_length, struct grade_sub_group_text *did);

/* The same from file in_path into out_path: 0, or -1 (the grader's trouble) or -2 (the kernel's)
 * with why. */
int grade_sub_groups_file(const char *in_path, const char *out_path, const char *kernel,
                          enum grade_sub_groups layout, int slots, struct grade_sub_group_text *did,
                          char *why, size_t why_size);

/* Whether ex's memory check runs on the grader's sub-groups: a row that needs cl_khr_subgroups. */
int grade_sub_groups_emulated(const struct grader_exercise *ex);

/* The memory check of such a row (one test, the row's memcheck points): checked (the text the
 * runs under oclgrind build) rewritten for each layout and run under oclgrind as memcheck.c runs
 * any kernel; with all_right (the kernel was right at every hidden size), kernel (the canonical
 * text at the defaults) rewritten with sub-groups of one and run on the device at the first
 * hidden size, where it must be right too: the kernel's contract holds for every sub-group
 * size. dead: why nothing can run (""). */
void grade_test_sub_group_memcheck(const struct grader_config *cfg,
                                   const struct grader_exercise *ex, const char *kernel,
                                   const char *checked, int all_right, const char *dead,
                                   struct grader_exercise_result *r);

#endif
