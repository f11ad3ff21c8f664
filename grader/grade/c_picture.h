/* c_picture.h - a wrong C drawn as a small SVG for the student: one cell per element (per block of
 * elements when C is larger than C_PICTURE_CELLS a side), coloured right, wrong, exactly zero,
 * never written (the grader's fill, CLU_UNWRITTEN_BITS) or a NaN computed, with a legend. A C
 * larger than C_PICTURE_CELLS a side gets a zoom beside the whole: C_PICTURE_CELLS x
 * C_PICTURE_CELLS elements around the first faulty one, one cell per element, so a pattern that
 * blocks merge away (a right element between wrong ones) still shows. Drawn by the grader's own
 * process from the C it loaded, never by the student's code. */
#ifndef GRADER_GRADE_C_PICTURE_H
#define GRADER_GRADE_C_PICTURE_H

#include <stddef.h>

#define C_PICTURE_CELLS 64 /* at most this many cells a side */
#define C_PICTURE_CELL  24 /* a cell's side at most, in pixels: a 1 x 1 C is drawn small */

/* What an element (or a cell) is; also the legend's order. C_ZERO is an element exactly 0 where
 * the expected value is not within tolerance of 0: a C never summed into, or a band a kernel
 * skipped, shows as such. A cell of several elements takes the fault most of its elements have;
 * a tie goes to the later kind here, which names its cause more closely (a zero is a particular
 * wrong value; never written and NaN say more than any value). Right only when all are. */
enum c_kind { C_RIGHT, C_WRONG, C_ZERO, C_UNWRITTEN, C_NAN, C_KINDS };

/* An element's kind: got against expected within tol (NaN and infinity are never right). */
enum c_kind c_picture_kind(float got, double expected, double tol);

/* Draw C (rows x cols, row-major) as an SVG at path, titled title (plain text; escaped here).
 * Returns 0, or -1 when the file cannot be written. */
int c_picture_write(const char *path, const char *title, const float *got, const double *expected,
                    const double *tol, size_t rows, size_t cols);

#endif
