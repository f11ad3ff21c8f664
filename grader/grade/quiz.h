/* quiz.h - the pure functions of the quiz grader (quiz.c): reading `qN: answer` lines, normalising
 * answers and matching them against a key with `|` alternatives. No file access here, so the unit
 * tests (tests/unit/test_quiz.c) can feed them any text.
 *
 * The format of answers.txt (the student's file and the key alike):
 * - one answer per line, `qN: answer`; the id is matched without regard to case and may have
 *   spaces before the colon (`Q3 : b` answers q3); a line `qN:` with nothing after the colon is
 *   no answer (the skeleton's lines look like that);
 * - lines whose first non-blank character is `#` are comments, and `#` after the colon starts a
 *   comment too (no answer contains `#`); blank lines are ignored;
 * - lines end with LF, CRLF or a lone CR; a UTF-8 byte order mark at the start is skipped;
 * - an answer is normalised before it is compared: leading and trailing whitespace removed,
 *   every run of inner whitespace made one space, ASCII letters made lower case (so `B`, ` b `
 *   and `__SYNCTHREADS()` are `b`, `b` and `__syncthreads()`), and every other control byte
 *   (NUL included) and every byte >= 0x7f made `?`, which no key contains;
 * - a question answered on several lines: lines that normalise to the same answer count once;
 *   different answers (QUIZ_CONFLICT) are right only when every one of them is (quiz_all_right:
 *   `__syncthreads()` and `__syncthreads` on two lines), so that listing every choice gains
 *   nothing;
 * - in the key, `|` separates the accepted answers (`q3: __syncthreads()|__syncthreads`); an
 *   answer and an accepted answer that are both plain decimal numbers match by value (`8.0` is
 *   `8`, `.50` is `0.5`).
 */
#ifndef QUIZ_H
#define QUIZ_H

#include <stddef.h>

#define QUIZ_ANSWER_MAX 200 /* characters of a normalised answer; a longer one is wrong */

/* What a text says about one question. */
enum quiz_found {
    QUIZ_NONE,     /* no line for the question with an answer after the colon */
    QUIZ_ONE,      /* one answer (repeated lines with the same answer count once) */
    QUIZ_CONFLICT, /* lines with different answers */
    QUIZ_TOO_LONG, /* an answer longer than QUIZ_ANSWER_MAX characters once normalised */
};

struct quiz_lookup {
    enum quiz_found found;
    char answer[QUIZ_ANSWER_MAX + 1]; /* the normalised answer (QUIZ_ONE), else "" */
    int line;                         /* line number (from 1) of the (first) answer, else 0 */
    int other_line; /* QUIZ_CONFLICT: the first line with a different answer, else 0 */
    int answers;    /* lines of the question that hold an answer */
};

/* in[0 .. length) normalised into out (at most size - 1 characters and a NUL, as snprintf;
 * size may be 0). Returns the length of the whole normalised text, which is >= size when it was
 * cut. */
size_t quiz_normalise(const char *in, size_t length, char *out, size_t size);

/* The answer to question id (e.g. "q3") in text[0 .. length); text may hold any bytes. */
void quiz_lookup(const char *text, size_t length, const char *id, struct quiz_lookup *q);

/* Whether answer (normalised, as quiz_lookup gives it) is one of the `|`-separated alternatives
 * of key, each normalised, or the whole key line normalised (so that the key file itself,
 * graded as a submission, scores full marks); an empty answer or alternative matches nothing. */
int quiz_matches(const char *key, const char *answer);

/* Whether question id has at least one answer in text and the key accepts every one of them
 * (quiz_matches on each normalised answer; an answer too long is not accepted). */
int quiz_all_right(const char *text, size_t length, const char *id, const char *key);

/* Lines of text that are neither blank, nor comments, nor `id: ...` for one of the count ids:
 * how many, and the line number of the first in *first (0 if none). */
int quiz_stray_lines(const char *text, size_t length, const char *const *ids, int count,
                     int *first);

/* A reminder of the answer's expected form, without giving the answer away: "one letter" when
 * every alternative of key is one letter and answer is not, "a number" when every alternative
 * is a number and answer holds no digit; NULL otherwise. */
const char *quiz_format_hint(const char *key, const char *answer);

#endif
