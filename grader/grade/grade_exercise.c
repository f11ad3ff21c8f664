/* grade_exercise.c - grading one exercise of a submission: the order of its tests (the kernel at
 * each hidden size, the host program, the memory check, the technique, the timing against the
 * reference; or the quiz and the CUDA twin), each a test with points, each in a file of its own.
 */
#include "grade/internal.h"
#include "text/canon.h"
#include "grade/subgroups.h"
#include "grade/kernel_printf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A printf in the graded kernel (its canonical text, line for line the student's): said under
 * the first correctness test, with what it costs at the timed size; no point changes. */
static void printf_note(const struct grader_exercise *ex, const char *kernel,
                        struct grader_exercise_result *r) {
    size_t len = 0;
    char *text = clu_read_file(kernel, &len);
    int line = text ? grade_kernel_printf_line(text, len) : 0;
    free(text);
    struct grader_launch plan;
    struct grader_variant v = grader_variant_of(ex, 0, 0);
    struct grader_size at = grader_square(ex->perf_n);
    if (!line || grader_plan_launch(ex, NULL, at, &v, &plan) != 0)
        return;
    size_t items = 1;
    for (unsigned d = 0; d < plan.dims; d++)
        items *= plan.global[d];
    for (int i = 0; i < r->test_count; i++)
        if (strstr(r->tests[i].name, "correct at")) {
            grader_test_append(
                &r->tests[i],
                "note: kernel.cl calls printf (line %d). Every work-item runs it: at the timed "
                "size (N = %d) one launch prints up to %zu lines through the device's printf "
                "buffer, and the timed comparison times them with the kernel. Take it out (or "
                "put it under #ifdef DEBUG) once the kernel is right",
                line, ex->perf_n, items);
            return;
        }
}

static int exists(const char *path) {
    return access(path, R_OK) == 0;
}

void grader_grade_exercise(const struct grader_config *cfg, const struct grader_exercise *ex,
                           struct grader_exercise_result *r) {
    memset(r, 0, sizeof *r);
    r->ex = ex;
    grader_result_start_clock(r);
    if (!ex->kernel) { /* no OpenCL kernel: a quiz and a CUDA twin, as the row says */
        int first_question = r->test_count, unanswered = 1;
        if (ex->quiz[0].id)
            grader_quiz_tests(cfg, ex, r);
        for (int t = first_question; t < r->test_count; t++)
            unanswered &= r->tests[t].verdict == GRADER_NOT_RUN; /* no answer */
        int cuda_untouched = 1;
        if (ex->cuda_per_size) {
            cuda_untouched = grader_cuda_tests(cfg, ex, r);
        }
        r->not_implemented = unanswered && cuda_untouched && grader_result_score(r) == 0;
        return;
    }
    if (ex->needs_extension && !grader_has_extension(cfg->device_extensions, ex->needs_extension)) {
        grader_add_verdict(r, GRADER_SKIPPED, "graded where the device has the kernel's extension",
                           0, grader_max_points(ex),
                           "skipped: %s has no %s, which this exercise needs, so its %d points "
                           "are left out of the maximum (grade it on a device that has it: "
                           "--device, DEVICE=)",
                           cfg->device_name ? cfg->device_name : "this device", ex->needs_extension,
                           grader_max_points(ex));
        return;
    }
    /* oclgrind implements no extension: a kernel that needs one is not run under it, but for
     * sub-groups, which the grader writes into the kernel for its memory check (subgroups.c) */
    int own_sub_groups = cfg->memcheck && grade_sub_groups_emulated(ex);
    struct grader_config without_oclgrind;
    char oclgrind_lacks[160];
    if (ex->needs_extension && cfg->memcheck) {
        without_oclgrind = *cfg;
        snprintf(oclgrind_lacks, sizeof oclgrind_lacks, "oclgrind has no %s", ex->needs_extension);
        without_oclgrind.memcheck = 0;
        without_oclgrind.memcheck_off = oclgrind_lacks;
        cfg = &without_oclgrind;
    }
    /* whether the capstone's anchor (grader_vendor_anchor: OpenBLAS on a CPU, CLBlast on a GPU)
     * can be timed here, decided before any code of the student's runs (the vendors alone, in
     * the reference's harness): its points are in every student's maximum or in none */
    struct grade_anchor_here here = {NULL, "", ""};
    if (cfg->perf && !cfg->handout && ex->vendor_ratios[0] > 0) {
        char reference[PATH_MAX + 64];
        snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
        grade_anchor_here_of(cfg, ex, reference, &here);
    }
    /* the memory check and the technique at a size drawn from the hidden seed, printed only
     * afterwards: a kernel cannot behave at one known size and differently at the others */
    struct grader_exercise drawn = *ex;
    uint64_t draw = grader_derive_seed(cfg->seed, ex->id, -1);
    drawn.memcheck_n = grader_memcheck_size(ex, draw);
    drawn.memcheck_shape = grader_memcheck_shape(ex, draw);
    drawn.memcheck_small = grader_memcheck_small(ex, grader_derive_seed(cfg->seed, ex->id, -2));
    drawn.technique_large = grader_technique_large(ex, grader_derive_seed(cfg->seed, ex->id, -3));
    ex = &drawn;
    char kernel[PATH_MAX + 128], dead[480] = "", src[PATH_MAX], work[PATH_MAX + 32], why[100];
    /* a fresh work folder: nothing of an earlier run or submission can be picked up */
    snprintf(work, sizeof work, "%s/%s", cfg->work, ex->id);
    grader_remove_tree(work);
    grader_make_dirs(work);
    /* every run uses the grader's own checked copy of kernel.cl */
    snprintf(src, sizeof src, "%s/%s/kernel.cl", cfg->submission, ex->id);
    snprintf(kernel, sizeof kernel, "%s/kernel.cl", work);
    if (!exists(src))
        snprintf(dead, sizeof dead, "%s/kernel.cl is missing from the submission", ex->id);
    else if (grader_copy_source(src, kernel, why, sizeof why) != 0)
        snprintf(dead, sizeof dead, "%s/kernel.cl: %s", ex->id, why);
    /* every build (device, oclgrind, traffic count, timing, the host program) compiles one
     * text: the grader's own preprocessing of kernel.cl (canon.c), so no build can take another
     * branch than the others, and nothing is included */
    char canonical[PATH_MAX + 96], refusal[400] = "", checked[PATH_MAX + 96];
    snprintf(canonical, sizeof canonical, "%s/kernel.canonical.cl", work);
    struct grader_variant variant = grader_variant_of(ex, 0, 0);
    int made = 0;
    if (!dead[0] && (made = grader_canonicalise(&cfg->jail, &cfg->sandbox, kernel, canonical,
                                                &variant, refusal, sizeof refusal)) != 0)
        snprintf(dead, sizeof dead, "%s/%.*s", ex->id, (int)(sizeof dead - 64), refusal);
    /* the row's smaller tuning values for oclgrind, where it has them: a text of their own */
    snprintf(checked, sizeof checked, "%s", canonical);
    variant = grader_variant_of(ex, 0, 1);
    if (!dead[0] && ex->check_tuning[0].name) {
        snprintf(checked, sizeof checked, "%s/kernel.canonical-check.cl", work);
        if ((made = grader_canonicalise(&cfg->jail, &cfg->sandbox, kernel, checked, &variant,
                                        refusal, sizeof refusal)) != 0)
            snprintf(dead, sizeof dead, "%s/%.*s", ex->id, (int)(sizeof dead - 64), refusal);
    }
    r->too_busy |= made == CANON_BUSY; /* no verdict rather than a point lost */
    if (!dead[0])
        snprintf(kernel, sizeof kernel, "%s", canonical);

    /* one POCL cache for the kernel runs of this exercise, handed to the student's uid */
    char cache[PATH_MAX] = "";
    struct grader_config kernels = *cfg; /* the kernel runs' settings: the host program's lack it */
    if (grader_jail_dir_make(cache, sizeof cache) == 0 &&
        (grader_jail_uid() == (uid_t)-1 || chown(cache, grader_jail_uid(), grader_jail_uid()) == 0))
        kernels.jail.kernel_cache = cache;
    int passed = 0, sizes = 0, untouched_all = 1;
    grade_test_sizes(&kernels, ex, kernel, dead, sizeof dead, &passed, &sizes, &untouched_all, r);
    if (!dead[0])
        printf_note(ex, kernel, r);
    /* what the timing builds: a tuning file's values where the device has one (the defaults for
     * every other test) */
    struct grade_timed timed = {.mine = *ex, .reference = *ex, .note = ""};
    char copy[sizeof work + 16]; /* the student's kernel.cl as the grader copied it */
    snprintf(timed.kernel, sizeof timed.kernel, "%s", kernel);
    snprintf(copy, sizeof copy, "%s/kernel.cl", work);
    int timed_build = cfg->perf && passed == sizes;
    if (timed_build)
        grade_timed_values(cfg, ex, copy, kernel, &timed);
    /* the builds the runs under oclgrind judge (builds.c): the graded one first, which the host
     * program's run and the traffic count take too */
    struct grade_builds builds;
    grade_oclgrind_builds(ex, kernel, checked, timed_build ? &timed : NULL, &builds);
    const struct grade_build *graded = &builds.b[0];
    grade_test_host(cfg, ex, kernel, graded, dead, r);
    if (!dead[0] && untouched_all) /* a clean check of a kernel that writes nothing is no merit */
        snprintf(dead, sizeof dead, "the kernel writes nothing to C yet");
    if (cfg->memcheck)
        grade_test_memcheck(&kernels, ex, &builds, dead, r);
    else if (own_sub_groups)
        grade_test_sub_group_memcheck(&kernels, ex, kernel, checked, passed == sizes, dead, r);
    else
        grader_add_verdict(r, GRADER_SKIPPED,
                           "memory check (oclgrind): bounds, races, uninitialised values, barriers",
                           0, ex->points.memcheck,
                           "skipped: the memory check was switched off (%s), so its %d "
                           "point%s and the technique's are left out of the maximum",
                           cfg->memcheck_off ? cfg->memcheck_off : "--no-memcheck",
                           ex->points.memcheck, ex->points.memcheck == 1 ? "" : "s");
    /* the kernel's memory traffic, counted once: for the technique and for the report */
    struct grader_traffic traffic = {0};
    int counted = 0;
    if (passed == sizes && !ex->is_vector && cfg->memcheck)
        counted =
            grade_count_traffic(&kernels, &graded->row, graded->kernel, "traffic", &traffic) == 0;
    if (ex->points.technique > 0 && cfg->memcheck)
        grade_test_technique_counted(&kernels, graded, &traffic, counted, ex->technique_large,
                                     passed == sizes, r);
    else if (ex->points.technique > 0)
        grader_add_verdict(r, GRADER_SKIPPED, "technique: counted by oclgrind", 0,
                           ex->points.technique,
                           "skipped: oclgrind's counts were switched off (%s)",
                           cfg->memcheck_off ? cfg->memcheck_off : "--no-memcheck");
    if (cfg->perf || cfg->handout) { /* (a handout's point is the instructor's, --no-perf or not) */
        /* the reference's traffic beside the student's is counted on the same values and size */
        memcpy(timed.mine.check_tuning, graded->row.check_tuning, sizeof timed.mine.check_tuning);
        timed.mine.memcheck_shape = graded->row.memcheck_shape;
        timed.mine.memcheck_n = graded->row.memcheck_n;
        grade_test_perf(&kernels, &timed.mine, &timed.reference, timed.kernel, timed.note,
                        passed == sizes, counted ? &traffic : NULL, &here, r);
    } else {
        grader_add_verdict(r, GRADER_SKIPPED, "performance against the reference solution", 0,
                           ex->points.perf,
                           "skipped: timing was switched off (--no-perf), so its point is left out "
                           "of the maximum");
        if (ex->vendor_ratios[0] > 0)
            grade_test_vendors(
                cfg, ex, ex, "", 0,
                &(struct grade_anchor_here){.off = "timing was switched off: --no-perf"}, r);
    }
    r->not_implemented = untouched_all && passed == 0;
    if (ex->cuda_per_size) { /* the capstone's CUDA twin, after its OpenCL kernel */
        int opencl_untouched = r->not_implemented;
        r->not_implemented = grader_cuda_tests(cfg, ex, r) && opencl_untouched;
    }
    if (cache[0])
        grader_jail_dir_remove(cache);
}
