/* traffic.c - the memory traffic of a kernel, counted rather than guessed: global and local loads
 * and stores per multiply-add, from oclgrind's instruction histogram, and the arithmetic
 * intensity that places the kernel on the roofline.
 *
 * `oclgrind --inst-counts` interprets the harness's one launch of the kernel and, when the kernel
 * ends, prints per kernel:
 *     Instructions executed for kernel 'mmul':
 *                65536 - load global (262144 bytes)
 *                 1024 - store global (4096 bytes)
 *                  ...
 * with loads and stores split by address space (private, global, constant, local) and the bytes
 * they moved. The counts are printed in the user's locale, so digits may be grouped ("65,536",
 * "65.536", "65 536"): every character of a number that is not a digit is skipped. Accesses are
 * counted in floats: bytes / 4, so a float4 load is 4 accesses, as four float loads would be; a
 * line without bytes counts its instructions. __constant accesses are counted as global (constant
 * buffers live in global memory); private ones are not counted. The counts of every kernel section
 * in the output are added (the harness launches one kernel once).
 *
 * The table comes on oclgrind's stdout, where the kernel's printf writes too: oclgrind 21.10's
 * --log takes its error reports but not the InstructionCounter's table (checked), so there is no
 * channel of its own to read. What guards the count: a kernel prints only before the table (it
 * has ended when the table is printed), and cannot change the real table, only add text before
 * it; so the header is counted wherever it appears in a line (a printf without a final newline
 * cannot hide the real header at the end of its line), and more than one header refuses the
 * count. oclgrind's own reports go to a --log file of their own, out of the table's way.
 *
 * Barriers per tile are not read from the table: its totals cannot tell a kernel's real step
 * along k (tiles.cpp says why). The tiles plugin, loaded with --plugins, writes its counts to a
 * file of its own (GRADER_TILES_OUT), which the interpreted kernel cannot write to.
 */
#define _GNU_SOURCE /* memmem */
#include "exercise/traffic.h"
#include "exercise/protocol.h"
#include "jail/jail.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRAFFIC_TIMEOUT 120.0      /* seconds of one oclgrind run: it interprets, keep N small */
#define TRAFFIC_LOG_CAP (1u << 20) /* bytes of its output read back (the histogram is short) */
#define TRAFFIC_HEADER  "Instructions executed for kernel"
#define TILES_LINE      "grader-tiles " /* tiles.cpp's line, one per launch */
#define TILES_CAP       4096u           /* bytes of the plugin's file read back */

/* t->why, printf-style, cut to its size. */
static void traffic_why(struct grader_traffic *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void traffic_why(struct grader_traffic *t, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(t->why, sizeof t->why, fmt, args);
    va_end(args);
}

/* ---------------------------------------------------------------- reading the histogram */

/* The digits of s up to end as a number, every other character skipped (locale grouping). */
static double traffic_number(const char *s, const char *end) {
    double value = 0.0;
    for (; s < end; s++)
        if (*s >= '0' && *s <= '9')
            value = 10.0 * value + (*s - '0');
    return value;
}

/* Totals of the histogram lines, in float accesses. */
struct traffic_counts {
    double global_loads, global_stores, local_loads, local_stores;
    double global_load_instructions; /* the instructions behind global_loads (a float4: one) */
    int kernels;                     /* "Instructions executed for kernel" sections seen */
};

/* One line of oclgrind's output. Histogram lines read "<count> - <operation>", only inside a
 * kernel section (which ends at an empty line), so nothing the kernel or the harness prints can
 * pass for one. */
static void traffic_line(const char *line, const char *end, int *in_section,
                         struct traffic_counts *c) {
    size_t header_len = strlen(TRAFFIC_HEADER);
    int headers = 0; /* anywhere in the line: text printed before cannot hide the real one */
    for (const char *h = line; (h = memmem(h, (size_t)(end - h), TRAFFIC_HEADER, header_len));
         h += header_len)
        headers++;
    if (headers) {
        *in_section = 1;
        c->kernels += headers;
        return;
    }
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p == end) {
        *in_section = 0;
        return;
    }
    if (!*in_section)
        return;
    const char *dash = NULL;
    for (const char *q = p; q + 3 <= end; q++)
        if (q[0] == ' ' && q[1] == '-' && q[2] == ' ') {
            dash = q;
            break;
        }
    if (!dash)
        return;
    double count = traffic_number(p, dash);
    const char *op = dash + 3;
    int load = (size_t)(end - op) >= 5 && !strncmp(op, "load ", 5);
    int store = (size_t)(end - op) >= 6 && !strncmp(op, "store ", 6);
    if (!load && !store)
        return;
    const char *space = op + (load ? 5 : 6);
    size_t space_len = strcspn(space, " (\r\n");
    if (space + space_len > end)
        space_len = (size_t)(end - space);
    double *total = NULL;
    if ((space_len == 6 && !strncmp(space, "global", 6)) ||
        (space_len == 8 && !strncmp(space, "constant", 8)))
        total = load ? &c->global_loads : &c->global_stores;
    else if (space_len == 5 && !strncmp(space, "local", 5))
        total = load ? &c->local_loads : &c->local_stores;
    if (!total)
        return; /* private (or an address space we do not count) */
    /* "(262144 bytes)": floats moved; without it, one float per instruction */
    const char *open = memchr(space, '(', (size_t)(end - space));
    const char *bytes = NULL;
    for (const char *q = open; q && q + 5 <= end; q++)
        if (!strncmp(q, "bytes", 5)) {
            bytes = q;
            break;
        }
    *total += open && bytes ? traffic_number(open, bytes) / sizeof(float) : count;
    if (total == &c->global_loads)
        c->global_load_instructions += count;
}

int grader_tiles_parse(const char *text, struct grader_traffic *t) {
    size_t len = strlen(TILES_LINE);
    int lines = 0;
    unsigned long long groups = 0;
    double barriers = 0.0, by_loads = 0.0, by_stores = 0.0;
    for (const char *line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
        if (strncmp(line, TILES_LINE, len) != 0)
            continue;
        lines++;
        if (sscanf(line + len, "%llu %lf %lf %lf", &groups, &barriers, &by_loads, &by_stores) != 4)
            groups = 0;
    }
    if (lines != 1 || groups == 0 || !(barriers >= 0.0) || !(by_loads >= 0.0) ||
        !(by_stores >= 0.0)) {
        traffic_why(t, "the grader's oclgrind plugin %s counted %s", GRADER_TILES_PLUGIN,
                    lines > 1 ? "more than one launch" : "nothing (was it loaded?)");
        return -1;
    }
    /* the fewer of the two counts: see tiles.cpp */
    t->barriers = barriers / (double)groups;
    t->tiles = (by_loads < by_stores ? by_loads : by_stores) / (double)groups;
    return 0;
}

static void traffic_parse(const char *text, struct traffic_counts *c) {
    memset(c, 0, sizeof *c);
    int in_section = 0;
    while (*text) {
        const char *end = text + strcspn(text, "\n");
        traffic_line(text, end, &in_section, c);
        text = *end ? end + 1 : end;
    }
}

/* ---------------------------------------------------------------- counting a kernel */

int grader_traffic(const char *self, const struct grader_exercise *ex, const char *kernel_path,
                   int block, int check, struct grader_size s, const char *workdir,
                   const char *tiles_plugin, struct grader_traffic *t, const char *const *prefix,
                   const struct grader_jail_settings *js, const char *jail_dir) {
    memset(t, 0, sizeof *t);
    int n = s.n;
    t->n = n;
    char oclgrind[PATH_MAX];
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        traffic_why(t, "oclgrind not installed (apt-get install oclgrind)");
        return -1;
    }
    if (n < 1) {
        traffic_why(t, "no traffic count at N = %d", n);
        return -1;
    }
    if (block <= 0)
        block = ex->block;
    char log[PATH_MAX], findings[PATH_MAX], tiles[PATH_MAX], env[PATH_MAX];
    snprintf(log, sizeof log, "%s/traffic-%s-b%d-c%d-%dx%dx%d.log", workdir, ex->id, block, check,
             s.m, n, s.k);
    snprintf(findings, sizeof findings, "%s/traffic-%s-b%d-c%d-%dx%dx%d.oclgrind", workdir, ex->id,
             block, check, s.m, n, s.k);
    snprintf(tiles, sizeof tiles, "%s/traffic-%s-b%d-c%d-%dx%dx%d.tiles", workdir, ex->id, block,
             check, s.m, n, s.k);
    if (tiles_plugin && grader_find_program("env", env, sizeof env) != 0) {
        traffic_why(t, "no env program to start oclgrind with its plugin");
        return -1;
    }
    struct grader_argv argv = GRADER_ARGV_INIT;
    if (prefix)
        grader_argv_push_all(&argv, prefix);
    if (tiles_plugin) { /* by env: a jailed run gets only the jail's list of variables */
        remove(tiles);  /* a count left from before is no count of this run */
        grader_argv_push(&argv, env);
        grader_argv_pushf(&argv, "GRADER_TILES_OUT=%s", tiles);
    }
    /* oclgrind's simulated device takes groups of 1024 and 32 KiB of local memory by default;
     * the counts do not depend on either, so let it take the 64x64 tiles and the graded values'
     * tiles of 10 and 13 (64 KiB) too */
    grader_argv_push_all(&argv, (const char *const[]){oclgrind, "--max-wgsize", "4096",
                                                      "--local-mem-size", "1048576",
                                                      "--inst-counts", "--log", findings, NULL});
    if (tiles_plugin)
        grader_argv_push_all(&argv, (const char *const[]){"--plugins", tiles_plugin, NULL});
    grader_argv_push_all(&argv, (const char *const[]){self, HARNESS_COMMAND, FLAG_EX, ex->id,
                                                      FLAG_KERNEL, kernel_path, NULL});
    grader_argv_push(&argv, FLAG_N);
    grader_argv_pushf(&argv, "%d", n);
    if (ex->rectangular) {
        grader_argv_push(&argv, FLAG_M);
        grader_argv_pushf(&argv, "%d", s.m);
        grader_argv_push(&argv, FLAG_K);
        grader_argv_pushf(&argv, "%d", s.k);
    }
    grader_argv_push_all(
        &argv, (const char *const[]){FLAG_SEED, "1", FLAG_OUT, workdir, FLAG_EXACT, NULL});
    grader_argv_push(&argv, FLAG_BLOCK);
    grader_argv_pushf(&argv, "%d", block);
    /* the variant's values each as --define: the child builds what this row says, whichever
     * values the caller's copy of the row holds for oclgrind (grade/builds.c) */
    struct grader_variant built = grader_variant_of(ex, block, check);
    for (int d = 0; built.tuning && d < CLU_MAX_DEFINES && built.tuning[d].name; d++) {
        grader_argv_push(&argv, FLAG_DEFINE);
        grader_argv_pushf(&argv, "%s=%d", built.tuning[d].name, built.tuning[d].value);
    }
    struct grader_run_result run;
    if (jail_dir) /* a student's kernel: jailed like the student's program */
        grader_run_jailed(js, argv.argv, jail_dir, log, TRAFFIC_TIMEOUT, &run);
    else
        grader_run(argv.argv, log, TRAFFIC_TIMEOUT, &run);
    grader_argv_clear(&argv);
    if (run.how != RUN_EXITED || run.code != 0) {
        char how[160];
        grader_describe_run(&run, how, sizeof how);
        const char *what = "";
        if (run.how == RUN_EXITED)
            what = run.code == HARNESS_BUILD        ? ": the kernel did not build"
                   : run.code == HARNESS_NO_KERNEL  ? ": no kernel of the exercise's name"
                   : run.code == HARNESS_BAD_DEVICE ? ": the work-group does not fit the device"
                   : run.code == HARNESS_BAD_ARGS   ? ": its parameters are not the exercise's"
                   : run.code == HARNESS_OPENCL     ? ": an OpenCL call failed"
                                                    : "";
        traffic_why(t, "oclgrind run of the kernel %s%s (log: %s)", how, what, log);
        return -1;
    }
    char *text = grader_read_capped(log, TRAFFIC_LOG_CAP);
    if (!text) {
        traffic_why(t, "cannot read %s", log);
        return -1;
    }
    struct traffic_counts c;
    traffic_parse(text, &c);
    free(text);
    if (c.kernels == 0) {
        traffic_why(t, "no instruction counts in oclgrind's output (log: %s)", log);
        return -1;
    }
    if (c.kernels > 1) { /* one launch, one table: a kernel's printf may not add counts */
        traffic_why(t,
                    "%d tables of instruction counts for one launch: does the kernel print "
                    "text that looks like oclgrind's? (log: %s)",
                    c.kernels, log);
        return -1;
    }
    /* per multiply-add: M N K of them in a matrix product, N additions in a vector sum */
    double ops = ex->is_vector ? (double)n : (double)s.m * (double)n * (double)s.k;
    t->global_loads = c.global_loads / ops;
    t->load_bytes = c.global_load_instructions > 0
                        ? sizeof(float) * c.global_loads / c.global_load_instructions
                        : 0.0;
    if (tiles_plugin) {
        char *counted = grader_read_capped(tiles, TILES_CAP);
        int status = grader_tiles_parse(counted ? counted : "", t);
        free(counted);
        if (status != 0)
            return -1;
    }
    t->global_stores = c.global_stores / ops;
    t->local_loads = c.local_loads / ops;
    t->local_stores = c.local_stores / ops;
    return 0;
}

double grader_intensity(const struct grader_traffic *t) {
    double accesses = t->global_loads + t->global_stores;
    return accesses > 0.0 ? 2.0 / (sizeof(float) * accesses) : 0.0;
}
