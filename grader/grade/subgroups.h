/* subgroups.h - the memory check of a kernel that uses sub-groups (cl_khr_subgroups, 12), which
 * oclgrind 21.10 does not implement: the grader writes sub-groups of its own into the canonical
 * text (text/subgroups_text.h) and checks that text under oclgrind, once with sub-groups of a row
 * of the work-group (as POCL's CPU device makes them) and once of one work-item (subgroups.c).
 */
#ifndef GRADER_GRADE_SUBGROUPS_H
#define GRADER_GRADE_SUBGROUPS_H

#include "grade/internal.h"
#include "text/subgroups_text.h"

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
