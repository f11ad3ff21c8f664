#include <stdio.h>
#include <stdlib.h>
/* Output that a terminal would obey or a JSON reader choke on: CSI as UTF-8 (C2 9B) and as a raw
 * byte (9B), DEL, an overlong '/', a surrogate, a code point past U+10FFFF and a truncated
 * sequence, on stdout and stderr; then a failure, so that the grader shows the output. */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    printf("A[\xc2\x9b"
           "2J]B[\x7f]C[\x9b"
           "31m]D[\xc0\xaf]E[\xed\xa0\x80]F[\xe2\x82]G\n");
    fflush(stdout);
    fprintf(stderr, "H[\xc2\x9b"
                    "2J]I[\x7f]J[\x9b"
                    "0m]K[\xf4\x90\x80\x80]L[\xe2\x82");
    return 1;
}
