/* test_report.c - unit tests (cmocka) of grader_sanitize_text (controls, noncharacters, invalid
 * UTF-8) and of the places that apply it:
 * grader_add_test (test names and outputs), the summary's device name and grader_json_escape;
 * the verdict each test carries into the report and results.json; and the head of each log (the
 * seed shown or, a batch's secret, not; the repeating command line a shell reads back word for
 * word; the date and the version).
 *
 * The strings are drawn from a seed chosen at run time and printed at the start and in every
 * failure; set TEST_REPORT_SEED=<seed> to repeat a run. The checks use their own UTF-8 decoder,
 * written differently from the grader's (decode first, then judge the code point).
 */
#define _GNU_SOURCE /* open_memstream, mkdtemp */
#include "grader.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_report", "TEST_REPORT_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* ---------------------------------------------------------------- an independent validator */

/* Decode the sequence at s by its lead byte's bit pattern: its length, or 0 when it is not
 * well-formed UTF-8 (bad continuation, overlong, surrogate, past U+10FFFF). */
static size_t decode(const unsigned char *s, uint32_t *code_point) {
    size_t length;
    uint32_t cp;
    if ((s[0] & 0x80) == 0) {
        *code_point = s[0];
        return 1;
    }
    if ((s[0] & 0xe0) == 0xc0) {
        length = 2;
        cp = s[0] & 0x1fu;
    } else if ((s[0] & 0xf0) == 0xe0) {
        length = 3;
        cp = s[0] & 0x0fu;
    } else if ((s[0] & 0xf8) == 0xf0) {
        length = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < length; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[length] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    *code_point = cp;
    return length;
}

static int is_control(uint32_t cp) {
    return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f);
}

/* Unicode's 66 noncharacters, by their definition: U+FDD0..U+FDEF and the last two code points
 * of each of the 17 planes (XML 1.0 refuses U+FFFE and U+FFFF outright). */
static int is_noncharacter(uint32_t cp) {
    return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

/* NULL when text is well-formed UTF-8 free of controls (but \n, \t) and of noncharacters, else
 * where it is not. */
static const char *first_unsafe(const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        uint32_t cp;
        size_t length = decode(s, &cp);
        if (length == 0 || is_control(cp) || is_noncharacter(cp))
            return (const char *)s;
        s += length;
    }
    return NULL;
}

/* A code point's UTF-8 (the well-formed shortest form) into out: its length. */
static size_t encode(uint32_t cp, unsigned char *out) {
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | cp >> 6);
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A random code point that is safe to show and is not '?', of 1 to 4 bytes in UTF-8. */
static uint32_t random_safe_code_point(struct rng *r) {
    for (;;) {
        uint32_t cp;
        switch (rng_range(r, 0, 3)) {
        case 0:
            cp = (uint32_t)rng_range(r, 0x09, 0x7e);
            break;
        case 1:
            cp = (uint32_t)rng_range(r, 0xa0, 0x7ff);
            break;
        case 2:
            cp = (uint32_t)rng_range(r, 0x800, 0xffff);
            break;
        default:
            cp = (uint32_t)rng_range(r, 0x10000, 0x10ffff);
            break;
        }
        if (cp != '?' && !is_control(cp) && !is_noncharacter(cp) && !(cp >= 0xd800 && cp <= 0xdfff))
            return cp;
    }
}

static char *sanitized(const char *in) {
    char *copy = strdup(in);
    CHECK(copy != NULL, "out of memory");
    grader_sanitize_text(copy);
    return copy;
}

/* ---------------------------------------------------------------- the sanitizer */

static void expect_sanitized(const char *in, const char *want) {
    char *got = sanitized(in);
    CHECK(strcmp(got, want) == 0, "sanitizing \"%s\" gave \"%s\", expected \"%s\"", in, got, want);
    free(got);
}

static void test_specific_cases(void **state) {
    (void)state;
    expect_sanitized("", "");
    expect_sanitized("plain\ttext\n", "plain\ttext\n");
    expect_sanitized("a\xc2\x9b"
                     "2Jb",
                     "a?2Jb"); /* C1 CSI as UTF-8 */
    expect_sanitized("a\x9b"
                     "2Jb",
                     "a?2Jb");                                  /* C1 CSI as a raw byte */
    expect_sanitized("\xc2\x80\xc2\x9f\xc2\xa0", "??\xc2\xa0"); /* U+0080, U+009F; U+00A0 stays */
    expect_sanitized("x\x7fy", "x?y");
    expect_sanitized("\x1b[31mred\x1b[0m", "?[31mred?[0m");
    expect_sanitized("ok\rFAKE", "ok?FAKE");
    expect_sanitized("\xc0\xaf", "??");                        /* overlong '/' */
    expect_sanitized("\xe0\x80\xaf", "???");                   /* overlong '/' in three bytes */
    expect_sanitized("\xed\xa0\x80", "???");                   /* the surrogate U+D800 */
    expect_sanitized("\xf4\x90\x80\x80", "????");              /* U+110000 */
    expect_sanitized("\xe2\x82", "?");                         /* truncated euro sign at the end */
    expect_sanitized("\xe2\x82x", "?x");                       /* ... and before ASCII */
    expect_sanitized("\xe2\x82\xe2\x82\xac", "?\xe2\x82\xac"); /* ... and before a valid one */
    expect_sanitized("\xf5\xff\xfe", "???");
    expect_sanitized("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbd",
                     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbd");
    /* noncharacters, one '?' each: XML 1.0 has no U+FFFE or U+FFFF (a junit.xml that held one
     * would not parse); their neighbours U+FFFD, U+FDCF, U+FDF0 and U+10FFFD stay */
    expect_sanitized("a\xef\xbf\xbe"
                     "b\xef\xbf\xbf"
                     "c",
                     "a?b?c");                          /* U+FFFE, U+FFFF */
    expect_sanitized("\xef\xb7\x90\xef\xb7\xaf", "??"); /* U+FDD0, U+FDEF */
    expect_sanitized("\xef\xb7\x8f\xef\xb7\xb0\xef\xbf\xbd",
                     "\xef\xb7\x8f\xef\xb7\xb0\xef\xbf\xbd");
    expect_sanitized("\xf0\x9f\xbf\xbe\xf0\x9f\xbf\xbf", "??"); /* U+1FFFE, U+1FFFF */
    expect_sanitized("\xf3\xaf\xbf\xbf", "?");                  /* U+EFFFF */
    expect_sanitized("x\xf4\x8f\xbf\xbfy", "x?y");              /* U+10FFFF, the last */
    expect_sanitized("\xf4\x8f\xbf\xbd\xf0\x9f\xbf\xbd", "\xf4\x8f\xbf\xbd\xf0\x9f\xbf\xbd");
    expect_sanitized("\xef\xbf", "?"); /* a truncated U+FFFF is invalid UTF-8: still one '?' */
}

/* Every code point, alone and between two letters: kept as it is when the validator above (which
 * decodes first and then judges the number) calls it safe, else exactly one '?'. Random text
 * seldom forms a noncharacter; this reaches all 66, and every neighbour of each. */
static void test_every_code_point(void **state) {
    (void)state;
    for (uint32_t cp = 1; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue; /* a surrogate has no UTF-8 (test_specific_cases: its bytes are invalid) */
        char in[8] = "a";
        size_t length = encode(cp, (unsigned char *)in + 1);
        in[1 + length] = 'b';
        in[2 + length] = '\0';
        int safe = !is_control(cp) && !is_noncharacter(cp);
        char *got = sanitized(in);
        CHECK(safe ? strcmp(got, in) == 0 : strcmp(got, "a?b") == 0,
              "U+%04X (%s) came out as \"%s\"", (unsigned)cp, safe ? "safe" : "unsafe", got);
        free(got);
    }
}

/* Random bytes, weighted towards the troublesome ones: the result is always safe, never longer,
 * and sanitizing it again changes nothing. */
static void test_random_bytes_come_out_safe(void **state) {
    (void)state;
    struct rng r = rng_for("random_bytes");
    static const unsigned char special[] = {0x1b, 0x7f, 0x9b, 0xc2, 0xc0, 0xe0, 0xed, 0xef, 0xb7,
                                            0xbe, 0xf0, 0xf4, 0x8f, 0x80, 0xbf, '\r', 0x0c, 0xff};
    for (int round = 0; round < 2000; round++) {
        size_t length = (size_t)rng_range(&r, 1, 200);
        char *in = malloc(length + 1);
        CHECK(in != NULL, "out of memory");
        for (size_t i = 0; i < length; i++) {
            long pick = rng_range(&r, 0, 3);
            in[i] = (char)(pick == 0   ? special[rng_range(&r, 0, sizeof special - 1)]
                           : pick == 1 ? rng_range(&r, 0x80, 0xbf)
                                       : rng_range(&r, 1, 255));
        }
        in[length] = '\0';
        char *out = sanitized(in);
        const char *bad = first_unsafe(out);
        CHECK(bad == NULL, "round %d: byte %td of the result (0x%02x) is unsafe", round, bad - out,
              bad ? (unsigned char)*bad : 0);
        CHECK(strlen(out) <= length, "round %d: grew from %zu to %zu bytes", round, length,
              strlen(out));
        char *again = sanitized(out);
        CHECK(strcmp(again, out) == 0, "round %d: sanitizing twice changed the text", round);
        free(again);
        free(out);
        free(in);
    }
}

/* Text that is already safe, multi-byte characters of every length among it, is kept as is. */
static void test_valid_utf8_survives(void **state) {
    (void)state;
    struct rng r = rng_for("valid_utf8");
    for (int round = 0; round < 500; round++) {
        unsigned char in[4 * 100 + 1];
        size_t used = 0;
        long count = rng_range(&r, 1, 100);
        for (long i = 0; i < count; i++)
            used += encode(random_safe_code_point(&r), in + used);
        in[used] = '\0';
        CHECK(first_unsafe((char *)in) == NULL, "round %d: the generator made unsafe text", round);
        char *out = sanitized((char *)in);
        CHECK(strcmp(out, (char *)in) == 0, "round %d: valid text of %zu bytes changed", round,
              used);
        free(out);
    }
}

/* Safe characters between unsafe pieces: each safe one comes out unchanged and in place, each
 * unsafe piece as 1 to (its length) '?'. Unsafe pieces are never adjacent, so that a truncated
 * lead and a stray continuation cannot join into a valid character. */
static void test_unsafe_pieces_become_question_marks(void **state) {
    (void)state;
    struct rng r = rng_for("pieces");
    static const char *unsafe[] = {"\x01",
                                   "\x1b",
                                   "\r",
                                   "\x7f",
                                   "\xc2\x9b",
                                   "\xc2\x80",
                                   "\x9b",
                                   "\x80",
                                   "\xbf",
                                   "\xc0\xaf",
                                   "\xc1\xbf",
                                   "\xe0\x80\xaf",
                                   "\xed\xa0\x80",
                                   "\xed\xbf\xbf",
                                   "\xf4\x90\x80\x80",
                                   "\xf0\x80\x80\xaf",
                                   "\xe2\x82",
                                   "\xf0\x9f\x98",
                                   "\xc3",
                                   "\xf5",
                                   "\xff",
                                   "\xf8\x88\x80\x80\x80",
                                   "\xef\xbf\xbe",
                                   "\xef\xbf\xbf",
                                   "\xef\xb7\x90",
                                   "\xf0\x9f\xbf\xbf",
                                   "\xf4\x8f\xbf\xbe"};
    for (int round = 0; round < 500; round++) {
        char in[1200], want_safe[1200];
        int kind[64];         /* 0: safe piece, 1: unsafe piece */
        size_t piece_len[64]; /* its length in the input */
        size_t used = 0, pieces = (size_t)rng_range(&r, 1, 64);
        for (size_t p = 0; p < pieces; p++) {
            kind[p] = (p == 0 || kind[p - 1] == 0) && rng_range(&r, 0, 1);
            if (kind[p]) {
                const char *u = unsafe[rng_range(&r, 0, sizeof unsafe / sizeof unsafe[0] - 1)];
                piece_len[p] = strlen(u);
                memcpy(in + used, u, piece_len[p]);
            } else {
                piece_len[p] = encode(random_safe_code_point(&r), (unsigned char *)in + used);
            }
            used += piece_len[p];
        }
        in[used] = '\0';
        char *out = sanitized(in);
        const char *o = out, *i = in;
        for (size_t p = 0; p < pieces; p++, i += piece_len[p - 1]) {
            if (kind[p] == 0) {
                memcpy(want_safe, i, piece_len[p]);
                want_safe[piece_len[p]] = '\0';
                CHECK(strncmp(o, want_safe, piece_len[p]) == 0,
                      "round %d: safe piece %zu (\"%s\") lost; the result from there: \"%s\"",
                      round, p, want_safe, o);
                o += piece_len[p];
            } else {
                size_t marks = strspn(o, "?");
                CHECK(marks >= 1 && marks <= piece_len[p],
                      "round %d: unsafe piece %zu of %zu bytes became %zu '?'", round, p,
                      piece_len[p], marks);
                o += marks;
            }
        }
        CHECK(*o == '\0', "round %d: \"%s\" left over", round, o);
        free(out);
    }
}

/* ---------------------------------------------------------------- where it is applied */

static void test_add_test_sanitizes_name_and_output(void **state) {
    (void)state;
    struct grader_exercise_result res;
    memset(&res, 0, sizeof res);
    res.ex = &grader_exercises[0];
    grader_add_test(&res, "name \x1b[2J", 1, 1, "out: %s|%s",
                    "\xc2\x9b"
                    "2J\x7f",
                    "\xe2\x82");
    CHECK(res.test_count == 1, "no test added");
    CHECK(first_unsafe(res.tests[0].name) == NULL && strstr(res.tests[0].name, "name ?[2J"),
          "name kept as \"%s\"", res.tests[0].name);
    CHECK(strcmp(res.tests[0].output, "out: ?2J?|?") == 0, "output kept as \"%s\"",
          res.tests[0].output);

    /* the report and the summary show nothing unsafe, the device name included */
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    CHECK(f != NULL, "open_memstream failed");
    grader_print_exercise(f, &res, 1);
    grader_print_summary(f, &res, 1,
                         "GPU\xc2\x9b"
                         "31m \x9b\xed\xa0\x80\x1b]0;title\x07");
    fclose(f);
    CHECK(first_unsafe(text) == NULL, "the report shows \"%s\"", text);
    CHECK(strstr(text, "on GPU?31m ?????]0;title?\n") != NULL, "the device shown as: %s", text);
    free(text);
    grader_free_result(&res);
}

/* A test's log-only lines: out of its output (the screen, results.json), in its detail (the
 * log's report), in the order written, wherever they fall among the others. */
static void test_log_only_lines(void **state) {
    (void)state;
    struct grader_exercise_result res;
    memset(&res, 0, sizeof res);
    res.ex = &grader_exercises[0];
    grader_add_test(
        &res, "timed", 1, 1,
        "plain %d\n" GRADER_LOG_ONLY "detail %d\nplain two\n" GRADER_LOG_ONLY "detail two", 1, 1);
    grader_add_test(&res, "none", 1, 1, "no details; log: not at a line's start");
    CHECK(strcmp(res.tests[0].output, "plain 1\nplain two") == 0, "output \"%s\"",
          res.tests[0].output);
    CHECK(res.tests[0].detail && strcmp(res.tests[0].detail, "detail 1\ndetail two") == 0,
          "detail \"%s\"", res.tests[0].detail ? res.tests[0].detail : "(none)");
    CHECK(res.tests[1].detail == NULL && strstr(res.tests[1].output, "log: not at"),
          "a line without the prefix at its start moved: \"%s\"", res.tests[1].output);
    for (int details = 0; details < 2; details++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        CHECK(f != NULL, "open_memstream failed");
        grader_print_exercise(f, &res, details);
        fclose(f);
        CHECK(strstr(text, "            plain two\n") != NULL, "no output: %s", text);
        CHECK(!strstr(text, "detail 1") == !details, "details %d: %s", details, text);
        CHECK(!strstr(text, "log: detail"), "the prefix printed: %s", text);
        free(text);
    }
    grader_free_result(&res);
}

/* Each test carries the seconds from the verdict before it; they add up to the grading's whole,
 * which the log's tail prints (and the screen does not). Waits of random length between verdicts
 * (nanosleep), at least that long each. */
static void test_seconds_per_test(void **state) {
    (void)state;
    struct rng r = rng_for("seconds");
    struct grader_exercise_result res;
    memset(&res, 0, sizeof res);
    res.ex = &grader_exercises[(int)rng_range(&r, 0, grader_exercise_count - 1)];
    grader_result_start_clock(&res);
    int n = (int)rng_range(&r, 2, 5);
    long waited[8];
    for (int i = 0; i < n; i++) {
        waited[i] = rng_range(&r, 1, 30); /* ms */
        nanosleep(&(struct timespec){0, waited[i] * 1000000L}, NULL);
        grader_add_test(&res, i % 2 ? "odd" : "even", 1, 1, "test %d", i);
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
        CHECK(res.tests[i].seconds >= waited[i] * 1e-3 && res.tests[i].seconds < 5,
              "test %d: %.4f s after a wait of %ld ms", i, res.tests[i].seconds, waited[i]);
        sum += res.tests[i].seconds;
    }
    CHECK(fabs(sum - (res.marked - res.started)) < 1e-6,
          "the tests' %.6f s against the whole's %.6f", sum, res.marked - res.started);
    for (int details = 0; details < 2; details++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        CHECK(f != NULL, "open_memstream failed");
        grader_print_exercise(f, &res, details);
        fclose(f);
        char line[64];
        snprintf(line, sizeof line, "%7.2f s  odd\n", res.tests[1].seconds);
        CHECK(!strstr(text, "   time: ") == !details && !strstr(text, line) == !details,
              "details %d, the times in the log only: %s", details, text);
        free(text);
    }
    grader_free_result(&res);
    /* a result never stamped (built by hand) says nothing of time */
    memset(&res, 0, sizeof res);
    res.ex = &grader_exercises[0];
    grader_add_test(&res, "unstamped", 1, 1, "x");
    CHECK(res.tests[0].seconds == 0, "unstamped: %.3f s", res.tests[0].seconds);
    grader_free_result(&res);
}

/* ---------------------------------------------------------------- verdicts */

/* Every test carries its verdict and its exercise as data: pass or fail from the score, skipped
 * and not run as the producer says. The report's word for each stays what the student always
 * read (a 0 of 0 test that could not run reads "ok"), and results.json carries both. */
static void test_verdicts(void **state) {
    (void)state;
    struct grader_exercise_result res;
    memset(&res, 0, sizeof res);
    res.ex = &grader_exercises[0];
    grader_add_test(&res, "right", 2, 2, "right");
    grader_add_test(&res, "wrong", 0, 2, "wrong");
    grader_add_verdict(&res, GRADER_SKIPPED, "switched off", 0, 4, "skipped: switched off");
    grader_add_verdict(&res, GRADER_NOT_RUN, "after a failure", 0, 3, "not run: it failed");
    grader_add_verdict(&res, GRADER_NOT_RUN, "not scored", 0, 0, "not run: timing was off");
    static const enum grader_verdict want[] = {GRADER_PASS, GRADER_FAIL, GRADER_SKIPPED,
                                               GRADER_NOT_RUN, GRADER_NOT_RUN};
    static const char *const words[] = {"ok   2/2  right", "FAIL 0/2  wrong",
                                        "skip 0/0  switched off (4 points left out of the maximum)",
                                        "FAIL 0/3  after a failure", "ok   0/0  not scored"};
    static const char *const names[] = {"pass", "fail", "skipped", "not_run", "not_run"};
    CHECK(res.test_count == 5, "%d tests added, expected 5", res.test_count);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    CHECK(f != NULL, "open_memstream failed");
    grader_print_exercise(f, &res, 1);
    fclose(f);
    for (int t = 0; t < 5; t++) {
        CHECK(res.tests[t].verdict == want[t], "test %d: verdict %d, expected %d", t,
              (int)res.tests[t].verdict, (int)want[t]);
        CHECK(res.tests[t].exercise == res.ex->id, "test %d: exercise %s, expected %s", t,
              res.tests[t].exercise ? res.tests[t].exercise : "(null)", res.ex->id);
        CHECK(strcmp(grader_verdict_name(res.tests[t].verdict), names[t]) == 0,
              "test %d: verdict named %s, expected %s", t,
              grader_verdict_name(res.tests[t].verdict), names[t]);
        CHECK(strstr(text, words[t]) != NULL, "the report lacks \"%s\":\n%s", words[t], text);
    }
    free(text);

    char path[128], *json = NULL;
    snprintf(path, sizeof path, "%s/verdicts.json", g_tmp);
    CHECK(grader_write_json(path, &res, 1, 1.0, "GPU (POCL)") == 0, "grader_write_json failed");
    f = fopen(path, "r");
    CHECK(f != NULL, "no %s", path);
    size_t length = 0;
    CHECK(getdelim(&json, &length, '\0', f) > 0, "cannot read %s", path);
    fclose(f);
    char want_json[200];
    for (int t = 0; t < 5; t++) {
        snprintf(want_json, sizeof want_json,
                 "\"extra_data\": {\"exercise\": \"%s\", \"verdict\": \"%s\", \"left_out\": %d}",
                 res.ex->id, names[t], t == 2 ? 4 : 0);
        CHECK(strstr(json, want_json) != NULL, "results.json lacks %s:\n%s", want_json, json);
    }
    CHECK(strstr(json, "\"device\": \"GPU (POCL)\"") != NULL, "no device in:\n%s", json);
    free(json);
    grader_free_result(&res);
}

static void test_json_escape_input_sanitized(void **state) {
    (void)state;
    struct rng r = rng_for("json_escape");
    for (int round = 0; round < 300; round++) {
        char in[201];
        size_t length = (size_t)rng_range(&r, 1, 200);
        for (size_t i = 0; i < length; i++)
            in[i] = (char)rng_range(&r, 1, 255);
        in[length] = '\0';
        char *e = grader_json_escape(in);
        CHECK(e != NULL, "NULL escape");
        /* JSON's own escapes are ASCII: the escaped text must be as safe as the sanitized one */
        CHECK(first_unsafe(e) == NULL, "round %d: the escape holds an unsafe byte", round);
        CHECK(strchr(e, '\n') == NULL && strchr(e, '\t') == NULL, "round %d: raw \\n or \\t",
              round);
        free(e);
    }
}

/* ---------------------------------------------------------------- the maximum */

/* res's results.json as grader_write_json writes it (malloc'd). */
static char *json_of(const struct grader_exercise_result *res) {
    char path[128], *json = NULL;
    snprintf(path, sizeof path, "%s/result.json", g_tmp);
    CHECK(grader_write_json(path, res, 1, 1.0, NULL) == 0, "grader_write_json failed");
    FILE *f = fopen(path, "r");
    size_t length = 0;
    CHECK(f && getdelim(&json, &length, '\0', f) > 0, "cannot read %s", path);
    fclose(f);
    return json;
}

/* A skipped test scores 0 of 0 and keeps its points as left out; the exercise's maximum plus its
 * points left out is its row's grader_max_points, and grader_result_max_ok holds exactly then. A
 * test that goes missing, or a skip that does not say its points, breaks it. Every row, with its
 * tests drawn at random as passed, failed, not run or skipped; the summary and results.json say
 * the same numbers. */
static void test_maximum(void **state) {
    (void)state;
    struct rng r = rng_for("maximum");
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        int points = grader_max_points(ex), given = 0, left_out = 0, score = 0;
        struct grader_exercise_result res;
        memset(&res, 0, sizeof res);
        res.ex = ex;
        CHECK(grader_result_max_ok(&res), "%s: a result of no tests is refused", ex->id);
        while (given < points) { /* the row's points in tests of 1 to 3 points */
            int pts = (int)rng_range(&r, 1, points - given < 3 ? points - given : 3);
            enum grader_verdict v = (enum grader_verdict)rng_range(&r, 0, 3);
            if (v == GRADER_SKIPPED) {
                grader_add_verdict(&res, v, "skipped", 0, pts, "skipped: here");
                left_out += pts;
            } else if (v == GRADER_NOT_RUN) {
                grader_add_verdict(&res, v, "not run", 0, pts, "not run: first");
            } else {
                int got = v == GRADER_PASS ? pts : (int)rng_range(&r, 0, pts > 0 ? pts - 1 : 0);
                grader_add_test(&res, "ran", got, pts, "ran");
                score += got;
            }
            given += pts;
        }
        int last = res.test_count - 1;
        CHECK(grader_result_left_out(&res) == left_out && grader_result_score(&res) == score &&
                  grader_result_max(&res) == points - left_out,
              "%s: left out %d (want %d), score %d (%d), max %d (%d)", ex->id,
              grader_result_left_out(&res), left_out, grader_result_score(&res), score,
              grader_result_max(&res), points - left_out);
        CHECK(grader_result_max_ok(&res), "%s: the rule of the maximum refused a whole result",
              ex->id);
        for (int t = 0; t < res.test_count; t++)
            CHECK(res.tests[t].verdict != GRADER_SKIPPED ||
                      (res.tests[t].max == 0 && res.tests[t].score == 0),
                  "%s: a skipped test scores %d of %d", ex->id, res.tests[t].score,
                  res.tests[t].max);
        char *json = json_of(&res), want[300];
        snprintf(want, sizeof want,
                 "\"%s\": {\"score\": %d, \"max_score\": %d, \"left_out\": %d, \"points\": %d}",
                 ex->id, score, points - left_out, left_out, points);
        CHECK(strstr(json, want) != NULL, "results.json lacks %s:\n%s", want, json);
        snprintf(want, sizeof want, "{\"max_score\": %d, \"left_out\": %d", points - left_out,
                 left_out);
        CHECK(strstr(json, want) != NULL, "results.json lacks %s:\n%s", want, json);
        free(json);
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        grader_print_summary(f, &res, 1, "GPU");
        fclose(f);
        snprintf(want, sizeof want, "Score: %d/%d\n", score, points - left_out);
        CHECK(strstr(text, want) != NULL, "the summary lacks %s:\n%s", want, text);
        snprintf(want, sizeof want, "%s %d\n", ex->id, left_out);
        CHECK((left_out > 0) == (strstr(text, want) != NULL),
              "the summary says of %d left out:\n%s", left_out, text);
        free(text);
        /* a test gone missing, and a skip that says no points, both break the rule */
        if (res.tests[last].max + res.tests[last].left_out > 0) {
            struct grader_test gone = res.tests[last];
            res.test_count--;
            CHECK(!grader_result_max_ok(&res), "%s: a missing test of %d points unseen", ex->id,
                  gone.max + gone.left_out);
            res.test_count++;
            grader_add_verdict(&res, GRADER_SKIPPED, "skipped", 0, 0, "skipped: says nothing");
            res.tests[last] = res.tests[res.test_count - 1]; /* in the missing one's place */
            free(gone.output);
            res.test_count--;
            CHECK(!grader_result_max_ok(&res), "%s: a skip of no points in place of %d unseen",
                  ex->id, gone.max + gone.left_out);
        }
        grader_free_result(&res);
    }
}

/* A handout's tests that need the reference (grader_add_instructors): skipped, their points out
 * of the maximum and named as the instructor's grading's, in the test's line, a line of their own
 * under the score (the other skipped points in theirs) and results.json's instructors. */
static void test_instructors_points(void **state) {
    (void)state;
    struct rng r = rng_for("instructors");
    for (int e = 0; e < grader_exercise_count; e++) {
        const struct grader_exercise *ex = &grader_exercises[e];
        int points = grader_max_points(ex), given = 0, theirs = 0, others = 0;
        struct grader_exercise_result res;
        memset(&res, 0, sizeof res);
        res.ex = ex;
        while (given < points) {
            int pts = (int)rng_range(&r, 1, points - given < 3 ? points - given : 3);
            switch ((int)rng_range(&r, 0, 2)) {
            case 0:
                grader_add_instructors(&res, "timed", pts, "the instructor's grading decides");
                theirs += pts;
                break;
            case 1:
                grader_add_verdict(&res, GRADER_SKIPPED, "skipped", 0, pts, "skipped: here");
                others += pts;
                break;
            default:
                grader_add_test(&res, "ran", pts, pts, "ran");
            }
            given += pts;
        }
        CHECK(grader_result_instructors(&res) == theirs &&
                  grader_result_left_out(&res) == theirs + others && grader_result_max_ok(&res),
              "%s: the instructor's %d (want %d), left out %d (want %d)", ex->id,
              grader_result_instructors(&res), theirs, grader_result_left_out(&res),
              theirs + others);
        char *text = NULL, want[200];
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        grader_print_exercise(f, &res, 0);
        grader_print_summary(f, &res, 1, "CPU");
        fclose(f);
        for (int t = 0; t < res.test_count; t++)
            if (res.tests[t].instructors) {
                snprintf(want, sizeof want,
                         "skip 0/0  timed (%d point%s the instructor's grading "
                         "decides)\n",
                         res.tests[t].instructors, res.tests[t].instructors == 1 ? "" : "s");
                CHECK(strstr(text, want) != NULL, "%s: no line '%s' in:\n%s", ex->id, want, text);
            }
        snprintf(want, sizeof want, "more point%s (", theirs == 1 ? "" : "s");
        CHECK((theirs > 0) == (strstr(text, "The instructor's grading decides") != NULL &&
                               strstr(text, want) != NULL),
              "%s: the instructor's %d points in the summary:\n%s", ex->id, theirs, text);
        snprintf(want, sizeof want, "): %s %d\n", ex->id, theirs);
        CHECK(theirs == 0 || strstr(text, want), "%s: no '%s' in:\n%s", ex->id, want, text);
        snprintf(want, sizeof want, ", %s %d\n", ex->id, others);
        CHECK((others > 0) == (strstr(text, "Left out of the maximum here") != NULL) &&
                  (others == 0 || strstr(text, want)),
              "%s: the other %d left out in the summary:\n%s", ex->id, others, text);
        free(text);
        char *json = json_of(&res);
        snprintf(want, sizeof want, "\"left_out\": %d, \"instructors\": %d", theirs + others,
                 theirs);
        CHECK((theirs > 0) == (strstr(json, want) != NULL) &&
                  (theirs > 0 || !strstr(json, "instructors")),
              "%s: results.json of the instructor's %d:\n%s", ex->id, theirs, json);
        free(json);
        grader_free_result(&res);
    }
}

/* ---------------------------------------------------------------- the logs' head */

static char *log_header(const struct grader_run_info *run) {
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    CHECK(f != NULL, "open_memstream failed");
    grader_print_log_header(f, run, &grader_exercises[0]);
    fclose(f);
    CHECK(text != NULL, "no text");
    return text;
}

/* text for a failure message: GCC's sanitizer builds see a NULL path after strstr(text, ...) */
static const char *shown(const char *text) {
    return text ? text : "(null)";
}

/* A local run's log names its seed and the command that repeats it for this exercise; a batch's
 * secret seed never appears, only its fingerprint. The device is shown safe. */
static void test_log_header(void **state) {
    (void)state;
    struct rng r = rng_for("log_header");
    for (int round = 0; round < 50; round++) {
        struct grader_run_info run = {.device = "GPU\x1b[2J (POCL)",
                                      .seed = rng_next(&r) & 0x7fffffffffffffffull,
                                      .fingerprint = (unsigned long)rng_range(&r, 0, 0xffffffffL),
                                      .repeat = "cd /w && /w/build/grader/grader --timeout 7"};
        grader_utc_date((time_t)rng_range(&r, 0, 4000000000L), run.date, sizeof run.date);
        snprintf(run.version, sizeof run.version, "abc1234 (git describe of the workbook /w)");
        char seed[32], fingerprint[16], repeat[200];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)run.seed);
        snprintf(fingerprint, sizeof fingerprint, "%08lx", run.fingerprint);
        snprintf(repeat, sizeof repeat, "  repeat:  %s --ex %s --seed %s\n", run.repeat,
                 grader_exercises[0].id, seed);
        char *text = log_header(&run);
        CHECK(first_unsafe(text) == NULL, "the head shows \"%s\"", shown(text));
        CHECK(strstr(text, "device:  GPU?[2J (POCL)\n") != NULL, "the device shown as:\n%s",
              shown(text));
        CHECK(strstr(text, run.date) != NULL && strstr(text, "(UTC") != NULL &&
                  strstr(text, run.version) != NULL,
              "no date or version:\n%s", shown(text));
        CHECK(strstr(text, repeat) != NULL, "no \"%s\" in:\n%s", repeat, shown(text));
        CHECK(strstr(text, "\n\n") != NULL && strstr(text, "\n\n\n") == NULL,
              "not one blank line before the report:\n%s", shown(text));
        free(text);

        run.seed_secret = 1;
        text = log_header(&run);
        int secret_kept = strstr(text, seed) == NULL && strstr(text, "--seed") == NULL;
        CHECK(secret_kept, "a secret seed %s written:\n%s", seed, shown(text));
        CHECK(strstr(text, fingerprint) != NULL, "no fingerprint %s in:\n%s", fingerprint,
              shown(text));
        free(text);
    }
}

/* The command line runs as the words it was given, whatever they hold: a shell gets them back
 * byte for byte, in the folder named. */
static void test_shell_command(void **state) {
    (void)state;
    struct rng r = rng_for("shell_command");
    static const char tricky[] = " '\"\\$`!*?[]{}()<>|&;#~%=\t\n";
    char folder[256];
    snprintf(folder, sizeof folder, "%s/it's a $folder", g_tmp);
    CHECK(mkdir(folder, 0755) == 0, "cannot make %s", folder);
    for (int round = 0; round < 100; round++) {
        const char *argv[13] = {"printf", "[%s]"}; /* 10 words at most, then NULL */
        char words[10][40], want[10 * 42 + 1] = "";
        int count = (int)rng_range(&r, 0, 10);
        for (int w = 0; w < count; w++) {
            size_t length = (size_t)rng_range(&r, 0, 30);
            for (size_t i = 0; i < length; i++)
                words[w][i] = rng_range(&r, 0, 1) ? tricky[rng_range(&r, 0, sizeof tricky - 2)]
                                                  : (char)rng_range(&r, 0x21, 0x7e);
            words[w][length] = '\0';
            argv[2 + w] = words[w];
            snprintf(want + strlen(want), sizeof want - strlen(want), "[%s]", words[w]);
        }
        argv[2 + count] = NULL;
        if (count == 0) /* printf with a format alone prints it once, with %s empty */
            snprintf(want, sizeof want, "[]");
        char *line = grader_shell_command(round % 2 ? folder : NULL, argv);
        CHECK(line != NULL, "no command line");
        FILE *p = popen(line, "r");
        CHECK(p != NULL, "popen failed");
        char got[sizeof want + 64];
        size_t n = fread(got, 1, sizeof got - 1, p);
        got[n] = '\0';
        CHECK(pclose(p) == 0 && strcmp(got, want) == 0,
              "round %d: `%s` printed \"%s\", expected "
              "\"%s\"",
              round, line, got, want);
        free(line);
    }
    /* the folder is the one named, however its name is spelt */
    char marker[300];
    snprintf(marker, sizeof marker, "%s/marker", folder);
    FILE *f = fopen(marker, "w");
    CHECK(f != NULL, "cannot write %s", marker);
    fputs("here", f);
    fclose(f);
    const char *cat[] = {"cat", "marker", NULL};
    char *line = grader_shell_command(folder, cat);
    FILE *p = popen(line, "r");
    char got[16] = "";
    CHECK(p && fgets(got, sizeof got, p) && pclose(p) == 0 && strcmp(got, "here") == 0,
          "`%s` printed \"%s\"", line, got);
    free(line);
}

/* UTC in ISO 8601; outside a git checkout the version compiled in, saying so. */
static void test_date_and_version(void **state) {
    (void)state;
    char date[32], version[PATH_MAX + 160];
    grader_utc_date(0, date, sizeof date);
    CHECK(strcmp(date, "1970-01-01T00:00:00Z") == 0, "the epoch as %s", date);
    grader_utc_date(1700000000, date, sizeof date);
    CHECK(strcmp(date, "2023-11-14T22:13:20Z") == 0, "1700000000 as %s", date);
    grader_version(g_tmp, version, sizeof version);
    CHECK(strncmp(version, GRADER_VERSION " (", strlen(GRADER_VERSION) + 2) == 0 &&
              strstr(version, "compiled in") && strstr(version, g_tmp),
          "outside git the version reads \"%s\"", version);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specific_cases),
        cmocka_unit_test(test_every_code_point),
        cmocka_unit_test(test_random_bytes_come_out_safe),
        cmocka_unit_test(test_valid_utf8_survives),
        cmocka_unit_test(test_unsafe_pieces_become_question_marks),
        cmocka_unit_test(test_add_test_sanitizes_name_and_output),
        cmocka_unit_test(test_json_escape_input_sanitized),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_maximum),
        cmocka_unit_test(test_instructors_points),
        cmocka_unit_test(test_log_header),
        cmocka_unit_test(test_log_only_lines),
        cmocka_unit_test(test_seconds_per_test),
        cmocka_unit_test(test_shell_command),
        cmocka_unit_test(test_date_and_version),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
