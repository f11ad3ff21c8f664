#include <stdio.h>
#include <stdlib.h>
/* Output that an XML reader refuses or a spreadsheet or a browser would obey: the noncharacters
 * U+FFFE, U+FFFF (outside XML 1.0's Char: one of them made the class's junit.xml unreadable),
 * U+FDD0 and U+10FFFF (the last plane's end), the C1 control NEL as UTF-8 (C2 85), a formula
 * for a spreadsheet, the end of a CDATA section and a script; then a failure, so that the grader
 * shows the output and every class file carries it. */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    printf("A[\xef\xbf\xbe]B[\xef\xbf\xbf]C[\xef\xb7\x90]D[\xf4\x8f\xbf\xbf]E[\xc2\x85]F\n");
    printf("=HYPERLINK(\"http://x\")\n");
    printf("]]><script>alert(1)</script>\n");
    fflush(stdout);
    fprintf(stderr, "G[\xf0\x9f\xbf\xbe]H[\xef\xbf\xbf]I\n");
    return 1;
}
