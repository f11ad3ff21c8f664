#include <stdio.h>
#include <stdlib.h>
/* fills its working folder with 16 MB files */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    static char block[1 << 20];
    for (int file = 0;; file++) {
        char name[64];
        snprintf(name, sizeof name, "filler-%d.bin", file);
        FILE *f = fopen(name, "wb");
        if (!f)
            return 1;
        for (int mb = 0; mb < 16; mb++)
            fwrite(block, 1, sizeof block, f);
        fclose(f);
    }
}
