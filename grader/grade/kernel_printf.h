/* kernel_printf.h - does a kernel's text call printf? (kernel_printf.c) */
#ifndef GRADER_GRADE_KERNEL_PRINTF_H
#define GRADER_GRADE_KERNEL_PRINTF_H

#include <stddef.h>

/* The line (from 1) of text's first call of printf (len bytes of OpenCL C; comments, strings and
 * preprocessor lines ignored), or 0 where it has none. */
int grade_kernel_printf_line(const char *text, size_t len);

#endif
