/* report.c - what the grader tells people: the per-exercise report and its log's head (the run
 * that wrote it), the lecture-style summary table, and results.json in Gradescope's format. */
#include "grade/internal.h"
#include "grade/timing_protocol.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 with *bad set to the length of
 * its longest ill-formed prefix (at least 1), so that each such prefix becomes one '?'. The ranges
 * of the second byte exclude overlongs (E0, F0), surrogates (ED) and code points past U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t *bad) {
    unsigned char lead = s[0];
    size_t length;
    unsigned char low = 0x80, high = 0xbf; /* the second byte's range */
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf)
        length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;
        high = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;
        high = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        *bad = 1; /* a stray continuation byte, C0/C1 (overlong) or F5..FF */
        return 0;
    }
    for (size_t i = 1; i < length; i++) {
        unsigned char lo = i == 1 ? low : 0x80, hi = i == 1 ? high : 0xbf;
        if (s[i] < lo || s[i] > hi) { /* the terminating NUL stops a truncated sequence here */
            *bad = i;
            return 0;
        }
    }
    return length;
}

/* Whether the well-formed sequence at s, of length bytes, is a Unicode noncharacter: U+FDD0 to
 * U+FDEF (EF B7 90..AF) or the last two code points of a plane, U+xFFFE and U+xFFFF (EF BF BE..BF
 * in plane 0; in the others the low 16 bits all ones but the last: the second byte's low nibble F,
 * the third BF). XML 1.0's Char production excludes U+FFFE and U+FFFF, so one of them printed by a
 * student makes junit.xml unreadable; the others are as meaningless to every reader. */
static int noncharacter(const unsigned char *s, size_t length) {
    if (length == 3)
        return s[0] == 0xef &&
               ((s[1] == 0xb7 && s[2] >= 0x90 && s[2] <= 0xaf) || (s[1] == 0xbf && s[2] >= 0xbe));
    return length == 4 && (s[1] & 0x0f) == 0x0f && s[2] == 0xbf && s[3] >= 0xbe;
}

/* Rewrites text in place (it never grows): what a terminal, an editor or a JSON reader could
 * take for a command or choke on, and the noncharacters that an XML reader refuses, become '?'
 * (one for each character). */
void grader_sanitize_text(char *text) {
    const unsigned char *in = (const unsigned char *)text;
    char *out = text;
    while (*in) {
        size_t bad = 0, length = utf8_sequence(in, &bad);
        if (length == 0) {
            *out++ = '?';
            in += bad;
        } else if (length == 1) {
            int control = (*in < 0x20 && *in != '\n' && *in != '\t') || *in == 0x7f;
            *out++ = control ? '?' : (char)*in;
            in++;
        } else if (length == 2 && in[0] == 0xc2 && in[1] <= 0x9f) {
            *out++ = '?'; /* C1 controls: U+009B (CSI) acts like ESC [ */
            in += 2;
        } else if (noncharacter(in, length)) {
            *out++ = '?';
            in += length;
        } else {
            memmove(out, in, length);
            out += length;
            in += length;
        }
    }
    *out = '\0';
}

/* The lines of t's output that start with GRADER_LOG_ONLY move to t->detail, without it: the
 * protocol's figures a student rarely needs stay in the log, the screen keeps plain words. */
static void split_details(struct grader_test *t) {
    size_t prefix = strlen(GRADER_LOG_ONLY), length = strlen(t->output);
    char *kept = t->output, *detail = malloc(length + 1);
    if (!detail)
        return;
    size_t kept_used = 0, detail_used = 0;
    for (const char *line = t->output; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n >= prefix && strncmp(line, GRADER_LOG_ONLY, prefix) == 0) {
            if (detail_used)
                detail[detail_used++] = '\n';
            memcpy(detail + detail_used, line + prefix, n - prefix);
            detail_used += n - prefix;
        } else {
            if (kept_used)
                kept[kept_used++] = '\n';
            memmove(kept + kept_used, line, n);
            kept_used += n;
        }
        line += n + (end != NULL);
    }
    kept[kept_used] = '\0';
    detail[detail_used] = '\0';
    if (detail_used)
        t->detail = detail;
    else
        free(detail);
}

__attribute__((format(printf, 6, 0))) static void add_test(struct grader_exercise_result *r,
                                                           enum grader_verdict verdict,
                                                           const char *name, int score, int max,
                                                           const char *fmt, va_list ap) {
    if (r->test_count >= (int)(sizeof r->tests / sizeof r->tests[0]))
        return;
    struct grader_test *t = &r->tests[r->test_count++];
    snprintf(t->name, sizeof t->name, "%s: %s", r->ex->id, name);
    t->exercise = r->ex->id;
    t->verdict = verdict;
    t->score = score;
    t->max = max;
    t->left_out = t->instructors = 0;
    t->seconds = 0;
    if (r->marked > 0) {
        double now = grade_timing_now();
        t->seconds = now - r->marked;
        r->marked = now;
    }
    if (verdict == GRADER_SKIPPED) { /* the grader's trouble: its points leave the maximum */
        t->left_out = max;
        t->score = t->max = 0;
    }
    va_list again;
    va_copy(again, ap);
    int length = vsnprintf(NULL, 0, fmt, ap);
    t->output = malloc((size_t)length + 1);
    t->detail = NULL;
    if (t->output) {
        vsnprintf(t->output, (size_t)length + 1, fmt, again);
        /* the one door of every test's output: terminal, logs and results.json see it clean */
        grader_sanitize_text(t->output);
        split_details(t);
    }
    va_end(again);
    grader_sanitize_text(t->name);
}

void grader_result_start_clock(struct grader_exercise_result *r) {
    r->started = r->marked = grade_timing_now();
}

void grade_appendf(char *out, size_t size, const char *fmt, ...) {
    size_t used = strlen(out);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, size - used, fmt, ap);
    va_end(ap);
}

void grader_add_test(struct grader_exercise_result *r, const char *name, int score, int max,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add_test(r, score == max ? GRADER_PASS : GRADER_FAIL, name, score, max, fmt, ap);
    va_end(ap);
}

void grader_add_verdict(struct grader_exercise_result *r, enum grader_verdict verdict,
                        const char *name, int score, int max, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add_test(r, verdict, name, score, max, fmt, ap);
    va_end(ap);
}

void grader_add_instructors(struct grader_exercise_result *r, const char *name, int max,
                            const char *fmt, ...) {
    int before = r->test_count;
    va_list ap;
    va_start(ap, fmt);
    add_test(r, GRADER_SKIPPED, name, 0, max, fmt, ap);
    va_end(ap);
    if (r->test_count > before)
        r->tests[before].instructors = max;
}

void grader_test_append(struct grader_test *t, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const char *was = t->output ? t->output : "";
    int length = vsnprintf(NULL, 0, fmt, ap);
    size_t used = strlen(was), size = used + 1 + (size_t)(length > 0 ? length : 0) + 1;
    char *more = length >= 0 ? malloc(size) : NULL;
    if (more) { /* (where memory runs out the test keeps its text) */
        snprintf(more, size, "%s\n", was);
        vsnprintf(more + used + 1, size - used - 1, fmt, again);
        free(t->output);
        t->output = more;
    }
    va_end(again);
    va_end(ap);
}

const char *grader_verdict_name(enum grader_verdict verdict) {
    switch (verdict) {
    case GRADER_PASS:
        return "pass";
    case GRADER_FAIL:
        return "fail";
    case GRADER_SKIPPED:
        return "skipped";
    case GRADER_NOT_RUN:
        return "not_run";
    }
    return "fail";
}

int grader_result_score(const struct grader_exercise_result *r) {
    int s = 0;
    for (int i = 0; i < r->test_count; i++)
        s += r->tests[i].score;
    return s;
}

/* The sum of the tests' maxima: a test skipped for the grader's reasons (the CUDA twin without a
 * GPU) has max 0 and costs nothing. */
int grader_result_max(const struct grader_exercise_result *r) {
    int max = 0;
    for (int i = 0; i < r->test_count; i++)
        max += r->tests[i].max;
    return max;
}

int grader_result_left_out(const struct grader_exercise_result *r) {
    int left_out = 0;
    for (int i = 0; i < r->test_count; i++)
        left_out += r->tests[i].left_out;
    return left_out;
}

int grader_result_instructors(const struct grader_exercise_result *r) {
    int points = 0;
    for (int i = 0; i < r->test_count; i++)
        points += r->tests[i].instructors;
    return points;
}

int grader_result_max_ok(const struct grader_exercise_result *r) {
    return r->test_count == 0 ||
           grader_result_max(r) + grader_result_left_out(r) == grader_max_points(r->ex);
}

/* text's lines under a test, indented; control characters shown as '?' */
static void print_indented(FILE *out, const char *text) {
    const char *line = text ? text : "";
    while (*line) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        /* control characters of a program's output (\r, escape sequences) could redraw the
         * report on a terminal, say a fake "ok" line: show them as '?' */
        fputs("            ", out);
        for (int c = 0; c < len; c++)
            fputc((unsigned char)line[c] < 0x20 && line[c] != '\t' ? '?' : line[c], out);
        fputc('\n', out);
        line += len + (end != NULL);
    }
}

/* The log's tail: where the grading's time went, each test's seconds counted from the verdict
 * before it (its builds, runs under oclgrind, timing rounds and vendors), then the whole. */
static void print_times(FILE *out, const struct grader_exercise_result *r) {
    double all = r->marked - r->started;
    fprintf(out, "   time: %.1f s to grade %s; each test from the verdict before it:\n", all,
            r->ex->id);
    for (int i = 0; i < r->test_count; i++)
        fprintf(out, "   %7.2f s  %s\n", r->tests[i].seconds,
                r->tests[i].name + strlen(r->ex->id) + 2);
}

void grader_print_exercise(FILE *out, const struct grader_exercise_result *r, int details) {
    fprintf(out, "== %s: %s  [%d/%d]\n", r->ex->id, r->ex->title, grader_result_score(r),
            grader_result_max(r));
    if (r->not_implemented)
        fprintf(out,
                "   not implemented yet: fill in the TODO(student) parts of "
                "exercises/%s/%s\n",
                r->ex->id, r->ex->kernel ? "main.c and kernel.cl" : "answers.txt and kernel.cu");
    for (int i = 0; i < r->test_count; i++) {
        const struct grader_test *t = &r->tests[i];
        const char *name = t->name + strlen(r->ex->id) + 2;
        /* a test that could not run but cost nothing (0 of 0) reads "ok", as it always did */
        const char *verdict = t->verdict == GRADER_SKIPPED ? "skip"
                              : t->score == t->max         ? "ok"
                                                           : "FAIL";
        if (t->instructors > 0)
            fprintf(out, "  %-4s %d/%d  %s (%d point%s the instructor's grading decides)\n",
                    verdict, t->score, t->max, name, t->instructors,
                    t->instructors == 1 ? "" : "s");
        else if (t->left_out > 0)
            fprintf(out, "  %-4s %d/%d  %s (%d point%s left out of the maximum)\n", verdict,
                    t->score, t->max, name, t->left_out, t->left_out == 1 ? "" : "s");
        else
            fprintf(out, "  %-4s %d/%d  %s\n", verdict, t->score, t->max, name);
        /* indent the explanation under its test */
        print_indented(out, t->output);
        if (details && t->detail)
            print_indented(out, t->detail);
    }
    if (details && r->started > 0)
        print_times(out, r);
}

void grader_print_log_header(FILE *out, const struct grader_run_info *run,
                             const struct grader_exercise *ex) {
    /* the device comes from the driver, through a child */
    char device[512];
    snprintf(device, sizeof device, "%s",
             run->device && *run->device ? run->device : "the first OpenCL device");
    grader_sanitize_text(device);
    fprintf(out, "Log of %s: %s\n", ex->id, ex->title);
    fprintf(out, "  date:    %s (UTC, the run's start)\n", run->date);
    fprintf(out, "  device:  %s\n", device);
    fprintf(out, "  grader:  %s\n", run->version);
    if (run->containment[0])
        fprintf(out, "  contained: %s\n", run->containment);
    if (run->seed_secret) {
        /* a batch's seed comes from the instructor's secret and the student id, the same at every
         * regrade: whoever knew it could compute the hidden inputs beforehand. Logs go back to
         * students, so they get a fingerprint; the instructor holds the secret */
        fprintf(out,
                "  seed:    the batch's secret (fingerprint %08lx; a regrade with the same "
                "secret shows the same)\n",
                run->fingerprint);
        fprintf(out, "  repeat:  the instructor's `make batch` with the same secret (FORCE=1 "
                     "regrades)\n");
    } else {
        fprintf(out,
                "  seed:    %llu (hidden: it draws the data, the memory check's size and the "
                "seed of every run)\n",
                (unsigned long long)run->seed);
        if (run->repeat)
            fprintf(out, "  repeat:  %s --ex %s --seed %llu\n", run->repeat, ex->id,
                    (unsigned long long)run->seed);
    }
    fputc('\n', out);
}

/* Points out of an exercise's maximum: the instructor's (a handout's), and the others. */
static int instructors_of(const struct grader_exercise_result *r) {
    return grader_result_instructors(r);
}
static int others_of(const struct grader_exercise_result *r) {
    return grader_result_left_out(r) - grader_result_instructors(r);
}

/* head (a format of the total and its plural s), then " ID N" for each exercise `of` gives points,
 * comma-separated; nothing where it gives none. */
static void points_line(FILE *out, const struct grader_exercise_result *results, int count,
                        int (*of)(const struct grader_exercise_result *), const char *head) {
    int total = 0;
    for (int i = 0; i < count; i++)
        total += of(&results[i]);
    if (total == 0)
        return;
    fprintf(out, head, total, total == 1 ? "" : "s");
    const char *sep = " ";
    for (int i = 0; i < count; i++)
        if (of(&results[i]) > 0) {
            fprintf(out, "%s%s %d", sep, results[i].ex->id, of(&results[i]));
            sep = ", ";
        }
    fputc('\n', out);
}

void grader_print_summary(FILE *out, const struct grader_exercise_result *results, int count,
                          const char *device) {
    int score = 0, max = 0;
    fprintf(out, "\n%-42s | %9s | %9s | %5s | %s\n", "Case", "GFLOP/s", "reference", "ratio",
            "score");
    fprintf(out, "%.42s-+-----------+-----------+-------+------\n",
            "------------------------------------------------------------");
    for (int i = 0; i < count; i++) {
        const struct grader_exercise_result *r = &results[i];
        char mine[16] = "-", ref[16] = "-", ratio[16] = "-";
        if (r->gflops > 0)
            snprintf(mine, sizeof mine, "%.2f", r->gflops);
        if (r->ref_gflops > 0)
            snprintf(ref, sizeof ref, "%.2f", r->ref_gflops);
        if (r->ratio > 0) /* the one its point is scored on, as its test says */
            snprintf(ratio, sizeof ratio, "%.2f", r->ratio);
        fprintf(out, "%-42s | %9s | %9s | %5s | %d/%d\n", r->ex->title, mine, ref, ratio,
                grader_result_score(r), grader_result_max(r));
        score += grader_result_score(r);
        max += grader_result_max(r);
    }
    /* the device name comes from the driver, through a child */
    char shown[512];
    snprintf(shown, sizeof shown, "%s", device && *device ? device : "the first OpenCL device");
    grader_sanitize_text(shown);
    fprintf(out, "GFLOP/s: median of timed runs at each exercise's timing size, on %s\n", shown);
    fprintf(out, "Score: %d/%d\n", score, max);
    /* a handout's points that need the reference: the instructor's grading has it */
    points_line(out, results, count, instructors_of,
                "The instructor's grading decides %d more point%s (the reference solutions, "
                "which this handout leaves out, time your kernels and hold the quiz's key):");
    /* what the grader could not run here: the same for every student on this machine and flags */
    points_line(out, results, count, others_of,
                "Left out of the maximum here (the grader cannot run them on this machine or with "
                "these flags; the same for every student): %d point%s,");
}

char *grader_json_escape(const char *text) {
    size_t len = strlen(text);
    char *clean = malloc(len + 1), *e = malloc(len * 6 + 1), *p = e;
    if (!clean || !e) {
        free(clean);
        free(e);
        return NULL;
    }
    memcpy(clean, text, len + 1);
    grader_sanitize_text(clean); /* valid UTF-8 without controls but \n and \t from here on */
    for (const char *s = clean; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            *p++ = '\\';
            *p++ = (char)ch;
        } else if (ch == '\n') {
            *p++ = '\\';
            *p++ = 'n';
        } else if (ch == '\t') {
            *p++ = '\\';
            *p++ = 't';
        } else {
            *p++ = (char)ch;
        }
    }
    *p = '\0';
    free(clean);
    return e;
}

static void json_string(FILE *f, const char *s) {
    char *e = grader_json_escape(s ? s : "");
    fprintf(f, "\"%s\"", e ? e : "");
    free(e);
}

/* {"ID": figure, ...} of the exercises timed (gflops > 0) whose double at `field` of their result
 * is positive. */
static void json_per_exercise(FILE *f, const struct grader_exercise_result *results, int count,
                              size_t field) {
    const char *comma = "";
    fputc('{', f);
    for (int i = 0; i < count; i++) {
        double v;
        memcpy(&v, (const char *)&results[i] + field, sizeof v);
        if (results[i].gflops > 0 && v > 0) {
            fprintf(f, "%s", comma);
            json_string(f, results[i].ex->id);
            fprintf(f, ": %.3f", v);
            comma = ", ";
        }
    }
    fputc('}', f);
}

int grader_write_json(const char *path, const struct grader_exercise_result *results, int count,
                      double seconds, const char *device) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "grader: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    int score = 0, max = 0, left_out = 0, instructors = 0;
    for (int i = 0; i < count; i++) {
        score += grader_result_score(&results[i]);
        max += grader_result_max(&results[i]);
        left_out += grader_result_left_out(&results[i]);
        instructors += grader_result_instructors(&results[i]);
    }
    fprintf(f, "{\n  \"score\": %d,\n  \"execution_time\": %.0f,\n", score, seconds);
    fprintf(f, "  \"extra_data\": {\"max_score\": %d, \"left_out\": %d", max, left_out);
    if (instructors > 0) /* (a handout's: of left_out, what the instructor's grading decides) */
        fprintf(f, ", \"instructors\": %d", instructors);
    if (device) {
        fprintf(f, ", \"device\": ");
        json_string(f, device);
    }
    /* the reference's GFLOP/s of each exercise timed, measured beside the student's (the
     * instructor's report compares the two; students see their own in the timing test), and
     * the ratio each was scored on (the median of the rounds' own ratios, the figure its test
     * shows): the batch's summary and report rank by it */
    fprintf(f, ", \"reference_gflops\": ");
    json_per_exercise(f, results, count, offsetof(struct grader_exercise_result, ref_gflops));
    fprintf(f, ", \"ratio\": ");
    json_per_exercise(f, results, count, offsetof(struct grader_exercise_result, ratio));
    /* each exercise's maximum and the points the grader left out of it: max_score + left_out is
     * the table's points, for every student */
    fprintf(f, ", \"exercises\": {");
    for (int i = 0; i < count; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_string(f, results[i].ex->id);
        fprintf(f, ": {\"score\": %d, \"max_score\": %d, \"left_out\": %d, \"points\": %d}",
                grader_result_score(&results[i]), grader_result_max(&results[i]),
                grader_result_left_out(&results[i]), grader_max_points(results[i].ex));
    }
    fprintf(f, "}},\n");
    fprintf(f, "  \"output\": ");
    char line[64];
    snprintf(line, sizeof line, "Score: %d/%d", score, max);
    json_string(f, line);
    fprintf(f, ",\n  \"tests\": [");
    const char *sep = "";
    for (int i = 0; i < count; i++)
        for (int t = 0; t < results[i].test_count; t++) {
            const struct grader_test *test = &results[i].tests[t];
            fprintf(f, "%s\n    {\"name\": ", sep);
            json_string(f, test->name);
            fprintf(f, ", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", \"output\": ",
                    test->score, test->max, test->score == test->max ? "passed" : "failed");
            json_string(f, test->output);
            fprintf(f, ", \"extra_data\": {\"exercise\": ");
            json_string(f, test->exercise);
            fprintf(f, ", \"verdict\": \"%s\", \"left_out\": %d}}",
                    grader_verdict_name(test->verdict), test->left_out);
            sep = ",";
        }
    fprintf(f, "\n  ],\n  \"leaderboard\": [");
    sep = "";
    for (int i = 0; i < count; i++) {
        if (results[i].gflops <= 0)
            continue;
        fprintf(f, "%s\n    {\"name\": ", sep);
        char name[128];
        snprintf(name, sizeof name, "%s GFLOP/s", results[i].ex->id);
        json_string(f, name);
        fprintf(f, ", \"value\": %.3f, \"order\": \"desc\"}", results[i].gflops);
        if (results[i].vendor_ratio > 0) { /* the capstone: its speed over its anchor's */
            snprintf(name, sizeof name, "%s x %s", results[i].ex->id,
                     clu_vendor_name((enum clu_vendor_id)results[i].vendor_anchor));
            fprintf(f, ",\n    {\"name\": ");
            json_string(f, name);
            fprintf(f, ", \"value\": %.3f, \"order\": \"desc\"}", results[i].vendor_ratio);
        }
        sep = ",";
    }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "grader: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

void grader_free_result(struct grader_exercise_result *r) {
    for (int i = 0; i < r->test_count; i++) {
        free(r->tests[i].output);
        free(r->tests[i].detail);
    }
    r->test_count = 0;
}
