/* cuda_build.c - the CUDA twin's build: nvcc found, and the student's kernel.cu built into a
 * module in the jail, as a student's build is (cuda_build.h; cuda.c runs and checks it).
 */
#define _GNU_SOURCE
#include "grade/cuda_build.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_CAP       6000 /* bytes of nvcc's output shown in a report */
#define BUILD_TIMEOUT 120  /* seconds for nvcc */

static int exited_with(const struct grader_run_result *run, int code) {
    return run->how == RUN_EXITED && run->code == code;
}

int grader_find_nvcc(char *path, size_t size) {
    if (grader_find_program("nvcc", path, size) == 0)
        return 0;
    snprintf(path, size, "/usr/local/cuda/bin/nvcc");
    return access(path, X_OK) == 0 ? 0 : -1;
}

int grader_cuda_build(const struct grader_config *cfg, const char *nvcc, const char *dir,
                      int capability, const struct grader_variant *variant, int block, char **log) {
    char source[PATH_MAX + 32], module[PATH_MAX + 32], out[PATH_MAX + 32],
        defines[CLU_MAX_DEFINES + 1][64], arch[32] = "", jail[PATH_MAX], why[100];
    /* built in a folder the student's uid can reach (the work folder may be under /root) */
    snprintf(out, sizeof out, "%s/build.txt", dir);
    snprintf(source, sizeof source, "%s/kernel.cu", dir);
    if (grader_jail_dir_make(jail, sizeof jail) != 0) {
        *log = strdup("the grader cannot prepare its build folder in /tmp");
        return -1;
    }
    snprintf(module, sizeof module, "%s/kernel.cu", jail);
    if (grader_copy_source(source, module, why, sizeof why) != 0) {
        *log = strdup(why);
        grader_jail_dir_remove(jail);
        return -1;
    }
    snprintf(source, sizeof source, "%s/kernel.cu", jail);
    snprintf(module, sizeof module, "%s/kernel.fatbin", jail);
    int define_count = 0;
    if (!variant->tuning)
        snprintf(defines[define_count++], sizeof defines[0], "-DBLOCK=%d", block);
    for (int d = 0; variant->tuning && d < CLU_MAX_DEFINES && variant->tuning[d].name; d++)
        snprintf(defines[define_count++], sizeof defines[0], "-D%s=%d", variant->tuning[d].name,
                 variant->tuning[d].value);
    if (capability > 0)
        snprintf(arch, sizeof arch, "-arch=sm_%d", capability);
    struct grader_run_result run;
    for (int attempt = 0; attempt < 2; attempt++) {
        struct grader_argv argv = GRADER_ARGV_INIT;
        grader_sandbox_push(&cfg->jail, &cfg->sandbox, jail, &argv);
        grader_argv_push_all(&argv, (const char *const[]){nvcc, "-fatbin", NULL});
        for (int d = 0; d < define_count; d++)
            grader_argv_push(&argv, defines[d]);
        grader_argv_push_all(&argv, (const char *const[]){"-o", module, source, NULL});
        if (arch[0])
            grader_argv_push(&argv, arch);
        remove(module);
        grader_run_jailed(&cfg->jail, argv.argv, jail, out, BUILD_TIMEOUT, &run);
        grader_argv_clear(&argv);
        *log = grader_read_capped(out, LOG_CAP);
        char kept[PATH_MAX + 32];
        snprintf(kept, sizeof kept, "%s/kernel.fatbin", dir);
        if (exited_with(&run, 0) && grader_copy_source(module, kept, why, sizeof why) == 0) {
            grader_jail_dir_remove(jail);
            return 0;
        }
        if (!arch[0] || !strstr(*log, "nsupported gpu architecture"))
            break;
        free(*log); /* a GPU newer than this nvcc: its default code, compiled by the driver */
        arch[0] = '\0';
    }
    if (run.how != RUN_EXITED) {
        char what[300], *more = malloc(strlen(*log) + 400);
        grader_describe_run(&run, what, sizeof what);
        if (more) {
            sprintf(more, "nvcc %s\n%s", what, *log);
            free(*log);
            *log = more;
        }
    }
    grader_jail_dir_remove(jail);
    return -1;
}
