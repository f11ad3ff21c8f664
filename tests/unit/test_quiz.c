/* test_quiz.c - unit tests (cmocka) of the quiz grader: the pure functions of quiz.h (normalising,
 * reading `qN: answer` lines, matching against a key with `|` alternatives, stray lines, format
 * hints) and grader_quiz_tests end to end on temporary folders (right, wrong, empty, missing,
 * CRLF, case and spacing, alternatives, repeated lines, binary junk, a 2 MB file, a link, a FIFO,
 * a key without the question), and on the workbook's own 06_cuda_memory_model: its key gives
 * full marks, its skeleton none, and every question of the table has a key.
 *
 * Random inputs come from a seed chosen at run time and printed at the start and in every
 * failure; TEST_QUIZ_SEED=<seed> repeats a run. Built and run by tests/run.sh from the repository
 * root (with every grader source but main.c).
 */
#define _GNU_SOURCE /* mkdtemp, symlink, mkfifo */
#include "grader.h"
#include "grade/quiz.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---------------------------------------------------------------- seeds, checks, temp files */

#include "testkit.h"

static char g_tmp[64];

static void write_file(const char *path, const char *data, size_t length) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
    CHECK(fwrite(data, 1, length, f) == length, "short write to %s", path);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

static int group_setup(void **state) {
    (void)state;
    if (testkit_start("test_quiz", "TEST_QUIZ_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* ---------------------------------------------------------------- quiz_normalise */

static void expect_normalised(const char *in, size_t length, const char *want) {
    char out[QUIZ_ANSWER_MAX + 1];
    size_t n = quiz_normalise(in, length, out, sizeof out);
    CHECK(strcmp(out, want) == 0 && n == strlen(want),
          "normalise(\"%.*s\") = \"%s\" (%zu), want \"%s\"", (int)length, in, out, n, want);
}

#define NORMALISED(literal, want) expect_normalised(literal, sizeof literal - 1, want)

static void test_normalise(void **state) {
    (void)state;
    NORMALISED("", "");
    NORMALISED("   \t\r\n ", "");
    NORMALISED("b", "b");
    NORMALISED("  B  ", "b");
    NORMALISED("\tA\r", "a");
    NORMALISED("__SyncThreads()", "__syncthreads()");
    NORMALISED("  two   words\t\there ", "two words here");
    NORMALISED("a\vb\fc", "a b c");
    /* binary bytes become '?': NUL cannot cut an answer short and make "b<NUL>junk" read "b" */
    NORMALISED("b\0junk", "b?junk");
    NORMALISED("\x01"
               "c",
               "?c");
    NORMALISED("\x7f\x80\xff", "???");
    NORMALISED("caf\xc3\xa9", "caf??");
    /* only ASCII letters change case; digits and punctuation stay */
    NORMALISED("0.5|.5|1/2", "0.5|.5|1/2");
    NORMALISED("Q1: X", "q1: x");
}

static void test_normalise_cut(void **state) {
    (void)state;
    char out[8];
    /* as snprintf: the length of the whole result, a NUL-terminated prefix in out */
    size_t n = quiz_normalise("  ABCDEFGHIJ  KL ", 17, out, sizeof out);
    CHECK(n == 13 && strcmp(out, "abcdefg") == 0, "cut: %zu \"%s\"", n, out);
    n = quiz_normalise("abc", 3, out, 0);
    CHECK(n == 3, "size 0 gives %zu", n);
    n = quiz_normalise("abc", 3, out, 1);
    CHECK(n == 3 && out[0] == '\0', "size 1 gives %zu \"%s\"", n, out);
    n = quiz_normalise("abc", 3, out, 4);
    CHECK(n == 3 && strcmp(out, "abc") == 0, "exact fit gives %zu \"%s\"", n, out);
}

/* ---------------------------------------------------------------- quiz_lookup */

static struct quiz_lookup look(const char *text, const char *id) {
    struct quiz_lookup q;
    quiz_lookup(text, strlen(text), id, &q);
    return q;
}

static void expect_answer(const char *text, const char *id, const char *want, int line) {
    struct quiz_lookup q = look(text, id);
    CHECK(q.found == QUIZ_ONE && strcmp(q.answer, want) == 0 && q.line == line,
          "%s in \"%s\": found %d \"%s\" line %d, want \"%s\" line %d", id, text, (int)q.found,
          q.answer, q.line, want, line);
}

static void expect_none(const char *text, const char *id) {
    struct quiz_lookup q = look(text, id);
    CHECK(q.found == QUIZ_NONE && q.answer[0] == '\0' && q.answers == 0,
          "%s in \"%s\": found %d \"%s\", want none", id, text, (int)q.found, q.answer);
}

static void test_lookup_forms(void **state) {
    (void)state;
    expect_answer("q1: b\n", "q1", "b", 1);
    expect_answer("q1:b", "q1", "b", 1);           /* no space, no final newline */
    expect_answer("  Q1 :  B  \n", "q1", "b", 1);  /* id case, spaces around the colon */
    expect_answer("q1: b\n", "Q1", "b", 1);        /* the id asked in upper case */
    expect_answer("\tq1\t:\tb\t\n", "q1", "b", 1); /* tabs */
    expect_answer("# q1: a\nq1: c\n", "q1", "c", 2);
    expect_answer("   # q1: a\nq1: c\n", "q1", "c", 2);
    expect_answer("q1: b # my guess: a\n", "q1", "b", 1); /* '#' after the colon: a comment */
    expect_answer("\n\n\nq1: d\n", "q1", "d", 4);
    expect_answer("q2: __shared__\nq1: a\n", "q2", "__shared__", 1);
    expect_answer("q1: two  words  \n", "q1", "two words", 1);
    /* q1 is not q10, nor q10 q1 */
    expect_answer("q10: x\nq1: y\n", "q1", "y", 2);
    expect_answer("q1: y\nq10: x\n", "q10", "x", 2);
    expect_none("q10: x\n", "q1");
    expect_none("q1: x\n", "q10");
    expect_none("q11: x\nq: y\nq1x: z\n", "q1");
    /* no answer: missing, empty, comment only, not `id:` */
    expect_none("", "q1");
    expect_none("q1:\n", "q1");
    expect_none("q1:    \t \r\n", "q1");
    expect_none("q1: # nothing yet\n", "q1");
    expect_none("# q1: b\n", "q1");
    expect_none("q1 b\n", "q1");
    expect_none("q1 = b\n", "q1");
    expect_none("1: b\n", "q1");
    expect_none(":b\n", "q1");
    expect_none("xq1: b\n", "q1");
}

static void test_lookup_line_ends(void **state) {
    (void)state;
    /* CRLF, a lone CR (old Macs), LF, mixed: the same lines */
    const char *texts[] = {"# c\r\nq1: a\r\nq2: b\r\n", "# c\rq1: a\rq2: b\r",
                           "# c\nq1: a\nq2: b\n", "# c\r\nq1: a\rq2: b\n", "# c\nq1: a\r\nq2: b"};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        expect_answer(texts[t], "q1", "a", 2);
        expect_answer(texts[t], "q2", "b", 3);
    }
    /* blank CRLF lines count as lines */
    expect_answer("\r\n\r\nq3: c\r\n", "q3", "c", 3);
    /* a UTF-8 byte order mark before the first line */
    expect_answer("\xEF\xBB\xBFq1: b\r\n", "q1", "b", 1);
    expect_none("\xEF\xBB\xBF", "q1");
    expect_none("\xEF\xBB", "q1");
}

static void test_lookup_repeats(void **state) {
    (void)state;
    /* the same answer twice (after normalising) counts once */
    struct quiz_lookup q = look("q1: b\nq1:  B \n", "q1");
    CHECK(q.found == QUIZ_ONE && strcmp(q.answer, "b") == 0 && q.line == 1 && q.answers == 2,
          "same twice: found %d \"%s\" line %d answers %d", (int)q.found, q.answer, q.line,
          q.answers);
    /* the skeleton's empty line and an answer below it: the answer */
    expect_answer("q1:\nq2:\nq1: c\n", "q1", "c", 3);
    expect_answer("q1: c\nq1:\n", "q1", "c", 1);
    /* different answers: a conflict, whichever order, with both lines named */
    q = look("q1: a\nq2: x\nq1: b\nq1: c\n", "q1");
    CHECK(q.found == QUIZ_CONFLICT && q.line == 1 && q.other_line == 3 && q.answers == 3 &&
              q.answer[0] == '\0',
          "a then b: found %d line %d other %d answers %d \"%s\"", (int)q.found, q.line,
          q.other_line, q.answers, q.answer);
    q = look("q1: a\nq1: a\nq1: d\n", "q1");
    CHECK(q.found == QUIZ_CONFLICT && q.line == 1 && q.other_line == 3, "a a d: %d %d %d",
          (int)q.found, q.line, q.other_line);
    /* listing every choice is a conflict, not a right answer */
    q = look("q1: a\nq1: b\nq1: c\nq1: d\n", "q1");
    CHECK(q.found == QUIZ_CONFLICT, "every choice: found %d", (int)q.found);
}

static void test_lookup_long_lines(void **state) {
    (void)state;
    size_t big = 300000;
    char *text = malloc(big + 64);
    CHECK(text != NULL, "out of memory");
    /* a very long junk line, then an answer */
    memset(text, 'x', big);
    strcpy(text + big, "\nq1: b\n");
    expect_answer(text, "q1", "b", 2);
    /* a very long answer: too long, whatever else is there */
    memcpy(text, "q1: ", 4);
    strcpy(text + big, "\nq1: b\n");
    struct quiz_lookup q = look(text, "q1");
    CHECK(q.found == QUIZ_TOO_LONG && q.line == 1 && q.answer[0] == '\0',
          "long answer: found %d line %d", (int)q.found, q.line);
    free(text);
    /* exactly QUIZ_ANSWER_MAX characters is fine, one more is too long */
    char line[QUIZ_ANSWER_MAX + 16];
    snprintf(line, sizeof line, "q1: %0*d", QUIZ_ANSWER_MAX, 7);
    q = look(line, "q1");
    CHECK(q.found == QUIZ_ONE && strlen(q.answer) == QUIZ_ANSWER_MAX, "%d characters: found %d",
          QUIZ_ANSWER_MAX, (int)q.found);
    snprintf(line, sizeof line, "q1: %0*d", QUIZ_ANSWER_MAX + 1, 7);
    q = look(line, "q1");
    CHECK(q.found == QUIZ_TOO_LONG, "%d characters: found %d", QUIZ_ANSWER_MAX + 1, (int)q.found);
}

/* Random bytes with answer lines spliced in: never a crash, always a printable answer within the
 * bound, and the answer found is one that was written (or none, or a conflict). */
static void test_lookup_random_bytes(void **state) {
    (void)state;
    struct rng r = rng_for("random_bytes");
    for (int round = 0; round < 300; round++) {
        size_t length = (size_t)rng_range(&r, 0, 4000);
        char *text = malloc(length + 1);
        CHECK(text != NULL, "out of memory");
        for (size_t i = 0; i < length; i++)
            text[i] = (char)rng_range(&r, 0, 255);
        /* splice "\nq1: c\n" somewhere, sometimes */
        int spliced = length > 16 && rng_range(&r, 0, 1);
        if (spliced)
            memcpy(text + rng_range(&r, 0, (long)length - 8), "\nq1: c\n", 7);
        struct quiz_lookup q;
        quiz_lookup(text, length, "q1", &q);
        CHECK(strlen(q.answer) <= QUIZ_ANSWER_MAX, "round %d: answer of %zu", round,
              strlen(q.answer));
        for (const char *c = q.answer; *c; c++)
            CHECK(*c >= 0x20 && *c < 0x7f && !(*c >= 'A' && *c <= 'Z'),
                  "round %d: byte 0x%02x in the answer", round, (unsigned char)*c);
        CHECK(q.found != QUIZ_ONE || q.line > 0, "round %d: answer without a line", round);
        /* the spliced line is whole: it is found, and no other answer can be read as the one */
        CHECK(!spliced || (q.found != QUIZ_NONE && (q.found != QUIZ_ONE || !strcmp(q.answer, "c"))),
              "round %d: spliced q1 gives found %d \"%s\"", round, (int)q.found, q.answer);
        free(text);
    }
}

/* ---------------------------------------------------------------- quiz_matches, hints, strays */

static void test_matches(void **state) {
    (void)state;
    CHECK(quiz_matches("b", "b"), "b b");
    CHECK(!quiz_matches("b", "a"), "b a");
    CHECK(!quiz_matches("b", ""), "empty answer matched");
    CHECK(!quiz_matches("", ""), "empty key and answer matched");
    CHECK(!quiz_matches("", "b"), "empty key matched");
    CHECK(!quiz_matches("b", "b)"), "b)");
    CHECK(!quiz_matches("b", "bb"), "bb");
    /* alternatives, spaces around the bars, the key's case, empty alternatives */
    const char *key = "__syncthreads()|__syncthreads";
    CHECK(quiz_matches(key, "__syncthreads()") && quiz_matches(key, "__syncthreads"), "both");
    CHECK(!quiz_matches(key, "syncthreads()") && !quiz_matches(key, "__syncthreads(") &&
              !quiz_matches(key, "barrier(clk_local_mem_fence)"),
          "near misses matched");
    CHECK(quiz_matches(" A | B ", "a") && quiz_matches(" A | B ", "b"), "spaced bars");
    CHECK(!quiz_matches(" A | B ", "c"), "spaced bars c");
    CHECK(quiz_matches("a||b|", "b") && !quiz_matches("a||b|", ""), "empty alternatives");
    CHECK(quiz_matches("|||0.5", "0.5"), "leading bars");
    CHECK(quiz_matches("Two  Words|x", "two words"), "inner spaces of the key");
    /* the answer must be one alternative, not a list of them... */
    CHECK(!quiz_matches("a|b", "a|c") && !quiz_matches("b", "a|b") && !quiz_matches("b", "b|a"),
          "a list of answers matched");
    /* decimal numbers match by value; nothing else does */
    CHECK(quiz_matches("8", "8.0") && quiz_matches("8", "08") && quiz_matches("8", "+8") &&
              quiz_matches("0.5|1/2", ".50") && quiz_matches("0.5", "0.500"),
          "equal numbers refused");
    CHECK(!quiz_matches("8", "8.01") && !quiz_matches("8", "0x8") && !quiz_matches("8", "8e0") &&
              !quiz_matches("0.5", "2/4") && !quiz_matches("8", "-8") && !quiz_matches("8", ".") &&
              !quiz_matches("8", "8.1") && !quiz_matches("8", "8 8") && !quiz_matches("8", "8+"),
          "different numbers or non-decimals matched");
    CHECK(quiz_matches("0.5", "0.5") && !quiz_matches("b", "8"), "plain cases");
    /* ...except the whole key line itself (the solution graded as a submission) */
    CHECK(quiz_matches("0.5|.5|1/2", "0.5|.5|1/2"), "the whole key");
}

static void test_format_hint(void **state) {
    (void)state;
    CHECK(quiz_format_hint("b", "(b)") != NULL && strstr(quiz_format_hint("b", "(b)"), "letter"),
          "(b) against a letter: no hint");
    CHECK(quiz_format_hint("b", "the second") != NULL, "words against a letter: no hint");
    CHECK(quiz_format_hint("b", "c") == NULL, "a wrong letter got a hint");
    CHECK(quiz_format_hint("a|b", "ab") != NULL, "two letters got no hint");
    CHECK(quiz_format_hint("8", "eight") != NULL &&
              strstr(quiz_format_hint("8", "eight"), "number"),
          "eight against a number: no hint");
    CHECK(quiz_format_hint("8", "7") == NULL, "a wrong number got a hint");
    CHECK(quiz_format_hint("0.5|.5|1/2", "half") != NULL, "half against numbers");
    CHECK(quiz_format_hint("0.5|.5|1/2", "2/4") == NULL, "a fraction got a hint");
    CHECK(quiz_format_hint("__shared__", "shared") == NULL, "a keyword got a hint");
    CHECK(quiz_format_hint("b|__x", "zz") == NULL, "mixed key got a hint");
    CHECK(quiz_format_hint("", "zz") == NULL && quiz_format_hint("||", "zz") == NULL,
          "an empty key got a hint");
}

static void test_all_right(void **state) {
    (void)state;
    const char *key = "__syncthreads()|__syncthreads";
    const char *text = "q3: __syncthreads()\nq3: __SYNCTHREADS\nq3:\n";
    CHECK(quiz_all_right(text, strlen(text), "q3", key), "two right spellings refused");
    text = "q3: __syncthreads()\nq3: barrier\n";
    CHECK(!quiz_all_right(text, strlen(text), "q3", key), "a right and a wrong accepted");
    text = "q3:\n# q3: x\n";
    CHECK(!quiz_all_right(text, strlen(text), "q3", key), "no answer accepted");
    CHECK(!quiz_all_right("", 0, "q3", key), "empty text accepted");
    text = "q1: a\nq1: b\nq1: c\nq1: d\n";
    CHECK(!quiz_all_right(text, strlen(text), "q1", "b"), "every letter accepted");
    CHECK(quiz_all_right("q1: b", 5, "q1", "b"), "one right answer refused");
}

static void test_stray_lines(void **state) {
    (void)state;
    const char *ids[] = {"q1", "q2", "q10"};
    int first = -1;
    const char *text = "# comment\n\nq1: a\nQ2:\n  q10 : x\n";
    CHECK(quiz_stray_lines(text, strlen(text), ids, 3, &first) == 0 && first == 0,
          "clean text: %d stray, first %d", quiz_stray_lines(text, strlen(text), ids, 3, &first),
          first);
    text = "q1: a\n1: b\nq3: c\nq2 = d\nq2: e\n:\n";
    int stray = quiz_stray_lines(text, strlen(text), ids, 3, &first);
    CHECK(stray == 4 && first == 2, "%d stray, first %d (want 4, line 2)", stray, first);
    text = "\xEF\xBB\xBFq1: a\r\nbad\r\n";
    stray = quiz_stray_lines(text, strlen(text), ids, 3, &first);
    CHECK(stray == 1 && first == 2, "BOM and CRLF: %d stray, first %d", stray, first);
}

/* ---------------------------------------------------------------- grader_quiz_tests */

/* A made-up exercise with its own key; points differ per question so that sums tell them apart. */
static const struct grader_exercise g_ex = {
    .id = "98_quiz_test",
    .title = "quiz test",
    .quiz = {{"q1", 1}, {"q2", 2}, {"q3", 1}, {"q4", 3}, {"q5", 1}, {"q10", 4}, {NULL, 0}},
};
#define G_QUESTIONS 6
static const char g_key[] = "# the key\n"
                            "# TODO(student) begin\n"
                            "q1: b\n"
                            "q2: __shared__\n"
                            "q3: __syncthreads()|__syncthreads\n"
                            "q4: 8\n"
                            "q5: 0.5|.5|1/2\n"
                            "q10: c\n"
                            "# TODO(student) end\n";
static const char g_right[] =
    "q1: b\nq2: __shared__\nq3: __syncthreads()\nq4: 8\nq5: 0.5\nq10: c\n";

struct graded {
    struct grader_exercise_result r;
    int score, max;
};

/* Folders of one end-to-end run: root (with solutions/<id>/answers.txt), submission, work. */
struct dirs {
    char root[PATH_MAX], submission[PATH_MAX], work[PATH_MAX], answers[PATH_MAX + 160];
};

static void make_dirs(struct dirs *d, const char *tag, const char *key, size_t key_length) {
    char path[PATH_MAX + 128];
    snprintf(d->root, sizeof d->root, "%s/%s/root", g_tmp, tag);
    snprintf(d->submission, sizeof d->submission, "%s/%s/submission", g_tmp, tag);
    snprintf(d->work, sizeof d->work, "%s/%s/work", g_tmp, tag);
    snprintf(path, sizeof path, "%s/solutions/%s", d->root, g_ex.id);
    grader_make_dirs(path);
    snprintf(path, sizeof path, "%s/%s", d->submission, g_ex.id);
    grader_make_dirs(path);
    snprintf(d->answers, sizeof d->answers, "%s/answers.txt", path);
    if (key) {
        snprintf(path, sizeof path, "%s/solutions/%s/answers.txt", d->root, g_ex.id);
        write_file(path, key, key_length);
    }
}

static void run_quiz(const struct dirs *d, const struct grader_exercise *ex, struct graded *g) {
    memset(g, 0, sizeof *g);
    g->r.ex = ex;
    struct grader_config cfg = {.root = d->root, .submission = d->submission, .work = d->work};
    grader_quiz_tests(&cfg, ex, &g->r);
    for (int t = 0; t < g->r.test_count; t++) {
        g->score += g->r.tests[t].score;
        g->max += g->r.tests[t].max;
    }
}

/* Grade answers (length bytes; NULL: no file) against g_key in a fresh set of folders. */
static void grade(const char *tag, const char *answers, size_t length, struct graded *g) {
    struct dirs d;
    make_dirs(&d, tag, g_key, sizeof g_key - 1);
    if (answers)
        write_file(d.answers, answers, length);
    run_quiz(&d, &g_ex, g);
}

#define GRADE(tag, literal, g) grade(tag, literal, sizeof literal - 1, g)

/* The test of question id, its score and output checked; want_text may be NULL. */
static void expect_test(const struct graded *g, const char *id, int score, const char *want_text) {
    char name[96];
    snprintf(name, sizeof name, "%s: quiz %s", g_ex.id, id);
    for (int t = 0; t < g->r.test_count; t++) {
        const struct grader_test *test = &g->r.tests[t];
        if (strcmp(test->name, name) != 0)
            continue;
        CHECK(test->score == score, "%s: score %d, want %d; output: %s", name, test->score, score,
              test->output);
        CHECK(!want_text || strstr(test->output, want_text), "%s: output \"%s\" lacks \"%s\"", name,
              test->output, want_text);
        return;
    }
    CHECK(0, "no test named \"%s\"", name);
}

static void free_graded(struct graded *g) {
    for (int t = 0; t < g->r.test_count; t++)
        free(g->r.tests[t].output);
}

/* Every question is a test with its points as max; the outputs never show a key's answer. */
static void expect_shape(const struct graded *g) {
    CHECK(g->r.test_count == G_QUESTIONS, "%d tests, want %d", g->r.test_count, G_QUESTIONS);
    CHECK(g->max == 12, "max %d, want 12", g->max);
    for (int t = 0; t < g->r.test_count; t++) {
        const struct grader_test *test = &g->r.tests[t];
        CHECK(test->max == g_ex.quiz[t].points, "%s: max %d", test->name, test->max);
        if (test->score == 0)
            CHECK(!strstr(test->output, "__shared__") && !strstr(test->output, "__syncthreads") &&
                      !strstr(test->output, "0.5") && !strstr(test->output, "right"),
                  "%s gives something away: %s", test->name, test->output);
    }
}

static void test_quiz_all_right(void **state) {
    (void)state;
    struct graded g;
    GRADE("right", g_right, &g);
    expect_shape(&g);
    CHECK(g.score == 12, "score %d of 12", g.score);
    for (int q = 0; q < G_QUESTIONS; q++)
        expect_test(&g, g_ex.quiz[q].id, g_ex.quiz[q].points, "right");
    free_graded(&g);
}

static void test_quiz_wrong(void **state) {
    (void)state;
    struct graded g;
    GRADE("wrong",
          "q1: a\nq2: __local\nq3: barrier(CLK_LOCAL_MEM_FENCE)\nq4: 16\nq5: 0.25\nq10: c\n", &g);
    expect_shape(&g);
    CHECK(g.score == 4, "score %d, want 4 (q10 only)", g.score);
    expect_test(&g, "q1", 0, "wrong: line 1 reads \"a\"");
    expect_test(&g, "q2", 0, "wrong: line 2 reads \"__local\"");
    expect_test(&g, "q3", 0, "\"barrier(clk_local_mem_fence)\"");
    expect_test(&g, "q4", 0, "wrong");
    expect_test(&g, "q5", 0, "wrong");
    expect_test(&g, "q10", 4, "right");
    free_graded(&g);
}

static void test_quiz_empty_and_skeleton(void **state) {
    (void)state;
    struct graded g;
    GRADE("empty", "", &g);
    expect_shape(&g);
    CHECK(g.score == 0, "empty file: score %d", g.score);
    for (int q = 0; q < G_QUESTIONS; q++)
        expect_test(&g, g_ex.quiz[q].id, 0, "no answer");
    free_graded(&g);
    GRADE("skeleton", "# TODO(student) begin\nq1:\nq2:\nq3:\nq4:\nq5:\nq10:\n# TODO(student) end\n",
          &g);
    expect_shape(&g);
    CHECK(g.score == 0, "skeleton: score %d", g.score);
    expect_test(&g, "q4", 0, "no answer: answers.txt has no line `q4: <answer>`");
    free_graded(&g);
}

static void test_quiz_missing_file(void **state) {
    (void)state;
    struct graded g;
    grade("missing", NULL, 0, &g);
    expect_shape(&g);
    CHECK(g.score == 0, "score %d", g.score);
    expect_test(&g, "q1", 0, "answers.txt is missing from the submission");
    free_graded(&g);
}

static void test_quiz_crlf_case_spacing(void **state) {
    (void)state;
    struct graded g;
    GRADE("crlf",
          "\xEF\xBB\xBF# mine\r\n  Q1 :   B  \r\nq2:__SHARED__\r\n\tq3:\t__SyncThreads  \r\n"
          "q4 : 8 # two rows of 16\r\nq5: 1/2\rq10:C",
          &g);
    expect_shape(&g);
    CHECK(g.score == 12, "score %d of 12", g.score);
    free_graded(&g);
}

static void test_quiz_alternatives(void **state) {
    (void)state;
    const char *q3[] = {"__syncthreads()", "__syncthreads", " __SYNCTHREADS() "};
    const char *q5[] = {"0.5", ".5", "1/2"};
    for (int i = 0; i < 3; i++) {
        char text[200];
        snprintf(text, sizeof text, "q3: %s\nq5: %s\n", q3[i], q5[i]);
        struct graded g;
        grade("alternatives", text, strlen(text), &g);
        CHECK(g.score == 2, "q3 \"%s\", q5 \"%s\": score %d, want 2", q3[i], q5[i], g.score);
        expect_test(&g, "q3", 1, "right");
        expect_test(&g, "q5", 1, "right");
        expect_test(&g, "q1", 0, "no answer");
        free_graded(&g);
    }
}

static void test_quiz_repeated_lines(void **state) {
    (void)state;
    struct graded g;
    /* every choice listed for q1, the same answer twice for q2, an empty line then an answer,
     * two accepted spellings for q3, a right and a wrong answer for q5 */
    GRADE("repeats",
          "q1: a\nq1: b\nq1: c\nq2: __shared__\nq2: __SHARED__\nq4:\nq4: 8\n"
          "q3: __syncthreads()\nq3: __syncthreads\nq5: 0.5\nq5: 0.25\n",
          &g);
    expect_shape(&g);
    CHECK(g.score == 6, "score %d, want 6 (q2, q3 and q4)", g.score);
    expect_test(&g, "q1", 0, "lines 1 and 2 give q1 different answers");
    expect_test(&g, "q2", 2, "right");
    expect_test(&g, "q3", 1, "right (on 2 lines)");
    expect_test(&g, "q4", 3, "right");
    expect_test(&g, "q5", 0, "lines 10 and 11 give q5 different answers");
    expect_test(&g, "q10", 0, "no answer");
    free_graded(&g);
}

static void test_quiz_stray_note_and_hint(void **state) {
    (void)state;
    struct graded g;
    GRADE("stray", "1: b\nq2 __shared__\nq4: eight\nq1: (b)\n", &g);
    expect_shape(&g);
    CHECK(g.score == 0, "score %d", g.score);
    expect_test(&g, "q2", 0, "2 lines of answers.txt are not of the form `qN: answer`");
    expect_test(&g, "q2", 0, "(the first is line 1)");
    /* said once, on the first question without an answer (q2), not again on q3 */
    expect_test(&g, "q3", 0, "no answer");
    CHECK(!strstr(g.r.tests[2].output, "note:"), "the note again on q3: %s", g.r.tests[2].output);
    expect_test(&g, "q4", 0, "this question takes a number");
    expect_test(&g, "q1", 0, "this question takes one letter");
    free_graded(&g);
}

static void test_quiz_binary(void **state) {
    (void)state;
    struct rng r = rng_for("binary");
    size_t length = 50000;
    char *junk = malloc(length);
    CHECK(junk != NULL, "out of memory");
    for (size_t i = 0; i < length; i++)
        junk[i] = (char)rng_range(&r, 0, 255);
    struct graded g;
    grade("binary", junk, length, &g);
    expect_shape(&g);
    CHECK(g.score == 0, "random bytes scored %d", g.score);
    free_graded(&g);
    free(junk);
    /* an answer followed by a NUL and junk is not the answer */
    GRADE("binary-nul", "q1: b\0junk\nq4: 8\0\nq10: c\x01\n", &g);
    CHECK(g.score == 0, "answers with binary tails scored %d", g.score);
    expect_test(&g, "q1", 0, "\"b?junk\"");
    free_graded(&g);
    /* binary junk around right lines does not hide them */
    GRADE("binary-around", "\x00\xff\xfe junk\nq1: b\n\x1b[2J\nq10: c\n\x00", &g);
    CHECK(g.score == 5, "right lines among junk: score %d, want 5", g.score);
    free_graded(&g);
}

static void test_quiz_large_file_refused(void **state) {
    (void)state;
    /* 2 MB of right answers: refused as a whole, so nothing is read */
    size_t line = strlen(g_right), length = 0, cap = 2u << 20;
    char *text = malloc(cap + line);
    CHECK(text != NULL, "out of memory");
    while (length < cap) {
        memcpy(text + length, g_right, line);
        length += line;
    }
    struct graded g;
    grade("large", text, length, &g);
    expect_shape(&g);
    CHECK(g.score == 0, "a 2 MB file scored %d", g.score);
    expect_test(&g, "q1", 0, "larger than 1 MB");
    free_graded(&g);
    free(text);
}

static void test_quiz_not_plain_files(void **state) {
    (void)state;
    struct dirs d;
    char target[PATH_MAX + 64];
    struct graded g;
    /* a link to a file of right answers elsewhere: refused */
    make_dirs(&d, "link", g_key, sizeof g_key - 1);
    snprintf(target, sizeof target, "%s/link/elsewhere.txt", g_tmp);
    write_file(target, g_right, strlen(g_right));
    CHECK(symlink(target, d.answers) == 0, "symlink: %s", strerror(errno));
    run_quiz(&d, &g_ex, &g);
    expect_shape(&g);
    CHECK(g.score == 0, "a link scored %d", g.score);
    expect_test(&g, "q1", 0, "was not read");
    free_graded(&g);
    /* a FIFO: refused without blocking */
    make_dirs(&d, "fifo", g_key, sizeof g_key - 1);
    CHECK(mkfifo(d.answers, 0600) == 0, "mkfifo: %s", strerror(errno));
    run_quiz(&d, &g_ex, &g);
    CHECK(g.score == 0, "a FIFO scored %d", g.score);
    expect_test(&g, "q1", 0, "not a plain file");
    free_graded(&g);
    /* a folder */
    make_dirs(&d, "folder", g_key, sizeof g_key - 1);
    CHECK(mkdir(d.answers, 0755) == 0, "mkdir: %s", strerror(errno));
    run_quiz(&d, &g_ex, &g);
    CHECK(g.score == 0 && g.r.test_count == G_QUESTIONS, "a folder scored %d", g.score);
    free_graded(&g);
}

static void test_quiz_no_stale_copy(void **state) {
    (void)state;
    struct dirs d;
    struct graded g;
    make_dirs(&d, "stale", g_key, sizeof g_key - 1);
    write_file(d.answers, g_right, strlen(g_right));
    run_quiz(&d, &g_ex, &g);
    CHECK(g.score == 12, "first run: score %d", g.score);
    free_graded(&g);
    /* the submission loses its file: the copy of the first run must not be read */
    CHECK(unlink(d.answers) == 0, "unlink: %s", strerror(errno));
    run_quiz(&d, &g_ex, &g);
    CHECK(g.score == 0, "second run without the file: score %d", g.score);
    free_graded(&g);
    /* and the work folder holds no copy of it any more */
    char copy[PATH_MAX + 64];
    snprintf(copy, sizeof copy, "%s/%s/answers.txt", d.work, g_ex.id);
    CHECK(access(copy, F_OK) != 0, "%s is left from the first run", copy);
}

static void test_quiz_key_problems(void **state) {
    (void)state;
    struct dirs d;
    struct graded g;
    /* the key lacks q4 and answers q5 twice differently: those two are configuration errors,
     * the others are graded */
    const char key[] = "q1: b\nq2: __shared__\nq3: x\nq5: 1\nq5: 2\nq10: c\n";
    make_dirs(&d, "key-gaps", key, sizeof key - 1);
    write_file(d.answers, g_right, strlen(g_right));
    run_quiz(&d, &g_ex, &g);
    CHECK(g.r.test_count == G_QUESTIONS && g.max == 12, "%d tests, max %d", g.r.test_count, g.max);
    CHECK(g.score == 1 + 2 + 4, "score %d, want 7", g.score);
    expect_test(&g, "q4", 0, "grader configuration error");
    expect_test(&g, "q4", 0, "has no answer for this question");
    expect_test(&g, "q5", 0, "grader configuration error");
    expect_test(&g, "q3", 0, "wrong");
    free_graded(&g);
    /* no key at all: every question says so, nothing crashes */
    make_dirs(&d, "no-key", NULL, 0);
    write_file(d.answers, g_right, strlen(g_right));
    run_quiz(&d, &g_ex, &g);
    expect_shape(&g);
    CHECK(g.score == 0, "without a key: score %d", g.score);
    for (int q = 0; q < G_QUESTIONS; q++)
        expect_test(&g, g_ex.quiz[q].id, 0, "is missing or unreadable");
    free_graded(&g);
}

/* Random right answers in random dress (case of ids and answers, spaces, CRLF, comments, order,
 * repeats): full marks; with one random question answered wrong: exactly its points lost. */
static void test_quiz_random_dress(void **state) {
    (void)state;
    struct rng r = rng_for("dress");
    const char *right[G_QUESTIONS][3] = {{"b", "B", "b"},
                                         {"__shared__", "__SHARED__", "__Shared__"},
                                         {"__syncthreads()", "__syncthreads", "__SYNCTHREADS"},
                                         {"8", "8", "8"},
                                         {"0.5", ".5", "1/2"},
                                         {"c", "C", "c"}};
    for (int round = 0; round < 30; round++) {
        char text[4096];
        size_t used = 0;
        int wrong = (int)rng_range(&r, -1, G_QUESTIONS - 1); /* -1: none */
        int order[G_QUESTIONS];
        for (int q = 0; q < G_QUESTIONS; q++)
            order[q] = q;
        for (int q = G_QUESTIONS - 1; q > 0; q--) {
            int o = (int)rng_range(&r, 0, q), t = order[q];
            order[q] = order[o];
            order[o] = t;
        }
        for (int i = 0; i < G_QUESTIONS; i++) {
            int q = order[i], copies = (int)rng_range(&r, 1, 2);
            const char *answer = q == wrong ? "zz" : right[q][rng_range(&r, 0, 2)];
            char id[8];
            snprintf(id, sizeof id, "%s", g_ex.quiz[q].id);
            if (rng_range(&r, 0, 1))
                id[0] = 'Q';
            for (int c = 0; c < copies; c++) {
                const char *eol = rng_range(&r, 0, 1) ? "\r\n" : "\n";
                if (rng_range(&r, 0, 2) == 0)
                    used += (size_t)snprintf(text + used, sizeof text - used, "# note%s", eol);
                used += (size_t)snprintf(text + used, sizeof text - used, "%*s%s%*s:%*s%s%*s%s",
                                         (int)rng_range(&r, 0, 3), "", id, (int)rng_range(&r, 0, 2),
                                         "", (int)rng_range(&r, 0, 3), "", answer,
                                         (int)rng_range(&r, 0, 3), "", eol);
            }
        }
        CHECK(used < sizeof text, "round %d: text of %zu bytes", round, used);
        struct graded g;
        grade("dress", text, used, &g);
        int want = 12 - (wrong >= 0 ? g_ex.quiz[wrong].points : 0);
        CHECK(g.score == want, "round %d (question %d wrong): score %d, want %d; text:\n%s", round,
              wrong, g.score, want, text);
        free_graded(&g);
    }
}

/* ---------------------------------------------------------------- the workbook's own quiz */

static const struct grader_exercise *quiz_row(void) {
    const struct grader_exercise *ex = grader_find_exercise("06_cuda_memory_model");
    CHECK(ex != NULL, "no 06_cuda_memory_model row in the table");
    CHECK(ex->kernel == NULL && ex->quiz[0].id != NULL, "06 has a kernel or no quiz");
    return ex;
}

static void test_workbook_quiz_table(void **state) {
    (void)state;
    const struct grader_exercise *ex = quiz_row();
    int count = 0, points = 0;
    for (; count < GRADER_MAX_QUESTIONS && ex->quiz[count].id; count++) {
        char want[8];
        snprintf(want, sizeof want, "q%d", count + 1);
        CHECK(strcmp(ex->quiz[count].id, want) == 0, "question %d is \"%s\", want %s", count + 1,
              ex->quiz[count].id, want);
        CHECK(ex->quiz[count].points > 0, "%s: %d points", want, ex->quiz[count].points);
        points += ex->quiz[count].points;
    }
    CHECK(count >= 8 && count <= 12, "%d questions", count);
    int sizes = 0;
    while (sizes < GRADER_MAX_SIZES && ex->sizes[sizes])
        sizes++;
    CHECK(grader_max_points(ex) == points + sizes * ex->cuda_per_size,
          "grader_max_points %d, quiz %d + CUDA %d x %d", grader_max_points(ex), points, sizes,
          ex->cuda_per_size);
}

/* The workbook's key, graded as a submission: full marks; the skeleton: nothing. */
static void test_workbook_key_and_skeleton(void **state) {
    (void)state;
    const struct grader_exercise *ex = quiz_row();
    int points = 0, count = 0;
    for (; ex->quiz[count].id; count++)
        points += ex->quiz[count].points;
    char work[PATH_MAX];
    snprintf(work, sizeof work, "%s/workbook", g_tmp);
    struct dirs d;
    snprintf(d.root, sizeof d.root, ".");
    snprintf(d.work, sizeof d.work, "%s", work);
    struct graded g;
    snprintf(d.submission, sizeof d.submission, "solutions");
    run_quiz(&d, ex, &g);
    CHECK(g.r.test_count == count && g.score == points && g.max == points,
          "solutions/: %d tests, %d/%d points, want %d/%d (run from the repository root)",
          g.r.test_count, g.score, g.max, points, points);
    free_graded(&g);
    snprintf(d.submission, sizeof d.submission, "exercises");
    run_quiz(&d, ex, &g);
    CHECK(g.r.test_count == count && g.score == 0 && g.max == points,
          "exercises/: %d tests, %d/%d points, want 0/%d", g.r.test_count, g.score, g.max, points);
    for (int t = 0; t < g.r.test_count; t++)
        CHECK(strstr(g.r.tests[t].output, "no answer:"), "skeleton %s: %s", g.r.tests[t].name,
              g.r.tests[t].output);
    free_graded(&g);
}

/* Every alternative of every key line is accepted on its own, in upper case too, and a letter
 * question takes no other letter. */
static void test_workbook_every_alternative(void **state) {
    (void)state;
    const struct grader_exercise *ex = quiz_row();
    size_t length;
    char *key = clu_read_file("solutions/06_cuda_memory_model/answers.txt", &length);
    CHECK(key != NULL, "cannot read the key (run from the repository root): %s", strerror(errno));
    for (int q = 0; ex->quiz[q].id; q++) {
        struct quiz_lookup k;
        quiz_lookup(key, length, ex->quiz[q].id, &k);
        CHECK(k.found == QUIZ_ONE, "%s: the key has no single answer (%d)", ex->quiz[q].id,
              (int)k.found);
        char alternatives[QUIZ_ANSWER_MAX + 1];
        snprintf(alternatives, sizeof alternatives, "%s", k.answer);
        int count = 0;
        for (char *save = NULL, *a = strtok_r(alternatives, "|", &save); a;
             a = strtok_r(NULL, "|", &save), count++) {
            char upper[QUIZ_ANSWER_MAX + 1], norm[QUIZ_ANSWER_MAX + 1];
            snprintf(upper, sizeof upper, "%s", a);
            for (char *c = upper; *c; c++)
                if (*c >= 'a' && *c <= 'z')
                    *c = (char)(*c - 'a' + 'A');
            quiz_normalise(upper, strlen(upper), norm, sizeof norm);
            CHECK(quiz_matches(k.answer, norm), "%s: alternative \"%s\" not accepted",
                  ex->quiz[q].id, a);
        }
        CHECK(count > 0, "%s: no alternative", ex->quiz[q].id);
        if (strlen(k.answer) == 1 && k.answer[0] >= 'a' && k.answer[0] <= 'd')
            for (char c = 'a'; c <= 'd'; c++) {
                char other[2] = {c, '\0'};
                CHECK(quiz_matches(k.answer, other) == (c == k.answer[0]), "%s: letter %c",
                      ex->quiz[q].id, c);
            }
    }
    free(key);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalise),
        cmocka_unit_test(test_normalise_cut),
        cmocka_unit_test(test_lookup_forms),
        cmocka_unit_test(test_lookup_line_ends),
        cmocka_unit_test(test_lookup_repeats),
        cmocka_unit_test(test_lookup_long_lines),
        cmocka_unit_test(test_lookup_random_bytes),
        cmocka_unit_test(test_matches),
        cmocka_unit_test(test_format_hint),
        cmocka_unit_test(test_all_right),
        cmocka_unit_test(test_stray_lines),
        cmocka_unit_test(test_quiz_all_right),
        cmocka_unit_test(test_quiz_wrong),
        cmocka_unit_test(test_quiz_empty_and_skeleton),
        cmocka_unit_test(test_quiz_missing_file),
        cmocka_unit_test(test_quiz_crlf_case_spacing),
        cmocka_unit_test(test_quiz_alternatives),
        cmocka_unit_test(test_quiz_repeated_lines),
        cmocka_unit_test(test_quiz_stray_note_and_hint),
        cmocka_unit_test(test_quiz_binary),
        cmocka_unit_test(test_quiz_large_file_refused),
        cmocka_unit_test(test_quiz_not_plain_files),
        cmocka_unit_test(test_quiz_no_stale_copy),
        cmocka_unit_test(test_quiz_key_problems),
        cmocka_unit_test(test_quiz_random_dress),
        cmocka_unit_test(test_workbook_quiz_table),
        cmocka_unit_test(test_workbook_key_and_skeleton),
        cmocka_unit_test(test_workbook_every_alternative),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
