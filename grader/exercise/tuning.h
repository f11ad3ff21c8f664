/* tuning.h - tuning values beyond a row's defaults: the candidates `make tune` tries and which of
 * them a launch can take (candidates.c), and the file that keeps the best per device
 * (tuning_file.c), which the grader's timed comparison and `make bench` read.
 *
 * The file, results/tuning/<device>.conf (the device's name made a file name), one line per
 * exercise and side, # comments, blank lines kept:
 *     09_register_blocking reference TSM=64 TSN=64 TSK=16 WPTM=8 WPTN=8  # 6.9 GFLOP/s at N = 512
 * `reference`: the values for solutions/' kernel; `submission`: for the student's own. A name the
 * line leaves out keeps the row's default.
 */
#ifndef GRADER_EXERCISE_TUNING_H
#define GRADER_EXERCISE_TUNING_H

#include "exercise/exercise.h"

#include <stddef.h>

/* ---------------------------------------------------------------- candidates (candidates.c) */

/* One set of tuning values: the row's names in its order, {NULL, 0} ends. */
struct grader_values {
    struct clu_define v[CLU_MAX_DEFINES + 1];
};

/* The row's defaults. */
struct grader_values grader_values_default(const struct grader_exercise *ex);

/* The variant that builds and launches with values (which must outlive it). */
struct grader_variant grader_values_variant(const struct grader_values *values);

/* "TSM=64 TSN=64 TSK=16"; "" for none. */
void grader_values_text(const struct grader_values *values, char *buf, size_t size);

/* Whether two sets hold the same values. */
int grader_values_equal(const struct grader_values *a, const struct grader_values *b);

/* Combinations of the row's candidates (1 when it has none: the defaults). */
long grader_grid_size(const struct grader_exercise *ex);

/* The combination at index (0 .. grader_grid_size - 1): the first candidate list varies
 * slowest; a tuning value without candidates keeps its default. */
struct grader_values grader_grid_point(const struct grader_exercise *ex, long index);

/* The index of values in the grid, or -1 when one of them is no candidate. */
long grader_grid_index(const struct grader_exercise *ex, const struct grader_values *values);

/* The combination next to index in the grid: the candidate list `list` (in the row's order of
 * candidates) one value up (step 1) or down (-1), the others as they are; -1 past either end. */
long grader_grid_neighbour(const struct grader_exercise *ex, long index, int list, int step);

/* Whether the row's launch can take values at the square size n: each of C's tile edges
 * (c_tile) a multiple of its work-item's share (per_item), n a multiple of every value the row
 * names in multiple_of, and the work-group no larger than max_group (0: no limit). 1, or 0 with
 * the reason in why. */
int grader_values_fit(const struct grader_exercise *ex, const struct grader_values *values, int n,
                      size_t max_group, char *why, size_t why_size);

/* ---------------------------------------------------------------- the file (tuning_file.c) */

enum grader_tuning_side { TUNING_REFERENCE, TUNING_SUBMISSION };

/* "reference" or "submission". */
const char *grader_tuning_side_name(enum grader_tuning_side side);

/* A device's name as a file name: letters, digits, '.', '-' and '_' kept, every other run of
 * bytes one '_', no '_' or '.' at either end, at most 100 bytes; "device" when nothing is left. */
void grader_tuning_device_file(const char *device, char *buf, size_t size);

/* dir/<the device's file name>.conf: 0, or -1 when it does not fit in size. */
int grader_tuning_path(const char *dir, const char *device, char *buf, size_t size);

/* One line of a tuning file. Returns 0 for a blank or comment line, 1 for an entry (its row, side
 * and values: the row's defaults with the line's in place; comment: what follows its '#', trimmed,
 * may be NULL), -1 when malformed, with why: no such exercise or one without tuning values, a
 * side that is neither word, no value, a word that is not NAME=VALUE, a name the row does not
 * have or one given twice, a value that is no whole number from 1 to 65536, or values the launch
 * cannot take (grader_values_fit). */
int grader_tuning_parse_line(const char *line, const struct grader_exercise **ex,
                             enum grader_tuning_side *side, struct grader_values *values,
                             char *comment, size_t comment_size, char *why, size_t why_size);

/* What a tuning file says for one row and side. */
struct grader_tuned {
    int line;                    /* the entry's line number (0: none) */
    struct grader_values values; /* its values (the row's defaults without one) */
    char comment[160];           /* its comment */
};

/* The first valid entry for ex (by id) of each side in the file at path, into found[side]
 * (line 0: none, or no file). Every malformed line about ex or about no exercise, and every later
 * entry for a side already found, is said in warnings, one line each ("FILE:LINE: why; the line
 * is ignored"), as far as they fit (warnings may be NULL). Returns 0, or -1 when the file exists
 * but cannot be read (said in warnings). */
int grader_tuning_lookup(const char *path, const struct grader_exercise *ex,
                         struct grader_tuned found[2], char *warnings, size_t warnings_size);

/* Set the line of id and side in the file at path to "ID SIDE VALUES  # COMMENT" (comment may be
 * NULL or ""): the first line for them (by its first two words) is replaced, or the line added at
 * the end; every other line is kept as it was. The file is written beside itself and renamed over
 * the old one, so a reader sees the old file or the new one, never a part. The folder is made
 * when missing. 0, or -1 with why. */
int grader_tuning_write(const char *path, const char *id, enum grader_tuning_side side,
                        const struct grader_values *values, const char *comment, char *why,
                        size_t why_size);

#endif
