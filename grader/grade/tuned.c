/* tuned.c - the values the timed comparison builds each side with (internal.h): the graded
 * device's tuning file (make tune's, exercise/tuning.h) where it has a line for the exercise, else
 * the row's defaults. The reference gets the `reference` line, the student's kernel the
 * `submission` line: their kernel, their values. Correctness is still graded at the defaults by
 * every other test, and each timed round's C is checked as always, so values that break the
 * kernel cost the timing, nothing else.
 */
#include "grade/internal.h"
#include "text/canon.h"
#include "exercise/tuning.h"

#include <stdio.h>
#include <string.h>

/* Append to the note, as far as it fits. */
static void say(struct grade_timed *t, const char *text) {
    size_t used = strlen(t->note);
    if (used + 1 < sizeof t->note)
        snprintf(t->note + used, sizeof t->note - used, "%s", text);
}

/* Whether found's values can be timed at the row's size: said in the note when not. */
static int usable(const struct grader_exercise *ex, const char *file,
                  const struct grader_tuned *found, struct grade_timed *t) {
    char why[200], line[400];
    if (grader_values_fit(ex, &found->values, ex->perf_n, 0, why, sizeof why))
        return 1;
    snprintf(line, sizeof line, "note: %s:%d is not used: %s\n", file, found->line, why);
    say(t, line);
    return 0;
}

void grade_timed_values(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *source, const char *canonical, struct grade_timed *t) {
    t->mine = t->reference = *ex;
    snprintf(t->kernel, sizeof t->kernel, "%s", canonical);
    t->note[0] = '\0';
    if (!cfg->tuning_file || !ex->tuning[0].name)
        return;
    const char *file = cfg->tuning_file;
    struct grader_tuned found[2];
    char warnings[800] = "", line[900], values[200];
    grader_tuning_lookup(file, ex, found, warnings, sizeof warnings);
    for (char *w = warnings, *end; *w; w = end + 1) { /* each as a note of its own */
        end = strchr(w, '\n');
        if (!end)
            break;
        snprintf(line, sizeof line, "note: %.*s\n", (int)(end - w), w);
        say(t, line);
    }
    int use_reference =
        found[TUNING_REFERENCE].line && usable(ex, file, &found[TUNING_REFERENCE], t);
    int use_mine = found[TUNING_SUBMISSION].line && usable(ex, file, &found[TUNING_SUBMISSION], t);
    if (use_mine) {
        /* a text of its own: the canonical text is preprocessed at one set of values */
        char tuned[sizeof t->kernel], refusal[400] = "";
        struct grader_variant variant = grader_values_variant(&found[TUNING_SUBMISSION].values);
        snprintf(tuned, sizeof tuned, "%s", canonical);
        char *slash = strrchr(tuned, '/');
        snprintf(slash ? slash + 1 : tuned, sizeof tuned - (size_t)(slash ? slash + 1 - tuned : 0),
                 "kernel.canonical-tuned.cl");
        if (grader_canonicalise(&cfg->jail, &cfg->sandbox, source, tuned, &variant, refusal,
                                sizeof refusal) != 0) {
            snprintf(line, sizeof line, "note: %s:%d is not used: at those values %s\n", file,
                     found[TUNING_SUBMISSION].line, refusal);
            say(t, line);
            use_mine = 0;
        } else {
            snprintf(t->kernel, sizeof t->kernel, "%s", tuned);
            memcpy(t->mine.tuning, found[TUNING_SUBMISSION].values.v, sizeof t->mine.tuning);
        }
    }
    if (use_reference)
        memcpy(t->reference.tuning, found[TUNING_REFERENCE].values.v, sizeof t->reference.tuning);
    if (!use_reference && !use_mine)
        return;
    snprintf(line, sizeof line, "timed with the values of %s (make tune's):\n", file);
    say(t, line);
    for (int side = 0; side < 2; side++) {
        const struct grader_exercise *row = side == TUNING_REFERENCE ? &t->reference : &t->mine;
        struct grader_values v = grader_values_default(row);
        int used = side == TUNING_REFERENCE ? use_reference : use_mine;
        grader_values_text(&v, values, sizeof values);
        if (used)
            snprintf(line, sizeof line, "  %-9s  %s  (line %d)\n",
                     side == TUNING_REFERENCE ? "reference" : "yours", values, found[side].line);
        else
            snprintf(line, sizeof line, "  %-9s  %s  (the exercise's defaults)\n",
                     side == TUNING_REFERENCE ? "reference" : "yours", values);
        say(t, line);
    }
}
