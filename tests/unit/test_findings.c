/* test_findings.c - unit tests (cmocka) of oclgrind's log read and summarised (grade/findings.h):
 * entries in oclgrind 21.10's format counted by kind and grouped by place (a race is one place
 * whichever access comes first, and both of its lines are named), API errors with their function,
 * error and explanation, oclgrind's own notes (the --max-errors cap) left out of the counts, lines
 * longer than the reader's buffer, more places than are kept, and logs that are not plain files
 * (a link, a FIFO, a second hard link) refused without blocking; oclgrind's fatal errors (an
 * instruction it cannot interpret) counted apart, never as findings. Random logs (seeded) check
 * that every entry is counted once whatever their order.
 *
 * TEST_FINDINGS_SEED=<seed> repeats a run. Built and run by `make unit` from the repository root.
 */
#define _GNU_SOURCE /* mkdtemp, symlink, mkfifo */
#include "grader.h"
#include "oclgrind/findings.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_findings", "TEST_FINDINGS_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* Write text to <tmp>/name; its path in path. */
static void write_log(const char *name, const char *text, char *path, size_t size) {
    snprintf(path, size, "%s/%s", g_tmp, name);
    remove(path);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

/* One race entry as oclgrind writes it, its two accesses in the order given. */
static void race(char *out, size_t size, int first, const char *first_text, int second,
                 const char *second_text) {
    size_t used = strlen(out);
    snprintf(out + used, size - used,
             "Read-write data race at local memory address 0x1000000000004\n"
             "\tKernel: mmul\n\t\n"
             "\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
             "\t  %%4 = load float, float addrspace(3)* %%arrayidx37, align 4, !dbg !96\n"
             "\tAt line %d (column %d) of input.cl:\n\t  %s\n\t\n"
             "\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
             "\t  store float %%2, float addrspace(3)* %%arrayidx24, align 4, !dbg !78\n"
             "\tAt line %d (column %d) of input.cl:\n\t  %s\n\t\n\n",
             first, first, first_text, second, second, second_text);
}

static void uninit(char *out, size_t size, int line, const char *text) {
    size_t used = strlen(out);
    snprintf(out + used, size - used,
             "Uninitialized value written to global memory address 0x3000000000000\n"
             "\tKernel: mmul\n\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
             "\t  store float %%tmp.0, float addrspace(1)* %%arrayidx45, align 4\n"
             "\tAt line %d (column 22) of input.cl:\n\t  %s\n\t\n\n",
             line, text);
}

static const char fill[] = "Bcol[k] = B[k * N + j];", use[] = "acc += Arow[k] * Bcol[k];",
                  store[] = "C[i * N + j] = tmp;";

/* The missing barrier's log: races in both orders, the uninitialised stores they cause, and
 * oclgrind's note that it stopped. */
static void test_race_both_lines(void **state) {
    (void)state;
    static char text[16000];
    text[0] = '\0';
    uninit(text, sizeof text, 19, store);
    race(text, sizeof text, 18, use, 15, fill);
    uninit(text, sizeof text, 19, store);
    race(text, sizeof text, 15, fill, 18, use);
    race(text, sizeof text, 18, use, 15, fill);
    strcat(text, "Oclgrind: 5000 errors generated - suppressing further errors\n");
    char path[PATH_MAX], why[100] = "";
    write_log("race.txt", text, path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.total == 5 && f.counts[FINDING_RACE_LOCAL] == 3 && f.counts[FINDING_UNINIT] == 2,
          "total %zu, races %zu, uninitialised %zu", f.total, f.counts[FINDING_RACE_LOCAL],
          f.counts[FINDING_UNINIT]);
    CHECK(f.capped && !f.blank && f.place_count == 2, "capped %d blank %d places %zu", f.capped,
          f.blank, f.place_count);
    char out[4000];
    grader_describe_findings(&f, 1, NULL, out, sizeof out);
    const char *races = strstr(out, "3 x Read-write data race at local memory, between\n"
                                    "      kernel.cl:15:15  Bcol[k] = B[k * N + j];\n"
                                    "      kernel.cl:18:18  acc += Arow[k] * Bcol[k];");
    const char *stores = strstr(out, "2 x Uninitialized value written to global memory, at\n"
                                     "      kernel.cl:19:22  C[i * N + j] = tmp;");
    CHECK(races && stores && races < stores, "the race's two lines, before the store:\n%s", out);
    CHECK(strstr(out, "barrier(CLK_LOCAL_MEM_FENCE)") && strstr(out, "stops reporting"),
          "hints and the cap:\n%s", out);
    grader_describe_findings(&f, 0, NULL, out, sizeof out);
    CHECK(!strstr(out, "hint:"), "no kernel hints asked for:\n%s", out);
    /* a step's own hint for a race in local memory takes the general one's place, the others
     * stay */
    grader_describe_findings(&f, 1, "fill the other buffer", out, sizeof out);
    CHECK(strstr(out, "hint: fill the other buffer") && !strstr(out, "no barrier(") &&
              strstr(out, "a value is read before anything was written"),
          "the step's race hint:\n%s", out);
    grader_describe_findings(&f, 0, "fill the other buffer", out, sizeof out);
    CHECK(!strstr(out, "hint:"), "no kernel hints asked for, the step's neither:\n%s", out);
}

static void test_api_error(void **state) {
    (void)state;
    char path[PATH_MAX], why[100] = "", out[2000];
    write_log("api.txt",
              "Oclgrind - OpenCL runtime error detected\n"
              "\tFunction: clEnqueueNDRangeKernel\n"
              "\tError:    CL_INVALID_WORK_GROUP_SIZE\n"
              "\tlocal_work_size[0]=7 does not divide global_work_size[0]=24\n\n",
              path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.counts[FINDING_API] == 1 && f.place_count == 1, "api %zu", f.counts[FINDING_API]);
    CHECK(strcmp(f.places[0].detail, "clEnqueueNDRangeKernel: CL_INVALID_WORK_GROUP_SIZE: "
                                     "local_work_size[0]=7 does not divide "
                                     "global_work_size[0]=24") == 0,
          "detail \"%s\"", f.places[0].detail);
    grader_describe_findings(&f, 0, NULL, out, sizeof out);
    CHECK(strstr(out, "1 x OpenCL runtime error detected: clEnqueueNDRangeKernel"), "%s", out);
}

static void test_blank_and_missing(void **state) {
    (void)state;
    char path[PATH_MAX], why[100] = "";
    struct grader_findings f;
    snprintf(path, sizeof path, "%s/none.txt", g_tmp);
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0 && f.blank && f.total == 0,
          "a missing log reads as blank");
    write_log("white.txt", "\n \t\n\n", path, sizeof path);
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0 && f.blank && f.total == 0,
          "white space reads as blank");
    write_log("junk.txt", "no entry of oclgrind's", path, sizeof path);
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0 && !f.blank &&
              f.counts[FINDING_OTHER] == 1,
          "anything else is another message");
}

/* oclgrind 21.10's fatal error (its check for uninitialised values meeting LLVM's `freeze`), as
 * it writes it: counted apart, its words kept, never a finding; a finding beside it still is. */
static void test_fatal(void **state) {
    (void)state;
    static const char fatal[] = "\nOCLGRIND FATAL ERROR (./src/plugins/Uninitialized.cpp:1805)\n"
                                "Unsupported instruction: freeze\n"
                                "\tKernel: mmul\n"
                                "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
                                "\t  %add.frozen = freeze i32 %add\n"
                                "\tDebugging information not available.\n\t\n\t\n";
    char text[4000], path[PATH_MAX], why[100] = "";
    snprintf(text, sizeof text, "%s%s", fatal, fatal);
    write_log("fatal.txt", text, path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.fatal == 2 && f.total == 0 && !f.blank && f.place_count == 0,
          "fatal %zu, total %zu, blank %d, places %zu", f.fatal, f.total, f.blank, f.place_count);
    CHECK(strcmp(f.fatal_what, "Unsupported instruction: freeze") == 0, "what \"%s\"",
          f.fatal_what);
    text[0] = '\0';
    race(text, sizeof text, 18, use, 15, fill);
    strcat(text, fatal);
    write_log("fatal-race.txt", text, path, sizeof path);
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.fatal == 1 && f.total == 1 && f.counts[FINDING_RACE_LOCAL] == 1, "fatal %zu, total %zu",
          f.fatal, f.total);
}

/* A link, a FIFO (which must not block the reader) and a file with a second hard link. */
static void test_not_plain_files(void **state) {
    (void)state;
    char target[PATH_MAX], path[PATH_MAX], why[100];
    struct grader_findings f;
    write_log("target.txt", "Invalid write of size 4 at global memory address 0x1\n\n", target,
              sizeof target);
    snprintf(path, sizeof path, "%s/link.txt", g_tmp);
    CHECK(symlink(target, path) == 0, "symlink: %s", strerror(errno));
    why[0] = '\0';
    CHECK(grader_read_findings(path, &f, why, sizeof why) == -1 && strstr(why, "not a plain file"),
          "a link is refused (%s)", why);
    snprintf(path, sizeof path, "%s/fifo.txt", g_tmp);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
    why[0] = '\0';
    CHECK(grader_read_findings(path, &f, why, sizeof why) == -1, "a FIFO is refused");
    snprintf(path, sizeof path, "%s/hard.txt", g_tmp);
    CHECK(link(target, path) == 0, "link: %s", strerror(errno));
    why[0] = '\0';
    CHECK(grader_read_findings(path, &f, why, sizeof why) == -1, "a second hard link is refused");
}

/* Lines longer than the reader's buffer: the entry still counts once, its source cut. */
static void test_long_lines(void **state) {
    (void)state;
    static char text[24000], longest[5000];
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    snprintf(text, sizeof text,
             "Invalid read of size 4 at global memory address 0x2000000000640 %s\n"
             "\tKernel: mmul\n\t  %s\n"
             "\tAt line 9 (column 35) of input.cl:\n\t  %s\n\t\n\n"
             "Invalid read of size 4 at global memory address 0x2000000000644\n"
             "\tAt line 9 (column 35) of input.cl:\n\t  %s\n\t\n\n",
             longest, longest, longest, longest);
    char path[PATH_MAX], why[100] = "";
    write_log("long.txt", text, path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.total == 2 && f.counts[FINDING_READ_OUT] == 2 && f.place_count == 1 &&
              f.places[0].count == 2 && f.places[0].line[0] == 9,
          "total %zu, places %zu", f.total, f.place_count);
    CHECK(strlen(f.places[0].source[0]) < sizeof f.places[0].source[0], "source cut");
}

/* A vector load at an address not a multiple of its size (08's offset without * WIDTH): a kind
 * of its own with its hint, not "another message". */
static void test_unaligned(void **state) {
    (void)state;
    char path[PATH_MAX], why[100] = "";
    write_log("unaligned.txt",
              "Invalid memory load - source pointer is not aligned to the pointed type\n"
              "\tKernel: mmul\n\tAt line 110 (column 21) of input.cl:\n\t  x = *(v4 *)&A[c];\n\n",
              path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    CHECK(f.total == 1 && f.counts[FINDING_UNALIGNED] == 1 && f.counts[FINDING_OTHER] == 0,
          "total %zu, unaligned %zu, other %zu", f.total, f.counts[FINDING_UNALIGNED],
          f.counts[FINDING_OTHER]);
}

/* More places than are kept, in random order: every entry counted once, the rest summed. */
static void test_random_places(void **state) {
    (void)state;
    struct rng r = rng_for("random_places");
    int places = (int)rng_range(&r, FINDINGS_MAX_PLACES + 1, 3 * FINDINGS_MAX_PLACES);
    size_t entries = 0, races = 0;
    static char text[1 << 20];
    text[0] = '\0';
    for (int e = 0; e < 400; e++) {
        int line = 1 + (int)rng_range(&r, 0, places - 1);
        if (rng_range(&r, 0, 1)) {
            race(text, sizeof text, line, fill, line + 100, use);
            races++;
        } else {
            uninit(text, sizeof text, line, store);
        }
        entries++;
    }
    char path[PATH_MAX], why[100] = "", out[8000];
    write_log("random.txt", text, path, sizeof path);
    struct grader_findings f;
    CHECK(grader_read_findings(path, &f, why, sizeof why) == 0, "refused: %s", why);
    size_t kept = f.left_out;
    for (size_t i = 0; i < f.place_count; i++)
        kept += f.places[i].count;
    CHECK(f.total == entries && f.counts[FINDING_RACE_LOCAL] == races && kept == entries &&
              f.place_count == FINDINGS_MAX_PLACES && f.left_out > 0,
          "entries %zu (want %zu), races %zu (want %zu), kept %zu, places %zu", f.total, entries,
          f.counts[FINDING_RACE_LOCAL], races, kept, f.place_count);
    grader_describe_findings(&f, 1, NULL, out, sizeof out);
    CHECK(strstr(out, "more at other places"), "the rest summed:\n%s", out);
    /* a summary never runs past its buffer */
    char tiny[12];
    memset(tiny, '#', sizeof tiny);
    grader_describe_findings(&f, 1, NULL, tiny, 8);
    CHECK(strlen(tiny) == 7 && tiny[8] == '#', "cut at 8 bytes: \"%s\"", tiny);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_race_both_lines),   cmocka_unit_test(test_api_error),
        cmocka_unit_test(test_blank_and_missing), cmocka_unit_test(test_not_plain_files),
        cmocka_unit_test(test_long_lines),        cmocka_unit_test(test_unaligned),
        cmocka_unit_test(test_random_places),     cmocka_unit_test(test_fatal),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
