/* host_oclgrind.c - the student's host program run once more, under oclgrind's API and memory
 * checks, on the build that is graded (builds.c: the graded values, at a size they allow): a host
 * program whose result is right on the device can still misuse OpenCL there (a __local argument too
 * small for the kernel, a launch outside the contract) in ways that POCL forgives. Its findings
 * take the host test's points; where oclgrind is missing or the memory check is off, nothing is
 * lost and one line says so.
 *
 * What the verdict can rely on. The host program runs inside oclgrind's process (oclgrind loads
 * its runtime into the program), so the student's code can write anything oclgrind's --log file
 * holds: delete it, empty it, or fill it with forged findings, wherever it lies; and it can tell
 * that it runs under oclgrind (LD_PRELOAD names it) and do nothing there. So:
 *   - the check only ever removes points: the host test's points are earned by the first run's
 *     result, which the grader itself checks against its reference;
 *   - a log without findings is clean only beside a right C that this run saved (the grader
 *     checks it against its reference, at this size and seed): a run that skips its work under
 *     oclgrind, ends early, crashes, runs out its time or claims that oclgrind cannot interpret
 *     the kernel has no verdict of its own. The grader's own launch of the same kernel at the
 *     same size and values under oclgrind (its harness: the student's code is interpreted there)
 *     then decides whose that is: where it runs to its end, and oclgrind interpreted the
 *     optimised build, the program's, and the points go; otherwise the kernel's, which the
 *     memory check judges, and nothing is lost here. Left possible, on purpose only: a program
 *     that tells it runs under oclgrind and computes C on the CPU there (the first run's layer
 *     would see that; this run has none), or one that erases or rewrites the log and still
 *     saves a right C (a finding that leaves C right then goes unseen);
 *   - findings are believed only against the student: a forged one costs its forger the points;
 *   - findings in the kernel's memory are the host program's fault only where the grader's own
 *     harness, launching the same kernel at the same size and values under oclgrind, finds none
 *     (that run is the grader's: the student's code is interpreted by oclgrind there); otherwise
 *     they belong to the memory check, which runs the same build and never leaves the maximum
 *     for anything the kernel does, and cost nothing here. An API error is always the host
 *     program's;
 *   - where oclgrind cannot interpret the kernel (its log says so: forged, that costs the program
 *     a second run and then the witness above) the program runs once more without the check
 *     that stopped (for uninitialised values), in a second folder readied beside the first;
 *   - the log is read as a plain file of one link, never followed or blocked on (findings.c), in
 *     a folder of its own that the grader filled (copies of the program, built moments before,
 *     and of the grader's kernel.cl) before any of the student's code ran.
 * The program's own output is never read.
 */
#define _GNU_SOURCE /* memmem */
#include "grade/internal.h"
#include "oclgrind/findings.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUMMARY_SIZE 4000 /* bytes of oclgrind's findings in the report */
#define MAIN_LINES   3    /* lines of main.c quoted for one call */

/* A folder of the grader's with copies of the program and of the build's kernel text (0, or -1
 * with dir ""): filled before any of the student's code runs, the student's uid gets it only
 * for the run that uses it. */
static int ready_folder(const struct grade_build *build, const char *prog, char *dir, size_t size) {
    char to[PATH_MAX + 32];
    if (grader_jail_dir_make(dir, size) != 0) {
        dir[0] = '\0';
        return -1;
    }
    snprintf(to, sizeof to, "%s/%s", dir, build->row.id);
    int ready = grader_copy_trusted(prog, to) == 0 && chmod(to, 0755) == 0;
    snprintf(to, sizeof to, "%s/kernel.cl", dir);
    if (!ready || grader_copy_trusted(build->kernel, to) != 0) {
        grader_jail_dir_remove(dir);
        dir[0] = '\0';
        return -1;
    }
    return 0;
}

void grade_host_oclgrind_prepare(const struct grader_config *cfg, const struct grade_build *build,
                                 const char *prog, struct host_oclgrind *o) {
    memset(o, 0, sizeof *o);
    o->build = build;
    char oclgrind[PATH_MAX];
    if (!cfg->memcheck) {
        snprintf(o->skip, sizeof o->skip, "the memory check is switched off (%s)",
                 cfg->memcheck_off ? cfg->memcheck_off : "--no-memcheck");
        return;
    }
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        snprintf(o->skip, sizeof o->skip,
                 "oclgrind is not installed (apt-get install oclgrind), so nothing is lost");
        return;
    }
    /* copies, the grader's own files: the program as the compiler left it, before the first run
     * (whose folder the student's uid holds) could touch it; a second set for a second run,
     * which the first run under oclgrind cannot touch either */
    if (ready_folder(build, prog, o->dir, sizeof o->dir) != 0 ||
        ready_folder(build, prog, o->again, sizeof o->again) != 0) {
        grade_host_oclgrind_done(o);
        snprintf(o->skip, sizeof o->skip, "the grader cannot copy the program for it");
    }
}

void grade_host_oclgrind_done(struct host_oclgrind *o) {
    if (o->dir[0])
        grader_jail_dir_remove(o->dir);
    if (o->again[0])
        grader_jail_dir_remove(o->again);
    o->dir[0] = o->again[0] = '\0';
}

/* The lines of main.c that call `function`; with index >= 0, only calls whose second argument is
 * that number (clSetKernelArg(kernel, 4, ...)). A hint for the student: the text is theirs. */
static void quote_calls(const char *main_text, const char *function, int index, char *out,
                        size_t size) {
    size_t name = strlen(function);
    int shown = 0, number = 1;
    for (const char *line = main_text; line && *line && shown < MAIN_LINES; number++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *call = memmem(line, len, function, name); /* within the line: linear */
        int hit = call && call + name < line + len && call[name] == '(';
        if (hit && index >= 0) {
            const char *comma = memchr(call, ',', len - (size_t)(call - line));
            char *after = NULL;
            long arg = comma ? strtol(comma + 1, &after, 10) : -1;
            hit = comma && after != comma + 1 && arg == index;
        }
        if (hit) {
            size_t indent = strspn(line, " \t");
            grade_appendf(out, size, "\n      main.c:%d: %.*s", number,
                          (int)(len > indent ? len - indent : 0), line + indent);
            shown++;
        }
        line = end ? end + 1 : NULL;
    }
}

/* How many bytes a __local argument needs, for the hint. */
static void local_size_text(const struct grader_exercise *ex, enum grader_arg arg, int n, char *out,
                            size_t size) {
    if (arg == ARG_LOCAL_ROW)
        snprintf(out, size, "sizeof(float) * N = %zu bytes at N = %d", sizeof(float) * (size_t)n,
                 n);
    else
        snprintf(out, size, "sizeof(float) * BLOCK * BLOCK = %zu bytes (BLOCK = %d)",
                 sizeof(float) * (size_t)ex->block * (size_t)ex->block, ex->block);
}

/* Hints that point into main.c: the calls that set what oclgrind found wrong. */
static void host_hints(const struct grader_exercise *ex, const struct grader_findings *f, int n,
                       int memory_counts, const char *main_text, char *out, size_t size) {
    int local_out = 0, global_out = 0;
    for (size_t i = 0; i < f->place_count; i++) {
        const struct grader_finding_place *p = &f->places[i];
        int outside = p->kind == FINDING_READ_OUT || p->kind == FINDING_WRITE_OUT;
        local_out |= outside && strstr(p->title, "local memory") != NULL;
        global_out |= outside && strstr(p->title, "global memory") != NULL;
        if (p->kind == FINDING_API) {
            char function[64];
            snprintf(function, sizeof function, "%.*s", (int)strcspn(p->detail, ": "), p->detail);
            if (!function[0])
                continue;
            grade_appendf(out, size,
                          "\nhint: oclgrind refused a call of %s; main.c calls it at:", function);
            quote_calls(main_text, function, -1, out, size);
        }
    }
    if (!memory_counts)
        return;
    if (local_out) {
        grade_appendf(
            out, size,
            "\nhint: the kernel went past the end of its local memory, whose size is what main.c "
            "passes to clSetKernelArg for each __local argument (with a NULL value):");
        for (int a = 0; a < GRADER_MAX_ARGS && ex->args[a] != ARG_END; a++)
            if (ex->args[a] == ARG_LOCAL_ROW || ex->args[a] == ARG_LOCAL_TILE) {
                char need[100];
                local_size_text(ex, ex->args[a], n, need, sizeof need);
                grade_appendf(out, size, "\n    argument %d needs %s", a, need);
                quote_calls(main_text, "clSetKernelArg", a, out, size);
            }
    }
    if (global_out || !local_out) {
        grade_appendf(
            out, size,
            "\nhint: the kernel, launched by main.c, touches memory that the grader's own launch "
            "of it does not: check the NDRange and the local size against the contract in "
            "main.c's comments, and the kernel's arguments:");
        quote_calls(main_text, "clEnqueueNDRangeKernel", -1, out, size);
    }
}

/* The seed of the program's runs under oclgrind at size at. */
static uint64_t run_seed(const struct grader_config *cfg, const struct grader_exercise *ex,
                         struct grader_size at) {
    return grader_derive_seed(grader_seed_for(cfg->seed, ex, at), "host-oclgrind", 0);
}

/* Whether the run in dir saved a right C at size at (the grader's reference from the run's
 * seed): 1 (also where the grader cannot check it), or 0 with why ("saved no result matrix
 * (...)", "saved a wrong result (...)"). */
static int saved_right(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const char *dir, struct grader_size at, char *why, size_t why_size) {
    char missing[200];
    uint64_t seed = run_seed(cfg, ex, at);
    size_t count = grader_output_count(ex, at);
    float *c = grader_load_result(dir, "result.bin", count, missing, sizeof missing);
    double *expected = NULL, *tol = NULL;
    int right = 0;
    if (!c) {
        snprintf(why, why_size, "saved no result matrix (%s)", missing);
    } else if (grader_reference(ex, at, seed, &expected, &tol) != 0) {
        right = 1; /* the grader's own trouble (out of memory) costs no point: the log decides */
    } else {       /* (the count alone: the first run's diagnosis is the one a student reads) */
        struct clu_mismatch m = clu_compare(c, expected, tol, 0.0, count);
        right = m.wrong == 0;
        if (!right)
            snprintf(why, why_size, "saved a wrong result (%zu of %zu elements wrong)", m.wrong,
                     count);
    }
    free(expected);
    free(tol);
    free(c);
    return right;
}

/* The program under oclgrind in dir, its log read into f; without_uninitialized: without the
 * check for uninitialised values, the one that cannot interpret every optimised kernel. 0, or -1
 * with why when the log is no plain file. */
static int run_program(const struct grader_config *cfg, const struct grader_exercise *ex,
                       const char *dir, struct grader_size at, int without_uninitialized,
                       struct grader_run_result *run, struct grader_findings *f, char *why,
                       size_t why_size) {
    char prog[PATH_MAX + 32], log[PATH_MAX + 32], result[PATH_MAX + 32], run_log[PATH_MAX];
    snprintf(prog, sizeof prog, "%s/%s", dir, ex->id);
    snprintf(log, sizeof log, "%s/oclgrind.txt", dir);
    snprintf(result, sizeof result, "%s/result.bin", dir);
    snprintf(run_log, sizeof run_log, "%s/%s/host/oclgrind-run%s.txt", cfg->work, ex->id,
             without_uninitialized ? "-again" : "");
    char oclgrind[PATH_MAX], seed_text[32];
    grader_find_program("oclgrind", oclgrind, sizeof oclgrind);
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)run_seed(cfg, ex, at));
    /* jailed like the host test's first run (its settings, the sandbox, a folder of its own);
     * no --device: under oclgrind its simulator is the only one */
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, dir, &argv);
    grader_argv_push_all(&argv,
                         (const char *const[]){oclgrind, OCLGRIND_CHECKS, "--log", log, NULL});
    if (!without_uninitialized)
        grader_argv_push(&argv, OCLGRIND_UNINITIALIZED);
    grader_argv_push(&argv, prog);
    grade_push_host_size(&argv, ex, at, 1); /* the build's values, as the memory check's */
    grader_argv_push_all(&argv, (const char *const[]){"--seed", seed_text, "--repeats", "1",
                                                      "--warmup", "0", "--output", result, NULL});
    /* its log is all this run gives: complete once oclgrind stops reporting */
    struct grader_jail_settings js = cfg->jail;
    struct grader_jail_done_when capped = {log, FINDINGS_CAPPED_TAIL};
    js.done_when = &capped;
    grader_run_jailed(&js, argv.argv, dir, run_log, OCLGRIND_PACE * cfg->timeout, run);
    grader_argv_clear(&argv);
    return grader_read_findings(log, f, why, why_size);
}

/* A run under oclgrind that found nothing and gives no verdict of its own (no right C saved, a
 * run that did not end well, oclgrind said not to interpret the kernel, a log that is no plain
 * file: all of it the program's to provoke). The grader's own launch of the kernel at the same
 * size and values under oclgrind decides: where that runs to its end, oclgrind interpreting the
 * optimised build, the program is the cause and loses the points (1); otherwise nothing is lost
 * (0): not judged, the kernel the memory check's. fatal: what oclgrind said it stopped on, or
 * NULL; what: what the run did instead of saving a right C. */
static int no_verdict(const struct grader_config *cfg, const struct host_oclgrind *o,
                      const struct grader_run_result *run, const char *fatal, const char *what,
                      const char *at_text, char *out, size_t size, int *too_busy) {
    if (run->how == RUN_TOO_BUSY) {
        grade_appendf(out, size, "\nnot judged under oclgrind at %s: the run %s", at_text, what);
        return 0;
    }
    struct oclgrind_kernel_run k;
    grade_oclgrind_kernel(cfg, o->build, "host-oclgrind-witness", &k);
    *too_busy |= k.h.run.how == RUN_TOO_BUSY;
    int interpreted = !k.not_interpreted[0] && !k.unreadable && !k.found.fatal;
    int ran = interpreted && (k.h.run.how == RUN_EXITED || k.h.run.how == RUN_DONE);
    /* a run stopped at its limit is the program's where the grader's own took under half of it
     * (beyond that, a slow kernel under oclgrind, not a program that waits there on purpose) */
    double limit = OCLGRIND_PACE * cfg->timeout, witness = k.h.run.seconds;
    int close = ran && run->how == RUN_TIMEOUT && witness >= 0.5 * limit;
    grade_oclgrind_done(&k);
    if (close)
        grade_appendf(
            out, size,
            "\nnot judged under oclgrind at %s: the run %s, and the grader's own launch "
            "of your kernel there takes %.0f s of the %.0f s under oclgrind, too close to "
            "tell",
            at_text, what, witness, limit);
    else if (!ran && fatal)
        grade_appendf(out, size,
                      "\nnot judged under oclgrind at %s: oclgrind cannot interpret the kernel "
                      "(\"%s\"; the memory check says more)",
                      at_text, fatal);
    else if (!ran)
        grade_appendf(out, size,
                      "\nnot judged under oclgrind at %s: the run %s, and the grader's own launch "
                      "of your kernel there does not run to its end under oclgrind either (the "
                      "memory check says more)",
                      at_text, what);
    else
        grade_appendf(out, size,
                      ", but run again under oclgrind at %s it %s%s, while the grader's own launch "
                      "of your kernel there runs to its end under oclgrind: under oclgrind "
                      "main.c must do what it does on the device, and save its result",
                      at_text, fatal ? "said oclgrind cannot interpret the kernel, and " : "",
                      what);
    return ran && !close;
}

int grade_host_oclgrind(const struct grader_config *cfg, struct host_oclgrind *o,
                        const char *main_text, char *out, size_t size, int *too_busy) {
    out[0] = '\0';
    if (!o->dir[0]) {
        grade_appendf(out, size, "\nnot run under oclgrind: %s", o->skip);
        return 0;
    }
    const struct grader_exercise *ex = &o->build->row;
    struct grader_size at = grader_memcheck_at(ex);
    int n = at.n;
    char at_text[300];
    grade_build_text(o->build, at_text, sizeof at_text);
    struct grader_run_result run;
    struct grader_findings f;
    char why[100], what[300];
    int read = run_program(cfg, ex, o->dir, at, 0, &run, &f, why, sizeof why);
    *too_busy |= run.how == RUN_TOO_BUSY;
    /* oclgrind could not interpret the kernel (the log says so, which the program could also
     * forge: that only costs it a second run): once more without the check for uninitialised
     * values that stopped it. The host program's faults are API errors and launches that reach
     * past the memory the kernel was given, which the other checks find at full speed (an
     * unoptimised build costs 8 times as much); an uninitialised value in the kernel is the
     * memory check's, which runs the kernel unoptimised */
    char stopped[100] = "";
    if (read == 0 && f.fatal && run.how != RUN_TOO_BUSY) {
        snprintf(stopped, sizeof stopped, "%s", f.fatal_what);
        read = run_program(cfg, ex, o->again, at, 1, &run, &f, why, sizeof why);
        *too_busy |= run.how == RUN_TOO_BUSY;
    }
    grader_describe_run(&run, what, sizeof what);
    /* only what oclgrind is known to report counts: not text of other kinds in its log */
    size_t api = read == 0 ? f.counts[FINDING_API] : 0;
    size_t memory = read == 0 ? f.total - api - f.counts[FINDING_OTHER] : 0;
    if (api + memory == 0) {
        char wrong[300] = "";
        const char *dir = stopped[0] ? o->again : o->dir;
        if (read == 0 && !f.fatal && run.how == RUN_EXITED && run.code == 0 &&
            saved_right(cfg, ex, dir, at, wrong, sizeof wrong)) {
            grade_appendf(out, size,
                          "; run again under oclgrind at %s%s, it made no API or memory errors",
                          at_text,
                          stopped[0] ? ", without its check for uninitialised values (which cannot "
                                       "interpret the kernel)"
                                     : "");
            return 0;
        }
        if (read != 0)
            snprintf(wrong, sizeof wrong, "left a log that oclgrind did not write (%s)", why);
        return no_verdict(cfg, o, &run, read == 0 && f.fatal ? f.fatal_what : NULL,
                          wrong[0] ? wrong : what, at_text, out, size, too_busy);
    }
    int memory_counts = 0;
    if (memory) {
        /* the same kernel at the same size and values under oclgrind, launched by the grader's
         * harness (unoptimised where oclgrind cannot interpret it optimised) */
        struct oclgrind_kernel_run k;
        grade_oclgrind_kernel(cfg, o->build, "host-oclgrind-harness", &k);
        *too_busy |= k.h.run.how == RUN_TOO_BUSY;
        memory_counts = grade_oclgrind_clean(&k);
        grade_oclgrind_done(&k);
    }
    char *summary = malloc(SUMMARY_SIZE);
    if (summary)
        grader_describe_findings(&f, 0, NULL, summary, SUMMARY_SIZE);
    if (!api && !memory_counts) {
        grade_appendf(
            out, size,
            "\noclgrind also found %zu memory errors when it ran the program at %s, but the "
            "grader's own launch of your kernel there finds errors too: they are the memory "
            "check's, not this test's",
            memory, at_text);
        free(summary);
        return 0;
    }
    grade_appendf(out, size, ", but run again under oclgrind at %s it went wrong", at_text);
    if (memory_counts)
        grade_appendf(
            out, size,
            " (the grader's own launch of your kernel at %s is clean, so main.c is the cause)",
            at_text);
    grade_appendf(out, size, ":\n%s", summary ? summary : "oclgrind found errors");
    host_hints(ex, &f, n, memory_counts, main_text, out, size);
    free(summary);
    return 1;
}
