/* c_picture.h - a wrong C drawn as a small SVG for the student: one cell per element (per block of
 * elements when C is larger than C_PICTURE_CELLS a side), coloured right, wrong, never written
 * (the grader's fill, CLU_UNWRITTEN_BITS) or a NaN computed, with a legend. Drawn by the grader's
 * own process from the C it loaded, never by the student's code. */
#ifndef GRADER_GRADE_C_PICTURE_H
#define GRADER_GRADE_C_PICTURE_H

#include <stddef.h>

#define C_PICTURE_CELLS 64 /* at most this many cells a side */

/* What an element (or a cell) is, in the order a cell of mixed elements prefers its fault. */
enum c_kind { C_RIGHT, C_WRONG, C_UNWRITTEN, C_NAN, C_KINDS };

/* An element's kind: got against expected within tol (NaN and infinity are never right). */
enum c_kind c_picture_kind(float got, double expected, double tol);

/* Draw C (rows x cols, row-major) as an SVG at path, titled title (plain text; escaped here).
 * A cell of several elements takes the kind most of its faulty elements have (right only when
 * all are). Returns 0, or -1 when the file cannot be written. */
int c_picture_write(const char *path, const char *title, const float *got, const double *expected,
                    const double *tol, size_t rows, size_t cols);

#endif
