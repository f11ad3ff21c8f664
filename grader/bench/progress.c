/* progress.c - the progress line of `grader --bench` on stderr: which row is being timed, how
 * many are left and about how long they will take, judged from the rows done so far. A bench at
 * N = 4096 runs for many minutes, and without it the only sign of life is a row that started
 * long ago. On a terminal the line is rewritten in place; elsewhere (a log) one line per row.
 */
#include "bench/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the estimate */

/* The mean seconds of the steps done at size n, and how many there were. */
static double mean_at(const int *done_n, const double *done_s, int done, int n, int *count) {
    double sum = 0;
    *count = 0;
    for (int i = 0; i < done; i++)
        if (done_n[i] == n) {
            sum += done_s[i];
            (*count)++;
        }
    return *count ? sum / *count : 0;
}

double bench_eta(const int *done_n, const double *done_s, int done, const int *left_n, int left,
                 double cap) {
    double total = 0;
    for (int i = 0; i < left; i++) {
        int n = left_n[i], count, nearest = -1;
        double mean = mean_at(done_n, done_s, done, n, &count);
        if (count) {
            total += mean;
            continue;
        }
        /* none done at this size yet: the nearest size done (the larger of two as near, as its
         * figure is the less swayed by fixed costs), scaled by the work, N^3. Steps of N 0 (a
         * device's peak) are a kind of their own, neither scaled nor scaling. */
        for (int j = 0; j < done; j++) {
            if (n == 0 || done_n[j] <= 0)
                continue;
            int here = abs(done_n[j] - n), best = abs(nearest - n);
            if (nearest < 0 || here < best || (here == best && done_n[j] > nearest))
                nearest = done_n[j];
        }
        if (nearest < 0)
            return -1; /* nothing like it done yet */
        mean = mean_at(done_n, done_s, done, nearest, &count);
        double ratio = (double)n / nearest;
        total += fmin(cap, mean * ratio * ratio * ratio);
    }
    return total;
}

void bench_duration_text(char *buf, size_t size, double seconds) {
    long s = lround(seconds);
    if (!(seconds >= 0.5))
        snprintf(buf, size, "less than 1 s");
    else if (s < 60)
        snprintf(buf, size, "%ld s", s);
    else if (s < 3600)
        snprintf(buf, size, "%ld min %02ld s", s / 60, s % 60);
    else {
        long minutes = lround(seconds / 60);
        snprintf(buf, size, "%ld h %02ld min", minutes / 60, minutes % 60);
    }
}

void bench_progress_text(char *buf, size_t size, int step, int total, double eta,
                         const char *what) {
    char left[64];
    if (step >= total)
        snprintf(left, sizeof left, "the last one");
    else
        snprintf(left, sizeof left, "%d after it", total - step);
    if (eta < 0) {
        snprintf(buf, size, "row %d of %d, %s, time left not known yet: %s", step, total, left,
                 what);
        return;
    }
    char duration[48];
    bench_duration_text(duration, sizeof duration, eta);
    snprintf(buf, size, "row %d of %d, %s, %s%s left: %s", step, total, left,
             eta < 0.5 ? "" : "about ", duration, what);
}

/* ---------------------------------------------------------------- the line */

struct bench_progress {
    int total, done;    /* steps */
    int *n;             /* each step's N, in order */
    double *seconds;    /* each step done: how long it took */
    double started;     /* bench_now() when the step running began */
    double all_started; /* and when the first began */
    int running;        /* a step is running */
    int tty;            /* stderr is a terminal: one line rewritten */
    int shown;          /* the line is on the terminal now */
};

void bench_progress_start(struct bench *b, const int *step_n, int total) {
    struct bench_progress *p = calloc(1, sizeof *p);
    if (!p)
        return; /* no progress line: the bench itself goes on */
    p->n = malloc(((size_t)total + 1) * sizeof *p->n);
    p->seconds = calloc((size_t)total + 1, sizeof *p->seconds);
    if (!p->n || !p->seconds) {
        free(p->n);
        free(p->seconds);
        free(p);
        return;
    }
    memcpy(p->n, step_n, (size_t)total * sizeof *p->n);
    p->total = total;
    p->tty = isatty(STDERR_FILENO);
    p->all_started = p->started = bench_now();
    b->progress = p;
}

void bench_progress_clear(struct bench *b) {
    struct bench_progress *p = b->progress;
    fflush(stdout); /* what the row printed, before the line that follows it */
    if (p && p->tty && p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = 0;
    }
}

/* The step running now is over: its time kept for the estimate. */
static void step_over(struct bench_progress *p) {
    if (p->running && p->done < p->total)
        p->seconds[p->done++] = bench_now() - p->started;
    p->running = 0;
}

void bench_progress_step(struct bench *b, const char *what) {
    struct bench_progress *p = b->progress;
    if (!p)
        return;
    step_over(p);
    fflush(stdout);
    p->started = bench_now();
    p->running = 1;
    /* a cap on a step not yet seen at its size: the budget and the probes, or, with no budget,
     * nothing beyond what N^3 says */
    double cap = b->budget > 0 ? 2 * b->budget : INFINITY;
    double eta = bench_eta(p->n, p->seconds, p->done, p->n + p->done, p->total - p->done, cap);
    char line[600];
    bench_progress_text(line, sizeof line, p->done + 1, p->total, eta, what);
    if (!p->tty) {
        fprintf(stderr, "bench: %s\n", line);
        return;
    }
    /* one line that fits the terminal, or it would wrap and \r could not take it back */
    struct winsize w;
    size_t width = ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20 ? w.ws_col : 80;
    if (strlen(line) + 8 >= width)
        line[width - 8] = '\0';
    fprintf(stderr, "\r\033[Kbench: %s", line);
    fflush(stderr);
    p->shown = 1;
}

void bench_progress_end(struct bench *b) {
    struct bench_progress *p = b->progress;
    if (!p)
        return;
    step_over(p);
    bench_progress_clear(b);
    char duration[48];
    bench_duration_text(duration, sizeof duration, bench_now() - p->all_started);
    fprintf(stderr, "bench: %d rows in %s\n", p->done, duration);
    free(p->n);
    free(p->seconds);
    free(p);
    b->progress = NULL;
}
