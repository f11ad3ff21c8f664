#include <stdio.h>
#include <string.h>
/* 1 if the reference kernel can be read, from the workbook's real path or up from here */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    char path[512] = WORKBOOK_ROOT "/solutions/04_local_B/kernel.cl";
    for (int up = 0; up < 12; up++) {
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            fprintf(stderr, "LEAK: read %s\n", path);
            return 1;
        }
        snprintf(path, sizeof path, "%.*ssolutions/04_local_B/kernel.cl", 3 * up,
                 "../../../../../../../../../../../../");
    }
    return 0;
}
