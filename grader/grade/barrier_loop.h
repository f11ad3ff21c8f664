/* barrier_loop.h - does a kernel's text call a barrier and have a loop that no `if` encloses? On
 * POCL (a CPU device) the innermost loops of a kernel with barriers that every work-item provably
 * runs alike are what its implicit-loop-barrier pass turns into loops over the work-items, each
 * one's variables kept in memory: 2 to 3 times slower than the same loop inside an always-true
 * `if (i < N)`, which the references of 04 and 05 have for that reason (04's README). The timed
 * comparison names the cause and the fix when it times a kernel like that on a CPU device
 * (perf_test.c), whatever its ratio; it changes no score. */
#ifndef GRADER_GRADE_BARRIER_LOOP_H
#define GRADER_GRADE_BARRIER_LOOP_H

#include <stddef.h>

/* A copy of text (len bytes) with comments, strings, character constants and preprocessor lines
 * made blanks, its newlines kept (malloc'd, NUL-terminated; NULL when out of memory): the text
 * the kernel's notes read (kernel_printf.c too). */
char *grade_plain_text(const char *text, size_t len);

/* 1 when text (len bytes, OpenCL C, comments and strings ignored) calls barrier() or
 * work_group_barrier() and has a for, while or do loop in a kernel function's body (`kernel` or
 * `__kernel` in its declaration, not through a macro) that no if or else encloses, else 0. */
int grade_barrier_loop_unwrapped(const char *text, size_t len);

/* The same for the file at path (its first megabyte); 0 where it cannot be read. */
int grade_barrier_loop_unwrapped_file(const char *path);

#endif
