/* candidates.c - sets of tuning values (tuning.h): the row's defaults, the grid of its candidates
 * that `make tune` searches, and whether a launch can take a set at all. */
#include "exercise/tuning.h"

#include <stdio.h>
#include <string.h>

struct grader_values grader_values_default(const struct grader_exercise *ex) {
    struct grader_values values;
    memset(&values, 0, sizeof values);
    for (int t = 0; t < CLU_MAX_DEFINES && ex->tuning[t].name; t++)
        values.v[t] = ex->tuning[t];
    return values;
}

struct grader_variant grader_values_variant(const struct grader_values *values) {
    return (struct grader_variant){0, values->v};
}

void grader_values_text(const struct grader_values *values, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < CLU_MAX_DEFINES && values->v[t].name && used < size; t++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%d", t ? " " : "",
                                 values->v[t].name, values->v[t].value);
}

int grader_values_equal(const struct grader_values *a, const struct grader_values *b) {
    for (int t = 0; t < CLU_MAX_DEFINES + 1; t++) {
        if (!a->v[t].name || !b->v[t].name)
            return !a->v[t].name && !b->v[t].name;
        if (strcmp(a->v[t].name, b->v[t].name) != 0 || a->v[t].value != b->v[t].value)
            return 0;
    }
    return 1;
}

static int candidate_count(const struct grader_candidates *c) {
    int count = 0;
    while (count < GRADER_MAX_CANDIDATES && c->values[count] > 0)
        count++;
    return count;
}

long grader_grid_size(const struct grader_exercise *ex) {
    long size = 1;
    for (int c = 0; c < CLU_MAX_DEFINES && ex->candidates[c].name; c++)
        size *= candidate_count(&ex->candidates[c]);
    return size;
}

/* The slot of name among the values (-1: none). */
static int slot_of(const struct grader_values *values, const char *name) {
    for (int t = 0; t < CLU_MAX_DEFINES && values->v[t].name; t++)
        if (strcmp(values->v[t].name, name) == 0)
            return t;
    return -1;
}

struct grader_values grader_grid_point(const struct grader_exercise *ex, long index) {
    struct grader_values values = grader_values_default(ex);
    int lists = 0;
    while (lists < CLU_MAX_DEFINES && ex->candidates[lists].name)
        lists++;
    /* mixed radix, the last list the fastest digit */
    for (int c = lists - 1; c >= 0; c--) {
        int count = candidate_count(&ex->candidates[c]),
            slot = slot_of(&values, ex->candidates[c].name);
        if (count < 1)
            continue;
        if (slot >= 0)
            values.v[slot].value = ex->candidates[c].values[index % count];
        index /= count;
    }
    return values;
}

long grader_grid_index(const struct grader_exercise *ex, const struct grader_values *values) {
    long index = 0;
    for (int c = 0; c < CLU_MAX_DEFINES && ex->candidates[c].name; c++) {
        int count = candidate_count(&ex->candidates[c]),
            slot = slot_of(values, ex->candidates[c].name);
        int digit = -1;
        for (int i = 0; slot >= 0 && i < count && digit < 0; i++)
            if (ex->candidates[c].values[i] == values->v[slot].value)
                digit = i;
        if (digit < 0)
            return -1;
        index = index * count + digit;
    }
    return index;
}

long grader_grid_neighbour(const struct grader_exercise *ex, long index, int list, int step) {
    int lists = 0;
    while (lists < CLU_MAX_DEFINES && ex->candidates[lists].name)
        lists++;
    if (index < 0 || index >= grader_grid_size(ex) || list < 0 || list >= lists)
        return -1;
    long weight = 1; /* of list's digit: the product of the counts of the lists after it */
    for (int c = lists - 1; c > list; c--)
        weight *= candidate_count(&ex->candidates[c]);
    int count = candidate_count(&ex->candidates[list]);
    long digit = index / weight % count + step;
    return digit < 0 || digit >= count ? -1 : index + step * weight;
}

/* The value of name in values (share: 1 for no name). */
static int value_of(const struct grader_values *values, const char *name, int otherwise) {
    int slot = name ? slot_of(values, name) : -1;
    return slot >= 0 ? values->v[slot].value : otherwise;
}

int grader_values_fit(const struct grader_exercise *ex, const struct grader_values *values, int n,
                      size_t max_group, char *why, size_t why_size) {
    size_t group = 1;
    for (int d = 0; ex->shape == SHAPE_C_TILES && d < 2; d++) {
        int tile = value_of(values, ex->c_tile[d], 0), share = value_of(values, ex->per_item[d], 1);
        if (tile < 1 || share < 1 || tile % share != 0) {
            snprintf(why, why_size, "%s = %d is not a multiple of %s = %d",
                     ex->c_tile[d] ? ex->c_tile[d] : "?", tile,
                     ex->per_item[d] ? ex->per_item[d] : "1", share);
            return 0;
        }
        group *= (size_t)(tile / share);
    }
    for (int i = 0; i < 4 && ex->multiple_of[i]; i++) {
        int step = value_of(values, ex->multiple_of[i], 1);
        if (step > 1 && n % step != 0) {
            snprintf(why, why_size, "N = %d is not a multiple of %s = %d", n, ex->multiple_of[i],
                     step);
            return 0;
        }
    }
    if (max_group > 0 && group > max_group) {
        snprintf(why, why_size, "a work-group of %zu work-items, the device takes at most %zu",
                 group, max_group);
        return 0;
    }
    if (why_size)
        why[0] = '\0';
    return 1;
}
