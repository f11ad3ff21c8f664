/* testkit.h - what the grader's unit tests share: the run's seed (from an environment variable
 * or the clock, printed), a CHECK that names the seed which reproduces a failure, a seeded
 * splitmix64 stream per test, a fresh folder under /tmp, and now()/nap() in seconds. Include
 * after <cmocka.h> and grader.h; call testkit_start() in the group setup. */
#ifndef TESTKIT_H
#define TESTKIT_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t g_seed;

/* A check that says where, what, and the seed that reproduces it. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            print_error("%s:%d: check failed: %s (seed %" PRIu64 ")\n    ", __FILE__, __LINE__,    \
                        #cond, g_seed);                                                            \
            print_error(__VA_ARGS__);                                                              \
            print_error("\n");                                                                     \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

struct rng {
    uint64_t s;
};

static inline uint64_t rng_next(struct rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Each test gets its own stream, so one test's draws do not depend on the others'. */
static inline struct rng rng_for(const char *tag) {
    struct rng r = {g_seed ^ grader_fnv1a(tag, strlen(tag))};
    rng_next(&r);
    return r;
}

/* Uniform in [lo, hi]. */
static inline long rng_range(struct rng *r, long lo, long hi) {
    return lo + (long)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Seconds on the monotonic clock. */
static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void nap(double seconds) {
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

/* The group setup of test `name`: g_seed from TEST_<NAME>_SEED (given as `var`) or the clock,
 * printed with how to repeat the run, and a fresh folder /tmp/<name>.XXXXXX in tmp (at least
 * 64 bytes). 0, or -1 if the folder cannot be made. */
static inline int testkit_start(const char *name, const char *var, char *tmp, size_t size) {
    const char *fixed = getenv(var);
    if (fixed && *fixed) {
        g_seed = strtoull(fixed, NULL, 0);
    } else {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        struct rng r = {(uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 20) ^
                        ((uint64_t)getpid() << 40)};
        g_seed = rng_next(&r);
    }
    print_message("%s: seed %" PRIu64 " (%s=%" PRIu64 " repeats this run)\n", name, g_seed, var,
                  g_seed);
    snprintf(tmp, size, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(tmp)) {
        print_error("mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

#endif
