/* test_intake.c - unit tests (cmocka) of the intake (grader/intake/): platform names read where
 * the platform writes them, on random names with hostile file names after the platform's part
 * (a classmate's Moodle number, a Canvas LATE, both at once); a class walked into students (a
 * Canvas user's several files one student, a name read two ways skipped, the time from the
 * instructor's disk and never from an archive's members); one student's uploads staged (the
 * newest of several archives, an archive inside an archive, loose files for one exercise, too
 * deep a nesting refused, an empty upload listing what it held, an oversized file left out);
 * names shown as valid UTF-8 (intake_shown: escaped, cut at a character).
 * Archives are made here with zip and tar. Random inputs come from a seed printed at the start;
 * TEST_INTAKE_SEED=<seed> repeats a run.
 */
#define _GNU_SOURCE /* open_memstream, mkdtemp */
#include "grader.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "intake/intake.h"
#include "testkit.h"

static char g_tmp[64];

/* ---------------------------------------------------------------- helpers */

/* A random word of N letters from SET. */
static void random_word(struct rng *r, char *out, size_t n, const char *set) {
    size_t k = strlen(set);
    for (size_t i = 0; i < n; i++)
        out[i] = set[rng_range(r, 0, (long)k - 1)];
    out[n] = '\0';
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    fputs(text, f);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

/* Run a packing tool in DIR; it must succeed. */
static void tool(const char *dir, const char *const argv[]) {
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        if (chdir(dir) != 0)
            _exit(127);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "%s in %s failed", argv[0], dir);
}

/* DIR/NAME made as a folder; its path in OUT. */
static void folder(const char *dir, const char *name, char *out, size_t size) {
    snprintf(out, size, "%s/%s", dir, name);
    CHECK(mkdir(out, 0755) == 0, "mkdir %s", out);
}

/* A fresh case folder under g_tmp. */
static void make_case(const char *name, char *out, size_t size) {
    folder(g_tmp, name, out, size);
}

/* An exercise folder EX under DIR with a kernel.cl holding MARK. */
static void exercise(const char *dir, const char *ex, const char *mark) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, ex);
    CHECK(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
    snprintf(path, sizeof path, "%s/%s/kernel.cl", dir, ex);
    write_text(path, mark);
    snprintf(path, sizeof path, "%s/%s/main.c", dir, ex);
    write_text(path, "int main(void) { return 0; }\n");
}

static void set_time(const char *path, time_t when) {
    struct timespec t[2] = {{when, 0}, {when, 0}};
    CHECK(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) == 0, "utimensat %s", path);
}

static char *read_text(const char *path) {
    static char buffer[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buffer, 1, sizeof buffer - 1, f);
    buffer[n] = '\0';
    fclose(f);
    return buffer;
}

static const char *const g_exercises[] = {"04_local_B", "05_blocked_16x16", NULL};

/* Stage UPLOADS of case folder DIR into DIR/staged; what the intake said in SAID. */
static void stage(const char *dir, const char *single, const char *const *uploads, size_t count,
                  char *said, size_t size) {
    char into[600], scratch[600];
    snprintf(into, sizeof into, "%s/staged", dir);
    snprintf(scratch, sizeof scratch, "%s/scratch", dir);
    CHECK(mkdir(scratch, 0700) == 0, "mkdir %s", scratch);
    struct intake_stage_options options = {
        .into = into, .scratch = scratch, .exercises = g_exercises, .single = single};
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    CHECK(intake_stage(&options, uploads, count, out) == INTAKE_OK, "intake_stage in %s", dir);
    fclose(out);
    snprintf(said, size, "%s", text);
    free(text);
}

/* ---------------------------------------------------------------- names */

/* Moodle's number is the first `_N_assignsubmission_`, whatever the student's file name holds. */
static void test_moodle_names(void **state) {
    (void)state;
    struct rng r = rng_for("moodle");
    for (int i = 0; i < 200; i++) {
        char first[16], last[16], name[600], rest[300], number[16], other[16];
        random_word(&r, first, (size_t)rng_range(&r, 1, 10), "ABCDEFGHabcdefgh-'");
        random_word(&r, last, (size_t)rng_range(&r, 1, 10), "IJKLMNijklmn");
        snprintf(number, sizeof number, "%ld", rng_range(&r, 1, 9999999));
        snprintf(other, sizeof other, "%ld", rng_range(&r, 1, 9999999));
        long kind = rng_range(&r, 0, 3);
        if (kind == 0)
            snprintf(rest, sizeof rest, "x_%s_assignsubmission_file_.zip", other);
        else if (kind == 1)
            snprintf(rest, sizeof rest, "my work_LATE_%s_1_%s.tar.gz", other, first);
        else if (kind == 2)
            rest[0] = '\0';
        else
            random_word(&r, rest, (size_t)rng_range(&r, 1, 40), "abc_123 .-");
        snprintf(name, sizeof name, "%s %s_%s_assignsubmission_file_%s", first, last, number, rest);
        struct intake_name parsed;
        const char *why = NULL;
        CHECK(intake_parse_name(name, &parsed, &why) == 0, "%s: refused (%s)", name, why);
        CHECK(parsed.platform == INTAKE_MOODLE, "%s: read as %s", name,
              intake_platform_word(parsed.platform));
        CHECK(strcmp(parsed.number, number) == 0, "%s: number %s, not %s", name, parsed.number,
              number);
        CHECK(strncmp(parsed.person, first, strlen(first)) == 0 && !parsed.late, "%s: person '%s'",
              name, parsed.person);
        CHECK(strcmp(parsed.rest, rest) == 0, "%s: rest '%s', not '%s'", name, parsed.rest, rest);
    }
}

/* Canvas's prefix is anchored at the start; a student's `_LATE_` or numbers after it do not count;
 * a Canvas name whose own part holds Moodle's marker reads two ways and is refused. */
static void test_canvas_names_and_ambiguity(void **state) {
    (void)state;
    struct rng r = rng_for("canvas");
    for (int i = 0; i < 200; i++) {
        char login[24], name[600], rest[300], uid[16], fid[16];
        random_word(&r, login, (size_t)rng_range(&r, 1, 20), "abcdefghijklmnopqrstuvwxyz");
        snprintf(uid, sizeof uid, "%ld", rng_range(&r, 1, 99999999));
        snprintf(fid, sizeof fid, "%ld", rng_range(&r, 1, 99999999));
        int late = (int)rng_range(&r, 0, 1);
        long kind = rng_range(&r, 0, 2);
        if (kind == 0)
            snprintf(rest, sizeof rest, "LATE_%ld_%ld_kernel.cl", rng_range(&r, 1, 99),
                     rng_range(&r, 1, 99));
        else if (kind == 1)
            snprintf(rest, sizeof rest, "x_%ld_assignsubmission_file_.zip", rng_range(&r, 1, 999));
        else
            random_word(&r, rest, (size_t)rng_range(&r, 1, 40), "abc_123 .-");
        snprintf(name, sizeof name, "%s_%s%s_%s_%s", login, late ? "LATE_" : "", uid, fid, rest);
        struct intake_name parsed;
        const char *why = NULL;
        CHECK(intake_parse_name(name, &parsed, &why) == 0, "%s: refused (%s)", name, why);
        if (kind == 1) {
            CHECK(parsed.platform == INTAKE_AMBIGUOUS && why && strstr(why, "Canvas"),
                  "%s: read as %s, not refused as ambiguous", name,
                  intake_platform_word(parsed.platform));
            continue;
        }
        CHECK(parsed.platform == INTAKE_CANVAS, "%s: read as %s", name,
              intake_platform_word(parsed.platform));
        CHECK(strcmp(parsed.number, uid) == 0 && parsed.late == late &&
                  strcmp(parsed.person, login) == 0 && strcmp(parsed.rest, rest) == 0,
              "%s: %s late %d person %s rest %s", name, parsed.number, parsed.late, parsed.person,
              parsed.rest);
    }
}

/* Plain ids stay plain; names no class entry can have are refused; Canvas's resubmission names. */
static void test_plain_refused_and_editable_names(void **state) {
    (void)state;
    static const char *const plain[] = {"ada",           "ada.zip", "12345.tar.gz",  "a_b_c",
                                        "x_12_y_34.zip", "x_1_2_",  "_1_2_kernel.cl"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        struct intake_name parsed;
        const char *why = NULL;
        CHECK(intake_parse_name(plain[i], &parsed, &why) == 0 && parsed.platform == INTAKE_PLAIN,
              "%s: read as %s (%s)", plain[i], intake_platform_word(parsed.platform),
              why ? why : "");
    }
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    static const char *const refused[] = {"", "a\nb_1_assignsubmission_file_", "tab\there", NULL};
    for (size_t i = 0; i < 4; i++) {
        const char *name = i < 3 ? refused[i] : long_name;
        struct intake_name parsed;
        const char *why = NULL;
        CHECK(intake_parse_name(name, &parsed, &why) == -1 && why, "'%s' was not refused", name);
    }
    static const char *const pairs[][2] = {
        {"kernel.cl", "kernel.cl"}, {"kernel-3.cl", "kernel.cl"},    {"main-12.c", "main.c"},
        {"kernel-.cl", NULL},       {"kernel-1x.cl", NULL},          {"kernel.cl.bak", NULL},
        {"Kernel.cl", NULL},        {"answers-2.txt", "answers.txt"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        const char *got = intake_editable_name(pairs[i][0]);
        CHECK((got == NULL && pairs[i][1] == NULL) ||
                  (got && pairs[i][1] && strcmp(got, pairs[i][1]) == 0),
              "%s read as %s", pairs[i][0], got ? got : "(none)");
    }
}

/* ---------------------------------------------------------------- a class */

/* A class: a Moodle attacker naming a classmate's number in its own file name, the classmate, a
 * Canvas user's two files, a Canvas name with Moodle's marker in it, a plain backdated archive,
 * a plain folder. Each record's owner and time are the platform's or the disk's. */
static void test_class(void **state) {
    (void)state;
    struct rng r = rng_for("class");
    char dir[300], path[700], src[400];
    make_case("class", dir, sizeof dir);
    folder(g_tmp, "class_src", src, sizeof src);
    exercise(src, "04_local_B", "// mine\n");
    /* a member time far in the future (the student's clock): never the upload's time */
    snprintf(path, sizeof path, "%s/04_local_B/kernel.cl", src);
    set_time(path, 4102444800); /* 2100 */
    tool(src, (const char *const[]){"tar", "-czf", "../class/ada.tar.gz", "04_local_B", NULL});
    time_t t_ada = 1767225600 + rng_range(&r, 0, 86400 * 30);
    snprintf(path, sizeof path, "%s/ada.tar.gz", dir);
    set_time(path, t_ada);
    long victim = rng_range(&r, 100, 999), attacker = victim + 1,
         canvas = rng_range(&r, 1000, 9999);
    snprintf(path, sizeof path,
             "%s/Eve X_%ld_assignsubmission_file_a_%ld_assignsubmission_file_.zip", dir, attacker,
             victim);
    write_text(path, "not even a zip");
    char moodle_dir[600];
    snprintf(moodle_dir, sizeof moodle_dir, "%s/Vic Tim_%ld_assignsubmission_file_", dir, victim);
    CHECK(mkdir(moodle_dir, 0755) == 0, "mkdir %s", moodle_dir);
    snprintf(path, sizeof path, "%s/work.zip", moodle_dir);
    write_text(path, "x");
    time_t t_vic = 1767225600 + rng_range(&r, 0, 86400 * 30);
    set_time(path, t_vic);
    time_t t_k = 1767225600 + rng_range(&r, 0, 86400), t_m = t_k + rng_range(&r, 1, 86400);
    snprintf(path, sizeof path, "%s/bob_LATE_%ld_1_kernel.cl", dir, canvas);
    write_text(path, "k");
    set_time(path, t_k);
    snprintf(path, sizeof path, "%s/bob_LATE_%ld_2_main.c", dir, canvas);
    write_text(path, "m");
    set_time(path, t_m);
    snprintf(path, sizeof path, "%s/mal_%ld_3_x_%ld_assignsubmission_file_.zip", dir, canvas + 1,
             victim);
    write_text(path, "x");
    char *text = NULL, *errors = NULL;
    size_t length = 0, error_length = 0;
    FILE *out = open_memstream(&text, &length), *err = open_memstream(&errors, &error_length);
    CHECK(intake_class(dir, NULL, out, err) == INTAKE_OK, "intake_class");
    fclose(out);
    fclose(err);
    char want[900];
    snprintf(want, sizeof want,
             "ada\tplain\t\t\t\t%lld\tthe upload's own file time on this disk\t%s/ada.tar.gz\n",
             (long long)t_ada, dir);
    CHECK(strstr(text, want), "the backdated archive's record: want\n%s\ngot\n%s", want, text);
    snprintf(want, sizeof want, "moodle:%ld\tmoodle\t%ld\tEve X\t\t", attacker, attacker);
    CHECK(strstr(text, want), "the attacker is its own number %ld:\n%s", attacker, text);
    snprintf(want, sizeof want, "moodle:%ld\tmoodle\t%ld\tVic Tim\t\t%lld\tthe platform", victim,
             victim, (long long)t_vic);
    CHECK(strstr(text, want), "the victim keeps its number and its folder's file time:\n%s", text);
    snprintf(want, sizeof want, "canvas:%ld\tcanvas\t%ld\tbob\tlate\t%lld\t", canvas, canvas,
             (long long)t_m);
    CHECK(strstr(text, want), "the Canvas user's files are one late student, newest time:\n%s",
          text);
    snprintf(want, sizeof want, "%s/bob_LATE_%ld_1_kernel.cl\t%s/bob_LATE_%ld_2_main.c\n", dir,
             canvas, dir, canvas);
    CHECK(strstr(text, want), "both Canvas files in one record:\n%s", text);
    CHECK(strstr(errors, "skipped mal_") && strstr(errors, "reads as Canvas's and as Moodle's"),
          "the name read two ways is skipped and said: %s", errors);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 4, "4 students, not %d:\n%s", lines, text);
    free(text);
    free(errors);
}

/* Every name the intake shows is valid UTF-8: a byte of another encoding escaped, a control
 * byte as ?, a long name cut at a character (never inside one, never inside an escape). */
static void test_shown_names(void **state) {
    (void)state;
    struct rng r = rng_for("shown");
    char out[64];
    CHECK(strcmp(intake_shown("caf\351.txt", out, sizeof out), "caf\\xE9.txt") == 0, "Latin-1: %s",
          out);
    CHECK(strcmp(intake_shown("a\nb\x7f\xc3\xa9\xed\xa0\x80\xc0\xaf", out, sizeof out),
                 "a?b?\xc3\xa9\\xED\\xA0\\x80\\xC0\\xAF") == 0,
          "controls, a surrogate, an overlong form: %s", out);
    char han[301] = "";
    for (int i = 0; i < 100; i++)
        strcat(han, "\xe6\xbc\xa2");
    for (size_t size = 4; size < sizeof out; size++) {
        intake_shown(han, out, size);
        size_t n = strlen(out), kept = (size - 4) / 3 * 3;
        CHECK(n == kept + 3 && strncmp(out, han, kept) == 0 && strcmp(out + kept, "...") == 0,
              "cut at a character in %zu bytes: %s", size, out);
    }
    /* random bytes: the result always decodes (each byte kept, escaped or ?) */
    for (int round = 0; round < 200; round++) {
        char name[40], shown[200];
        size_t n = (size_t)rng_range(&r, 1, (long)sizeof name - 1);
        for (size_t i = 0; i < n; i++)
            name[i] = (char)rng_range(&r, 1, 255);
        name[n] = '\0';
        intake_shown(name, shown, (size_t)rng_range(&r, 4, (long)sizeof shown));
        for (const unsigned char *p = (const unsigned char *)shown; *p;) {
            size_t k = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 4;
            CHECK(*p >= 0x20 && *p != 0x7f && (*p < 0x80 || *p >= 0xc2) && *p <= 0xf4,
                  "byte %02x in %s", *p, shown);
            for (size_t i = 1; i < k; i++)
                CHECK((p[i] & 0xc0) == 0x80, "a cut character in %s", shown);
            p += k;
        }
    }
    /* an upload holding a Latin-1 name (Info-ZIP's zip keeps the bytes) says it escaped */
    char dir[300], up[400], path[700], said[2048];
    make_case("shown", dir, sizeof dir);
    folder(dir, "upload", up, sizeof up);
    snprintf(path, sizeof path, "%s/caf\351.txt", up);
    write_text(path, "x");
    stage(dir, NULL, (const char *const[]){up}, 1, said, sizeof said);
    CHECK(strcmp(said, "empty: no exercise folder (the upload held: caf\\xE9.txt)\n") == 0,
          "said: %s", said);
}

/* ---------------------------------------------------------------- staging */

/* A Moodle folder with several archives: the newest by its file time, and `took:` says which. */
static void test_stage_newest_archive(void **state) {
    (void)state;
    struct rng r = rng_for("newest");
    char dir[300], up[400], src[400], path[700];
    make_case("newest", dir, sizeof dir);
    folder(dir, "upload", up, sizeof up);
    long count = rng_range(&r, 2, 5), newest = rng_range(&r, 0, count - 1);
    for (long i = 0; i < count; i++) {
        char name[32], mark[32];
        snprintf(name, sizeof name, "src%ld", i);
        folder(dir, name, src, sizeof src);
        snprintf(mark, sizeof mark, "// version %ld\n", i);
        exercise(src, "04_local_B", mark);
        snprintf(path, sizeof path, "../upload/v%ld.zip", i);
        tool(src, (const char *const[]){"zip", "-qr", path, "04_local_B", NULL});
        snprintf(path, sizeof path, "%s/v%ld.zip", up, i);
        set_time(path, 1767225600 + (i == newest ? 100000 : rng_range(&r, 0, 99999)));
    }
    char said[2048];
    stage(dir, NULL, (const char *const[]){up}, 1, said, sizeof said);
    char want[128];
    snprintf(want, sizeof want,
             "graded\ntook: the newest of %ld archives by its file time, v%ld.zip", count, newest);
    CHECK(strncmp(said, want, strlen(want)) == 0, "said:\n%s\nwant:\n%s", said, want);
    snprintf(path, sizeof path, "%s/staged/04_local_B/kernel.cl", dir);
    char mark[32];
    snprintf(mark, sizeof mark, "// version %ld\n", newest);
    const char *got = read_text(path);
    CHECK(got && strcmp(got, mark) == 0, "staged kernel: %s", got ? got : "(none)");
}

/* An archive inside an archive is staged; one nested past the cap is refused. */
static void test_stage_nested_archives(void **state) {
    (void)state;
    struct rng r = rng_for("nested");
    for (int depth = 1; depth <= INTAKE_MAX_NESTING + 1; depth++) {
        char dir[300], name[32], src[400], said[2048], path[700];
        snprintf(name, sizeof name, "nested%d", depth);
        make_case(name, dir, sizeof dir);
        folder(dir, "src", src, sizeof src);
        char mark[48];
        snprintf(mark, sizeof mark, "// %ld\n", rng_range(&r, 0, 1000000));
        exercise(src, "05_blocked_16x16", mark);
        tool(src, (const char *const[]){"zip", "-qr", "a0.zip", "05_blocked_16x16", NULL});
        for (int level = 1; level <= depth; level++) {
            char inner[16], outer[16];
            snprintf(inner, sizeof inner, (level - 1) % 2 ? "a%d.tar.gz" : "a%d.zip", level - 1);
            snprintf(outer, sizeof outer, level % 2 ? "a%d.tar.gz" : "a%d.zip", level);
            if (level % 2)
                tool(src, (const char *const[]){"tar", "-czf", outer, inner, NULL});
            else
                tool(src, (const char *const[]){"zip", "-q", outer, inner, NULL});
        }
        snprintf(path, sizeof path, "%s/a%d.%s", src, depth, depth % 2 ? "tar.gz" : "zip");
        stage(dir, NULL, (const char *const[]){path}, 1, said, sizeof said);
        if (depth <= INTAKE_MAX_NESTING) {
            snprintf(path, sizeof path, "%s/staged/05_blocked_16x16/kernel.cl", dir);
            const char *got = read_text(path);
            CHECK(strncmp(said, "graded\n", 7) == 0 && got && strcmp(got, mark) == 0,
                  "nested %d deep: said %s, kernel %s", depth, said, got ? got : "(none)");
        } else {
            CHECK(strstr(said, "refused: archive refused: archives nested more than 2 deep"),
                  "nested %d deep: said %s", depth, said);
        }
    }
}

/* Canvas's loose files (several versions) for an assignment of one exercise; without one, they
 * are not guessed into an exercise. */
static void test_stage_loose_files(void **state) {
    (void)state;
    struct rng r = rng_for("loose");
    char dir[300], path[4][700], said[2048];
    make_case("loose", dir, sizeof dir);
    static const char *const names[] = {"u_1_10_kernel.cl", "u_1_11_kernel-1.cl", "u_1_12_main.c",
                                        "u_1_13_notes.txt"};
    long newer = rng_range(&r, 0, 1); /* which kernel upload is newer */
    for (int i = 0; i < 4; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
        write_text(path[i], names[i]);
        set_time(path[i], 1767225600 + (i < 2 ? (i == newer ? 500 : 100) : 300));
    }
    const char *const uploads[] = {path[0], path[1], path[2], path[3]};
    stage(dir, "04_local_B", uploads, 4, said, sizeof said);
    char file[800];
    snprintf(file, sizeof file, "%s/staged/04_local_B/kernel.cl", dir);
    const char *got = read_text(file);
    CHECK(strncmp(said, "graded\n", 7) == 0 && got && strcmp(got, names[newer]) == 0,
          "said %s, kernel %s (want %s)", said, got ? got : "(none)", names[newer]);
    CHECK(strstr(said, "as kernel.cl") && strstr(said, "as main.c"), "said %s", said);
    char other[300];
    make_case("loose_many", other, sizeof other);
    snprintf(dir, sizeof dir, "%s", other);
    stage(dir, NULL, uploads, 4, said, sizeof said);
    CHECK(strncmp(said, "empty: no exercise folder (the upload held: ", 44) == 0 &&
              strstr(said, "notes.txt") && strstr(said, "took: nothing: loose"),
          "without one exercise: %s", said);
}

/* An empty upload lists what it held; an editable file over the cap is not taken. */
static void test_stage_empty_and_oversized(void **state) {
    (void)state;
    char dir[300], up[400], path[700], said[2048];
    make_case("empty", dir, sizeof dir);
    folder(dir, "upload", up, sizeof up);
    snprintf(path, sizeof path, "%s/report.pdf", up);
    write_text(path, "%PDF");
    folder(up, "stuff", path, sizeof path);
    stage(dir, NULL, (const char *const[]){up}, 1, said, sizeof said);
    CHECK(strstr(said, "empty: no exercise folder (the upload held: ") &&
              strstr(said, "report.pdf") && strstr(said, "stuff/"),
          "said %s", said);
    make_case("oversized", dir, sizeof dir);
    folder(dir, "upload", up, sizeof up);
    exercise(up, "04_local_B", "// fine\n");
    snprintf(path, sizeof path, "%s/04_local_B/main.c", up);
    FILE *f = fopen(path, "w");
    CHECK(f && fseek(f, INTAKE_MAX_FILE, SEEK_SET) == 0 && fputc('x', f) == 'x' && fclose(f) == 0,
          "cannot write %s", path);
    stage(dir, NULL, (const char *const[]){up}, 1, said, sizeof said);
    snprintf(path, sizeof path, "%s/staged/04_local_B/main.c", dir);
    struct stat st;
    CHECK(strncmp(said, "graded", 6) == 0 && lstat(path, &st) != 0,
          "an oversized main.c was taken: %s", said);
}

/* ---------------------------------------------------------------- Moodle's worksheet */

/* RFC 4180 fields (quotes, commas and line breaks inside quotes), Moodle's dates, and a
 * worksheet with its columns in a random order: each participant's time, "-" none. */
static void test_worksheet(void **state) {
    (void)state;
    struct rng r = rng_for("worksheet");
    const char *at = "a,\"b,\"\"c\"\"\",\"d\ne\"\r\nf";
    char field[64];
    int end = 0;
    static const char *const want[] = {"a", "b,\"c\"", "d\ne", "f"};
    static const int ends[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++)
        CHECK(intake_csv_field(&at, field, sizeof field, &end) == 0 &&
                  strcmp(field, want[i]) == 0 && end == ends[i],
              "field %d: '%s' end %d", i, field, end);
    CHECK(intake_csv_field(&at, field, sizeof field, &end) == -1, "past the end");
    CHECK(intake_moodle_time("-") == -1 && intake_moodle_time("yesterday") == -1, "not dates");
    struct tm tm = {.tm_year = 126, .tm_mon = 0, .tm_mday = 12, .tm_hour = 13, .tm_isdst = -1};
    CHECK(intake_moodle_time("Monday, 12 January 2026, 1:00 PM") == (long long)mktime(&tm),
          "Moodle's date");
    /* a worksheet: the two columns among others, in a random place */
    const char *names[] = {"Identifier", "Full name", "Status", "Last modified (submission)",
                           "Grade"};
    for (int i = 4; i > 0; i--) {
        int j = (int)rng_range(&r, 0, i);
        const char *t = names[i];
        names[i] = names[j];
        names[j] = t;
    }
    char text[4096];
    size_t n = 0;
    for (int i = 0; i < 5; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", i ? "," : "", names[i]);
    n += (size_t)snprintf(text + n, sizeof text - n, "\r\n");
    long number[6];
    int day[6];
    for (int row = 0; row < 6; row++) {
        number[row] = rng_range(&r, 1, 999999);
        day[row] = row == 5 ? 0 : (int)rng_range(&r, 1, 28);
        for (int i = 0; i < 5; i++) {
            const char *c = names[i];
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", i ? "," : "");
            if (!strcmp(c, "Identifier"))
                n +=
                    (size_t)snprintf(text + n, sizeof text - n, "\"Participant %ld\"", number[row]);
            else if (!strcmp(c, "Last modified (submission)") && day[row])
                n += (size_t)snprintf(text + n, sizeof text - n,
                                      "\"Friday, %d February 2026, 11:%02d AM\"", day[row], row);
            else if (!strcmp(c, "Last modified (submission)"))
                n += (size_t)snprintf(text + n, sizeof text - n, "-");
            else
                n += (size_t)snprintf(text + n, sizeof text - n, "\"x, \"\"y\"\"\"");
        }
        n += (size_t)snprintf(text + n, sizeof text - n, "\r\n");
    }
    char *got = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&got, &length), *err = fopen("/dev/null", "w");
    CHECK(intake_worksheet(text, out, err) == INTAKE_OK, "the worksheet is read:\n%s", text);
    fclose(out);
    fclose(err);
    char expect[1024] = "";
    size_t e = 0;
    for (int row = 0; row < 5; row++) {
        struct tm t = {.tm_year = 126,
                       .tm_mon = 1,
                       .tm_mday = day[row],
                       .tm_hour = 11,
                       .tm_min = row,
                       .tm_isdst = -1};
        e += (size_t)snprintf(expect + e, sizeof expect - e, "%ld\t%lld\n", number[row],
                              (long long)mktime(&t));
    }
    CHECK(strcmp(got, expect) == 0, "read\n%s\nexpected\n%s\nfrom\n%s", got, expect, text);
    free(got);
    err = fopen("/dev/null", "w");
    CHECK(intake_worksheet("Name,Grade\r\nx,1\r\n", stdout, err) == INTAKE_REFUSED,
          "a CSV without the columns is no worksheet");
    fclose(err);
}

/* The worksheet filled: columns in a random order, cells with commas, quotes, line breaks and
 * feedback far longer than any buffer, CRLF or LF lines, participants with and without a total;
 * every byte is the original's but the Grade cells of those with one. */
/* A total drawn for KEY into total; whether the batch has it (two times in three), then also
 * appended to grades as KEY<tab>TOTAL at *used. */
static int draw_grade(struct rng *r, long key, char total[32], char *grades, size_t size,
                      size_t *used) {
    int has = rng_range(r, 0, 2) > 0;
    snprintf(total, 32, "%ld.%ld", rng_range(r, 0, 20), rng_range(r, 0, 99));
    if (has)
        *used += (size_t)snprintf(grades + *used, size - *used, "%ld\t%s\n", key, total);
    return has;
}

static void test_worksheet_fill(void **state) {
    (void)state;
    struct rng r = rng_for("worksheet fill");
    for (int round = 0; round < 20; round++) {
        const char *names[] = {"Identifier", "Full name", "Grade", "Last modified (grade)",
                               "Feedback comments"};
        for (int i = 4; i > 0; i--) {
            int j = (int)rng_range(&r, 0, i);
            const char *t = names[i];
            names[i] = names[j];
            names[j] = t;
        }
        const char *eol = round % 2 ? "\r\n" : "\n";
        size_t cap = 1 << 16, n = 0, e = 0;
        char *text = malloc(cap), *expect = malloc(cap), grades[512] = "";
        size_t g = 0;
        CHECK(text && expect, "out of memory");
        for (int i = 0; i < 5; i++) {
            n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? "," : "", names[i]);
            e += (size_t)snprintf(expect + e, cap - e, "%s%s", i ? "," : "", names[i]);
        }
        n += (size_t)snprintf(text + n, cap - n, "%s", eol);
        e += (size_t)snprintf(expect + e, cap - e, "%s", eol);
        int rows = (int)rng_range(&r, 1, 8);
        for (int row = 0; row < rows; row++) {
            long number = 1000 + row * 7 + rng_range(&r, 0, 6);
            char total[32];
            int has = draw_grade(&r, number, total, grades, sizeof grades, &g);
            for (int i = 0; i < 5; i++) {
                char cell[3000];
                const char *c = names[i];
                if (!strcmp(c, "Identifier"))
                    snprintf(cell, sizeof cell, "\"Participant %ld\"", number);
                else if (!strcmp(c, "Grade"))
                    snprintf(cell, sizeof cell, "%s", rng_range(&r, 0, 1) ? "" : "\"3,5\"");
                else if (!strcmp(c, "Feedback comments")) {
                    size_t k = (size_t)snprintf(cell, sizeof cell, "\"<p>well, \"\"done\"\"\r\n");
                    for (long m = rng_range(&r, 0, 2000); m > 0; m--)
                        cell[k++] = 'a' + (char)(m % 26);
                    snprintf(cell + k, sizeof cell - k, "</p>\"");
                } else
                    snprintf(cell, sizeof cell, "\"Monday, 12 January 2026, 1:00 PM\"");
                n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? "," : "", cell);
                e += (size_t)snprintf(expect + e, cap - e, "%s%s", i ? "," : "",
                                      has && !strcmp(c, "Grade") ? total : cell);
            }
            n += (size_t)snprintf(text + n, cap - n, "%s", eol);
            e += (size_t)snprintf(expect + e, cap - e, "%s", eol);
        }
        /* a total for a participant the worksheet lacks changes nothing */
        snprintf(grades + g, sizeof grades - g, "999999\t7\n");
        char *got = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&got, &length), *err = fopen("/dev/null", "w");
        CHECK(intake_worksheet_fill(text, grades, out, err) == INTAKE_OK, "round %d: refused",
              round);
        fclose(out);
        fclose(err);
        CHECK(length == e && memcmp(got, expect, e) == 0,
              "round %d: filled\n%.400s\nexpected\n%.400s\ngrades\n%s", round, got, expect, grades);
        free(got);
        free(text);
        free(expect);
    }
    FILE *err = fopen("/dev/null", "w");
    CHECK(intake_worksheet_fill("Name,Total\r\nx,1\r\n", "1\t2\n", stdout, err) == INTAKE_REFUSED,
          "a CSV without Identifier and Grade is no worksheet");
    fclose(err);
}

/* Canvas's gradebook export filled: the assignment's column (its name, or "NAME (id)") set for
 * each ID the grades have, every other byte kept (other assignments, one whose name only begins
 * the same, the Points Possible row, quoted names with commas); an ID the file lacks is said. A
 * file with no such column, or two, or no ID column, is refused. */
static void test_gradebook_fill(void **state) {
    (void)state;
    struct rng r = rng_for("gradebook fill");
    for (int round = 0; round < 20; round++) {
        const char *names[] = {"Student",         "ID",
                               "SIS User ID",     "Lab 1 (101)",
                               "Workbook (4471)", "Workbook extra (4472)",
                               "Current Score"};
        int columns = 7;
        for (int i = columns - 1; i > 2; i--) { /* (Canvas's first columns stay first) */
            int j = (int)rng_range(&r, 2, i);
            const char *t = names[i];
            names[i] = names[j];
            names[j] = t;
        }
        const char *eol = round % 2 ? "\r\n" : "\n";
        size_t cap = 1 << 15, n = 0, e = 0, g = 0;
        char *text = malloc(cap), *expect = malloc(cap), grades[512] = "";
        CHECK(text && expect, "out of memory");
        for (int i = 0; i < columns; i++) {
            n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? "," : "", names[i]);
            e += (size_t)snprintf(expect + e, cap - e, "%s%s", i ? "," : "", names[i]);
        }
        for (int i = 0; i < columns; i++) { /* the Points Possible row: no ID, kept as it is */
            const char *c = i == 0 ? "    Points Possible" : i == 1 ? "" : "11";
            n += (size_t)snprintf(text + n, cap - n, "%s%s%s", i ? "," : eol, c,
                                  i == columns - 1 ? eol : "");
            e += (size_t)snprintf(expect + e, cap - e, "%s%s%s", i ? "," : eol, c,
                                  i == columns - 1 ? eol : "");
        }
        int rows = (int)rng_range(&r, 1, 8), absent = (int)rng_range(&r, 0, 1);
        for (int row = 0; row < rows; row++) {
            long id = 20000 + row * 7 + rng_range(&r, 0, 6);
            char total[32];
            int has = draw_grade(&r, id, total, grades, sizeof grades, &g);
            for (int i = 0; i < columns; i++) {
                char cell[64];
                const char *c = names[i];
                if (!strcmp(c, "Student"))
                    snprintf(cell, sizeof cell, "\"Lovelace, Ada %d\"", row);
                else if (!strcmp(c, "ID"))
                    snprintf(cell, sizeof cell, "%ld", id);
                else
                    snprintf(cell, sizeof cell, "%s", rng_range(&r, 0, 1) ? "" : "7.5");
                n += (size_t)snprintf(text + n, cap - n, "%s%s", i ? "," : "", cell);
                e += (size_t)snprintf(expect + e, cap - e, "%s%s", i ? "," : "",
                                      has && !strcmp(c, "Workbook (4471)") ? total : cell);
            }
            n += (size_t)snprintf(text + n, cap - n, "%s", eol);
            e += (size_t)snprintf(expect + e, cap - e, "%s", eol);
        }
        if (absent) /* a student the export lacks: said, nothing written for them */
            snprintf(grades + g, sizeof grades - g, "999999\t7\n");
        char *got = NULL, *said = NULL;
        size_t length = 0, said_length = 0;
        FILE *out = open_memstream(&got, &length), *err = open_memstream(&said, &said_length);
        CHECK(intake_gradebook_fill(text, "Workbook", grades, out, err) == INTAKE_OK,
              "round %d: refused", round);
        fclose(out);
        fclose(err);
        CHECK(length == e && memcmp(got, expect, e) == 0,
              "round %d: filled\n%.600s\nexpected\n%.600s\ngrades\n%s", round, got, expect, grades);
        CHECK(absent == (strstr(said, "intake: no row for 999999\n") != NULL),
              "round %d: a student the file lacks (%d), said:\n%s", round, absent, said);
        free(got);
        free(said);
        free(text);
        free(expect);
    }
    FILE *err = fopen("/dev/null", "w");
    CHECK(intake_gradebook_fill("Student,ID,Lab (1)\r\nx,1,2\r\n", "Workbook", "1\t2\n", stdout,
                                err) == INTAKE_REFUSED,
          "an export without the assignment's column is refused");
    CHECK(intake_gradebook_fill("Student,ID,Workbook (1),Workbook (2)\nx,1,,\n", "Workbook",
                                "1\t2\n", stdout, err) == INTAKE_REFUSED,
          "two columns of one name are refused");
    CHECK(intake_gradebook_fill("Student,SIS,Workbook (1)\nx,1,\n", "Workbook", "1\t2\n", stdout,
                                err) == INTAKE_REFUSED,
          "an export without ID is refused");
    fclose(err);
}

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_intake", "TEST_INTAKE_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moodle_names),
        cmocka_unit_test(test_canvas_names_and_ambiguity),
        cmocka_unit_test(test_plain_refused_and_editable_names),
        cmocka_unit_test(test_class),
        cmocka_unit_test(test_shown_names),
        cmocka_unit_test(test_stage_newest_archive),
        cmocka_unit_test(test_stage_nested_archives),
        cmocka_unit_test(test_stage_loose_files),
        cmocka_unit_test(test_stage_empty_and_oversized),
        cmocka_unit_test(test_worksheet),
        cmocka_unit_test(test_worksheet_fill),
        cmocka_unit_test(test_gradebook_fill),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
