/* clu_cpu_core.c - the OpenBLAS core a CPU's instruction flags allow (clu_vendor.h).
 *
 * OpenBLAS 0.3.21 (Debian 12's) picks its kernels from cpuid, and where it does not know the CPU
 * it falls back to older ones: a 2-core AMD EPYC with AVX-512 ran Haswell's AVX2 kernels at 60
 * GFLOP/s (N = 1024) where SkylakeX's made 120, and a VM's 16-core Xeon with a generic model
 * string ran Prescott's SSE3 ones at 136 where numpy's own OpenBLAS made 1,036. An anchor slower
 * than the hardware makes the capstone's points free; OPENBLAS_CORETYPE, read when the library
 * loads, names the core instead, also where the environment named an older one (this machine's
 * did: OPENBLAS_CORETYPE=Haswell). The flags are /proc/cpuinfo's, which Linux clears for what
 * the kernel does not save (AVX-512's registers), so a core chosen from them is one the CPU runs.
 */
#define _DEFAULT_SOURCE /* setenv, strcasecmp */
#include "clu_vendor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether the space-separated flags hold word. */
static int has_flag(const char *flags, const char *word) {
    size_t length = strlen(word);
    for (const char *p = flags; (p = strstr(p, word)) != NULL; p += length)
        if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
            (p[length] == '\0' || p[length] == ' ' || p[length] == '\n' || p[length] == '\t'))
            return 1;
    return 0;
}

const char *clu_openblas_core_of_flags(const char *flags) {
    /* the newest first, each with every instruction set its SGEMM kernels use */
    static const struct {
        const char *core, *needs[6];
    } cores[] = {
        {"SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "fma"}},
        {"Haswell", {"avx2", "fma", "avx", NULL}},
        {"SandyBridge", {"avx", "sse4_2", NULL}},
        {"Nehalem", {"sse4_2", "ssse3", NULL}},
        {"Core2", {"ssse3", NULL}},
    };
    if (!flags)
        return NULL;
    for (size_t c = 0; c < sizeof cores / sizeof cores[0]; c++) {
        int all = 1;
        for (int i = 0; i < 6 && cores[c].needs[i] && all; i++)
            all = has_flag(flags, cores[c].needs[i]);
        if (all)
            return cores[c].core;
    }
    return NULL;
}

int clu_openblas_core_rank(const char *core) {
    /* OPENBLAS_CORETYPE's x86-64 names, oldest first; equal ranks run the same SGEMM kernels */
    static const struct {
        const char *core;
        int rank;
    } ranks[] = {{"Prescott", 1},      {"Core2", 2},     {"Penryn", 2},      {"Dunnington", 2},
                 {"Nehalem", 3},       {"Barcelona", 3}, {"SandyBridge", 4}, {"Bulldozer", 4},
                 {"Haswell", 5},       {"Zen", 5},       {"SkylakeX", 6},    {"Cooperlake", 6},
                 {"SapphireRapids", 6}};
    for (size_t i = 0; core && i < sizeof ranks / sizeof ranks[0]; i++)
        if (strcasecmp(core, ranks[i].core) == 0)
            return ranks[i].rank;
    return -1;
}

const char *clu_openblas_core_decide(const char *flags, const char *set) {
    const char *core = clu_openblas_core_of_flags(flags);
    if (!core)
        return NULL;
    if (set && *set) { /* a core the environment names stands, unless the CPU runs a newer one */
        int rank = clu_openblas_core_rank(set);
        if (rank < 0 || rank >= clu_openblas_core_rank(core))
            return NULL;
    }
    return core;
}

const char *clu_openblas_choose_core(char *was, size_t was_size) {
    const char *set = getenv("OPENBLAS_CORETYPE");
    if (was_size > 0)
        snprintf(was, was_size, "%s", set ? set : "");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return NULL;
    char line[8192];
    const char *flags = NULL;
    while (!flags && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0 && strchr(line, ':'))
            flags = strchr(line, ':') + 1;
    fclose(f);
    const char *core = clu_openblas_core_decide(flags, set);
    if (core)
        setenv("OPENBLAS_CORETYPE", core, 1);
    return core;
}
