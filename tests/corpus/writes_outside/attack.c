#include <stdio.h>
/* 1 if a file outside its own folder could be created */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    const char *paths[] = {"../ESCAPED",
                           "../../ESCAPED",
                           OUT_DIR "/ESCAPED",
                           OUT_DIR "/students/ESCAPED",
                           SUBMISSIONS_DIR "/ESCAPED",
                           WORKBOOK_ROOT "/ESCAPED",
                           "/var/tmp/ESCAPED",
                           "/dev/shm/ESCAPED",
                           "/tmp/ESCAPED"};
    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        FILE *f = fopen(paths[i], "w");
        if (f) {
            fclose(f);
            fprintf(stderr, "LEAK: wrote %s\n", paths[i]);
            return 1;
        }
    }
    return 0;
}
