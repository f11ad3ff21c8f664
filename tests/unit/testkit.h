/* testkit.h - what the grader's unit tests share: a CHECK that names the seed which reproduces
 * a failure, and a seeded splitmix64 stream per test. Include after <cmocka.h>; set g_seed in
 * main() (from an environment variable or the clock) and print it. */
#ifndef TESTKIT_H
#define TESTKIT_H

#include <inttypes.h>
#include <stdint.h>

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
    uint64_t h = 1469598103934665603ull;
    for (; *tag; tag++)
        h = (h ^ (unsigned char)*tag) * 1099511628211ull;
    struct rng r = {g_seed ^ h};
    rng_next(&r);
    return r;
}

/* Uniform in [lo, hi]. */
static inline long rng_range(struct rng *r, long lo, long hi) {
    return lo + (long)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

#endif
