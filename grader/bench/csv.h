/* csv.h - bench.csv, written and read in one place: bench_command.c writes it, plot.c reads it (and
 * the slides read it by its header's names, slides/table.awk).
 *
 * One row per case x device x N, plus a peak and a bandwidth row per device (n 0). Columns:
 *   kind            baseline | kernel | vendor | peak | bandwidth
 *   case            the lecture's case name, for people ("C(i,j) per work-item, all global")
 *   device, driver  the OpenCL device (platform) and its driver and platform versions
 *   n               the matrix order (0 for peak and bandwidth)
 *   options         what the figure was measured with (build options, the library's version)
 *   repeats, min_s, median_s, max_s    the timed runs (empty for peak and bandwidth), in seconds
 *                   at n: scaled by (n / timed_n)^3 when the row was timed at a smaller N
 *   value, unit     GFLOP/s, or GB/s for bandwidth
 *   pct_peak        percent of the device's measured FP32 peak (may be empty)
 *   flops_per_byte  the kernel's arithmetic intensity counted under oclgrind (may be empty)
 *   key             the case for programs, stable where the case's words may change:
 *                   baseline:sequential, ex:<exercise id>[@b<BLOCK>], vendor:<library>, peak,
 *                   bandwidth.
 *   timed_n         the N actually timed: n, or a smaller N for a row whose timing at n would
 *                   have taken too long (its GFLOP/s is the one measured there; measure.h)
 *   tuning          a kernel's tuning values as built, "TS=32 WPT=8" (from 07 on), "BLOCK=8"
 *                   (a tiled kernel without them), else empty
 *   step            the exercise's id ("05_blocked_16x16") on the row that is the exercise at
 *                   its table's values (the GFLOP/s per step plot's points), else empty
 * New columns go last, so that every column keeps its number from earlier versions of this file
 * (readers by position keep working); readers by name take a file without the newer ones.
 * A text field that holds a comma, a quote or a line break is quoted as RFC 4180 says ("a, b" and
 * "" for a quote; a line break written as a space).
 */
#ifndef BENCH_CSV_H
#define BENCH_CSV_H

#include <stdio.h>

#define BENCH_CSV_HEADER                                                                           \
    "kind,case,device,driver,n,options,repeats,min_s,median_s,max_s,value,unit,pct_peak,"          \
    "flops_per_byte,key,timed_n,tuning,step"

/* ---------------------------------------------------------------- writing */

/* One row to write. Numbers that are NAN (and repeats 0) are written as empty fields. */
struct bench_csv_row {
    const char *kind, *name, *device, *driver; /* name: the case column */
    int n;                                     /* 0 for peak and bandwidth */
    const char *options;
    int repeats;                     /* 0: empty */
    double min_s, median_s, max_s;   /* seconds, %.9g */
    double value;                    /* %.3f */
    const char *unit;                /* GFLOP/s or GB/s */
    double pct_peak, flops_per_byte; /* %.2f and %.4f */
    const char *key;                 /* see above */
    int timed_n;                     /* 0: empty */
    const char *tuning, *step;       /* NULL: empty */
};

/* The header line, then each row; ferror(f) tells whether a write failed. */
void bench_csv_write_header(FILE *f);
void bench_csv_write_row(FILE *f, const struct bench_csv_row *r);

/* ---------------------------------------------------------------- reading */

/* A whole CSV file: the header's names and every later non-blank line split into fields. */
struct bench_csv {
    int columns;  /* fields of the header, and of every row */
    int rows;     /* lines after the header, blank ones left out */
    char **names; /* the header's fields */
    char **cells; /* rows x columns fields: cells[row * columns + column] */
    int *lines;   /* each row's line number in the file, for messages */
    char *text;   /* the file, which names and cells point into */
};

/* Read path into t. The first line (a byte-order mark skipped) must be a header that holds every
 * name of `required` (comma-separated, e.g. "kind,case,n,key"); each later line must have as many
 * fields as the header. Returns 0, or -1 with a one-line reason in why (t then empty). */
int bench_csv_read(const char *path, const char *required, struct bench_csv *t, char *why,
                   size_t why_size);

/* The index of the column with that name, or -1. */
int bench_csv_column(const struct bench_csv *t, const char *name);

/* The field of row at column (never NULL; "" for column -1). */
const char *bench_csv_cell(const struct bench_csv *t, int row, int column);

void bench_csv_free(struct bench_csv *t);

/* why set from fmt (when why_size > 0), and -1: the failure return of csv.c and the plots. */
int csv_fail(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
