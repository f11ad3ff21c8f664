/* subgroups_text.h - 12's kernel text with sub-groups of the grader's own (subgroups_text.c),
 * for oclgrind 21.10, which has no cl_khr_subgroups: grade/subgroups.h says how the memory check
 * uses it.
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
#ifndef GRADER_TEXT_SUBGROUPS_TEXT_H
#define GRADER_TEXT_SUBGROUPS_TEXT_H

#include <stddef.h>

/* The sub-groups the grader gives a kernel. */
enum grader_sub_groups {
    SUB_GROUPS_ROW, /* dimension 0 of the work-group (get_local_size(0) work-items), in the order
                       of the local linear id: POCL's CPU device's choice */
    SUB_GROUPS_ONE, /* every work-item a sub-group of its own */
};

/* What a rewrite did. */
struct grader_sub_group_text {
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
int grader_sub_groups_rewrite(const char *text, size_t length, const char *kernel,
                              enum grader_sub_groups layout, int slots, char **out,
                              size_t *out_length, struct grader_sub_group_text *did);

/* The same from file in_path into out_path: 0, or -1 (the grader's trouble) or -2 (the kernel's)
 * with why. */
int grader_sub_groups_file(const char *in_path, const char *out_path, const char *kernel,
                           enum grader_sub_groups layout, int slots,
                           struct grader_sub_group_text *did, char *why, size_t why_size);

#endif
