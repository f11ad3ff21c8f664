/* quiz.c - the quiz of an exercise without an OpenCL kernel: the student's answers.txt against
 * the key in solutions/<ex>/answers.txt, one test per question of the table row's quiz[] with
 * its points. The file format and the matching rules are in quiz.h.
 *
 * The student's file is never trusted: it is copied first (a plain file of at most 1 MB, by
 * grader_copy_source) and read from the copy as bytes; long lines, binary junk, CRLF line ends,
 * repeated lines and odd spacing or case are all handled by the parser. The report never shows
 * the key: a wrong answer is echoed back as read (so a typo can be seen), with a reminder of the
 * expected form (one letter, a number) at most. A question the key does not answer is a
 * configuration error of the grader: it is reported as such and scores 0.
 */
#define _POSIX_C_SOURCE 200809L /* lstat, unlink */
#include "grade/grade.h"
#include "grade/quiz.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the pure part (quiz.h) */

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

size_t quiz_normalise(const char *in, size_t length, char *out, size_t size) {
    size_t n = 0;
    int space = 0; /* whitespace seen since the last character kept */
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)in[i];
        if (is_space(c)) {
            space = 1;
            continue;
        }
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        else if (c < 0x20 || c >= 0x7f)
            c = '?'; /* NUL and other binary bytes: never part of a right answer */
        if (space && n > 0) {
            if (n + 1 < size)
                out[n] = ' ';
            n++;
        }
        space = 0;
        if (n + 1 < size)
            out[n] = (char)c;
        n++;
    }
    if (size > 0)
        out[n < size ? n : size - 1] = '\0';
    return n;
}

/* The next line of text from *pos (LF, CRLF or a lone CR ends it): its start and length, and its
 * number in *number. Returns 0 at the end of the text. */
static int next_line(const char *text, size_t length, size_t *pos, int *number, const char **start,
                     size_t *len) {
    if (*pos == 0 && length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        *pos = 3; /* a UTF-8 byte order mark, as some editors write */
    if (*pos >= length)
        return 0;
    size_t i = *pos;
    while (i < length && text[i] != '\n' && text[i] != '\r')
        i++;
    *start = text + *pos;
    *len = i - *pos;
    if (i < length && text[i] == '\r' && i + 1 < length && text[i + 1] == '\n')
        i++;
    *pos = i + 1;
    (*number)++;
    return 1;
}

/* One line taken apart: 1 for `id: answer` (the answer may be empty; a `#` ends it), 0 for a
 * blank line or a comment, -1 for anything else. */
static int parse_line(const char *p, size_t len, const char **id, size_t *id_len,
                      const char **answer, size_t *answer_len) {
    size_t i = 0;
    while (i < len && is_space((unsigned char)p[i]))
        i++;
    if (i == len || p[i] == '#')
        return 0;
    size_t start = i;
    while (i < len && p[i] != ':' && p[i] != '#' && !is_space((unsigned char)p[i]))
        i++;
    *id = p + start;
    *id_len = i - start;
    while (i < len && is_space((unsigned char)p[i]))
        i++;
    if (*id_len == 0 || i == len || p[i] != ':')
        return -1;
    i++;
    size_t end = i;
    while (end < len && p[end] != '#')
        end++;
    *answer = p + i;
    *answer_len = end - i;
    return 1;
}

/* Whether the token p[0 .. len) is id, ignoring the case of ASCII letters. */
static int same_id(const char *p, size_t len, const char *id) {
    if (strlen(id) != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char a = (unsigned char)p[i], b = (unsigned char)id[i];
        if (a >= 'A' && a <= 'Z')
            a = (unsigned char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (unsigned char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

/* The next answer to question id in text[0 .. length) from *pos on: its normalised length
 * (> QUIZ_ANSWER_MAX when cut), the answer in buf (QUIZ_ANSWER_MAX + 1 bytes) and its line number
 * in *number; 0 when there are no more. `q1:` with nothing after it is no answer. */
static size_t next_answer(const char *text, size_t length, const char *id, size_t *pos, int *number,
                          char *buf) {
    size_t len, id_len, answer_len;
    const char *line, *token, *answer;
    while (next_line(text, length, pos, number, &line, &len)) {
        if (parse_line(line, len, &token, &id_len, &answer, &answer_len) != 1 ||
            !same_id(token, id_len, id))
            continue;
        size_t n = quiz_normalise(answer, answer_len, buf, QUIZ_ANSWER_MAX + 1);
        if (n > 0)
            return n;
    }
    return 0;
}

void quiz_lookup(const char *text, size_t length, const char *id, struct quiz_lookup *q) {
    memset(q, 0, sizeof *q);
    char buf[QUIZ_ANSWER_MAX + 1];
    int too_long = 0, have = 0, number = 0;
    size_t pos = 0, n;
    while ((n = next_answer(text, length, id, &pos, &number, buf)) > 0) {
        q->answers++;
        if (q->line == 0)
            q->line = number;
        if (n > QUIZ_ANSWER_MAX) {
            too_long = 1;
        } else if (!have) {
            memcpy(q->answer, buf, n + 1);
            have = 1;
        } else if (strcmp(buf, q->answer) != 0 && q->other_line == 0) {
            q->other_line = number;
        }
    }
    if (too_long)
        q->found = QUIZ_TOO_LONG;
    else if (q->other_line)
        q->found = QUIZ_CONFLICT;
    else
        q->found = q->answers ? QUIZ_ONE : QUIZ_NONE;
    if (q->found != QUIZ_ONE)
        q->answer[0] = '\0';
}

/* Calls each(alternative, context) for every `|`-separated alternative of key, normalised and
 * not empty nor too long; stops at the first call that returns non-zero and returns it. */
static int each_alternative(const char *key, int (*each)(const char *, const void *),
                            const void *context) {
    char buf[QUIZ_ANSWER_MAX + 1];
    for (const char *p = key;;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        size_t n = quiz_normalise(p, len, buf, sizeof buf);
        if (n > 0 && n <= QUIZ_ANSWER_MAX) {
            int stop = each(buf, context);
            if (stop)
                return stop;
        }
        if (!bar)
            return 0;
        p = bar + 1;
    }
}

/* A plain decimal number (digits, one sign, a point; no exponent, hex or fraction): 1 with its
 * value in *value. */
static int decimal(const char *s, double *value) {
    if (!*s || strspn(s, "0123456789.+-") != strlen(s) || !strpbrk(s, "0123456789"))
        return 0;
    char *end;
    *value = strtod(s, &end);
    return *end == '\0';
}

/* An answer equals an alternative when the two read the same, or when both are decimal numbers
 * of the same value (8, 8.0 and 08; 0.5 and .50). */
static int equal(const char *alternative, const void *answer) {
    double a, b;
    if (strcmp(alternative, (const char *)answer) == 0)
        return 1;
    return decimal(alternative, &a) && decimal((const char *)answer, &b) && a == b;
}

int quiz_matches(const char *key, const char *answer) {
    if (answer[0] == '\0')
        return 0;
    /* the whole key line counts too, so that solutions/, graded as a submission, gets full marks
     * (nobody guesses a key's list of alternatives in its order) */
    char whole[QUIZ_ANSWER_MAX + 1];
    size_t n = quiz_normalise(key, strlen(key), whole, sizeof whole);
    if (n <= QUIZ_ANSWER_MAX && strcmp(whole, answer) == 0)
        return 1;
    return each_alternative(key, equal, answer);
}

int quiz_all_right(const char *text, size_t length, const char *id, const char *key) {
    char buf[QUIZ_ANSWER_MAX + 1];
    int number = 0, answers = 0;
    size_t pos = 0, n;
    while ((n = next_answer(text, length, id, &pos, &number, buf)) > 0) {
        if (n > QUIZ_ANSWER_MAX || !quiz_matches(key, buf))
            return 0;
        answers++;
    }
    return answers > 0;
}

int quiz_stray_lines(const char *text, size_t length, const char *const *ids, int count,
                     int *first) {
    int stray = 0, number = 0;
    size_t pos = 0, len, id_len, answer_len;
    const char *line, *token, *answer;
    *first = 0;
    while (next_line(text, length, &pos, &number, &line, &len)) {
        int kind = parse_line(line, len, &token, &id_len, &answer, &answer_len);
        if (kind == 0)
            continue;
        int known = 0;
        for (int i = 0; kind == 1 && i < count && !known; i++)
            known = same_id(token, id_len, ids[i]);
        if (!known && stray++ == 0)
            *first = number;
    }
    return stray;
}

static int one_letter(const char *s) {
    return s[0] >= 'a' && s[0] <= 'z' && s[1] == '\0';
}

static int number_like(const char *s) {
    int digits = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            digits++;
        else if (!strchr("+-./", *s))
            return 0;
    }
    return digits > 0;
}

static int not_letter(const char *alternative, const void *unused) {
    (void)unused;
    return !one_letter(alternative);
}

static int not_number(const char *alternative, const void *unused) {
    (void)unused;
    return !number_like(alternative);
}

static int any(const char *alternative, const void *unused) {
    (void)alternative, (void)unused;
    return 1;
}

const char *quiz_format_hint(const char *key, const char *answer) {
    if (!each_alternative(key, any, NULL))
        return NULL; /* no alternative at all: nothing to say */
    if (!each_alternative(key, not_letter, NULL) && !one_letter(answer))
        return "one letter";
    if (!each_alternative(key, not_number, NULL) && !strpbrk(answer, "0123456789"))
        return "a number";
    return NULL;
}

/* ---------------------------------------------------------------- grading */

/* The whole file, or NULL (the library's reader). */
static char *read_all(const char *path, size_t *length) {
    return clu_read_file(path, length);
}

/* A normalised answer fit to show in a report: at most 60 characters (it is printable already). */
static void shown(const char *answer, char *buf, size_t size) {
    if (strlen(answer) > 60)
        snprintf(buf, size, "%.57s...", answer);
    else
        snprintf(buf, size, "%s", answer);
}

/* Why the key cannot grade question id, or NULL when it can (its answer in *key). */
static const char *key_problem(const char *key_text, size_t key_length, const char *id,
                               struct quiz_lookup *key) {
    if (!key_text)
        return "is missing or unreadable";
    quiz_lookup(key_text, key_length, id, key);
    switch (key->found) {
    case QUIZ_ONE:
        return NULL;
    case QUIZ_NONE:
        return "has no answer for this question";
    case QUIZ_CONFLICT:
        return "answers this question on several lines differently";
    case QUIZ_TOO_LONG:
        return "has an answer longer than the grader takes for this question";
    }
    return "cannot be used";
}

void grader_quiz_tests(const struct grader_config *cfg, const struct grader_exercise *ex,
                       struct grader_exercise_result *r) {
    char work[PATH_MAX], src[PATH_MAX + 64], copy[PATH_MAX + 64], key_path[PATH_MAX + 64];
    char problem[300] = "", why[160];
    snprintf(work, sizeof work, "%s/%s", cfg->work, ex->id);
    grader_make_dirs(work);
    snprintf(src, sizeof src, "%s/%s/answers.txt", cfg->submission, ex->id);
    snprintf(copy, sizeof copy, "%s/answers.txt", work);
    snprintf(key_path, sizeof key_path, "%s/solutions/%s/answers.txt", cfg->root, ex->id);
    unlink(copy); /* nothing of an earlier run can be read */

    /* the student's answers: read only from the grader's checked copy */
    char *text = NULL;
    size_t length = 0;
    struct stat st;
    if (lstat(src, &st) != 0 && errno == ENOENT)
        snprintf(problem, sizeof problem, "%s/answers.txt is missing from the submission", ex->id);
    else if (grader_copy_source(src, copy, why, sizeof why) != 0)
        snprintf(problem, sizeof problem, "%s/answers.txt was not read: %s", ex->id, why);
    else if (!(text = read_all(copy, &length)))
        snprintf(problem, sizeof problem, "%s/answers.txt could not be read back (%s)", ex->id,
                 strerror(errno));

    size_t key_length = 0;
    char *key_text = read_all(key_path, &key_length);

    const char *ids[GRADER_MAX_QUESTIONS];
    int count = 0;
    while (count < GRADER_MAX_QUESTIONS && ex->quiz[count].id) {
        ids[count] = ex->quiz[count].id;
        count++;
    }
    int first_stray = 0, stray_told = 0;
    int stray = text ? quiz_stray_lines(text, length, ids, count, &first_stray) : 0;

    for (int q = 0; q < count; q++) {
        const char *id = ex->quiz[q].id;
        int points = ex->quiz[q].points;
        char name[64], seen[64];
        snprintf(name, sizeof name, "quiz %s", id);
        struct quiz_lookup key, got;
        if (cfg->handout) { /* (the key is the instructor's) */
            if (text)
                quiz_lookup(text, length, id, &got);
            grader_add_instructors(r, name, points,
                                   "%s: the instructor's grading checks it against the key, "
                                   "which the handout leaves out",
                                   text && got.found != QUIZ_NONE ? "answered" : "no answer yet");
            continue;
        }
        const char *bad_key = key_problem(key_text, key_length, id, &key);
        if (bad_key) {
            grader_add_test(r, name, 0, points,
                            "grader configuration error: the key solutions/%s/answers.txt %s "
                            "(%s); no points can be given for it until the instructor fixes the "
                            "key",
                            ex->id, bad_key, id);
            continue;
        }
        if (!text) {
            grader_add_verdict(r, GRADER_NOT_RUN, name, 0, points, "no answer: %s", problem);
            continue;
        }
        quiz_lookup(text, length, id, &got);
        switch (got.found) {
        case QUIZ_NONE:
            if (stray > 0 && !stray_told++) /* once: on the first question without an answer */
                grader_add_verdict(
                    r, GRADER_NOT_RUN, name, 0, points,
                    "no answer: answers.txt has no line `%s: <answer>` with an answer "
                    "after the colon\nnote: %d line%s of answers.txt %s not of the "
                    "form `qN: answer` for a question of this quiz and %s ignored "
                    "(the first is line %d)",
                    id, stray, stray == 1 ? "" : "s", stray == 1 ? "is" : "are",
                    stray == 1 ? "was" : "were", first_stray);
            else
                grader_add_verdict(
                    r, GRADER_NOT_RUN, name, 0, points,
                    "no answer: answers.txt has no line `%s: <answer>` with an answer "
                    "after the colon",
                    id);
            break;
        case QUIZ_CONFLICT:
            if (quiz_all_right(text, length, id, key.answer)) {
                grader_add_test(r, name, points, points, "right (on %d lines)", got.answers);
                break;
            }
            grader_add_test(r, name, 0, points,
                            "counted as wrong: lines %d and %d give %s different answers; keep "
                            "one line per question",
                            got.line, got.other_line, id);
            break;
        case QUIZ_TOO_LONG:
            grader_add_test(r, name, 0, points,
                            "counted as wrong: the answer on line %d is longer than %d characters",
                            got.line, QUIZ_ANSWER_MAX);
            break;
        case QUIZ_ONE:
            if (quiz_matches(key.answer, got.answer)) {
                grader_add_test(r, name, points, points, "right");
            } else {
                const char *hint = quiz_format_hint(key.answer, got.answer);
                shown(got.answer, seen, sizeof seen);
                if (hint)
                    grader_add_test(r, name, 0, points,
                                    "wrong: line %d reads \"%s\" (this question takes %s: see "
                                    "README.md)",
                                    got.line, seen, hint);
                else
                    grader_add_test(r, name, 0, points, "wrong: line %d reads \"%s\"", got.line,
                                    seen);
            }
            break;
        }
    }
    free(text);
    free(key_text);
}
