#include <stdio.h>
/* 1 if another student's files can be read */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    const char *paths[] = {SUBMISSIONS_DIR "/good/exercises/04_local_B/kernel.cl",
                           OUT_DIR "/students/good/results.json", OUT_DIR "/gradebook.csv",
                           OUT_DIR "/work/good/sub/04_local_B/kernel.cl"};
    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "r");
        if (f) {
            fclose(f);
            fprintf(stderr, "LEAK: read %s\n", paths[i]);
            return 1;
        }
    }
    return 0;
}
