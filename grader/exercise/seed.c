/* seed.c - the seeds of every run, derived one way from the hidden seed of a grading run. */
#define _GNU_SOURCE /* crypt_r */
#include "exercise/exercise.h"
#include "jail/jail.h"

#include <crypt.h>
#include <stdio.h>
#include <string.h>

/* A seed derived one way: through SHA-256-crypt, so that whoever sees a derived seed (a child
 * on its command line, a student's program) cannot work back to the hidden seed, nor forward to
 * the seeds of other runs. */
uint64_t grader_derive_seed(uint64_t seed, const char *label, long index) {
    char key[200];
    snprintf(key, sizeof key, "%llu:%s:%ld", (unsigned long long)seed, label, index);
    struct crypt_data data;
    memset(&data, 0, sizeof data);
    const char *hashed = crypt_r(key, "$5$rounds=1000$clmmseed$", &data);
    const char *text = hashed && hashed[0] != '*' ? hashed : key;
    return grader_fnv1a(text, strlen(text)) & 0x7fffffffffffffffull; /* programs take INT64_MAX */
}

uint64_t grader_launch_seed(uint64_t round_seed, int k) {
    return k ? grader_derive_seed(round_seed, "launch set", k) : round_seed;
}

/* The seed of the runs of one exercise at one size: every exercise and size gets different
 * data, from the exercise's id (not its row, which a config file may reorder). */
uint64_t grader_seed_for(uint64_t hidden_seed, const struct grader_exercise *ex,
                         struct grader_size s) {
    if (!ex->rectangular) /* a square row's seeds as they always were */
        return grader_derive_seed(hidden_seed, ex->id, s.n);
    /* the three sizes in one index (each below 2^20): 17 x 33 x 65 and 65 x 33 x 17 differ */
    long index = ((long)(s.m & 0xfffff) << 40) | ((long)(s.k & 0xfffff) << 20) | (s.n & 0xfffff);
    return grader_derive_seed(hidden_seed, ex->id, index);
}
