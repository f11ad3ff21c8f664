/* intake_worksheet.c - when each participant's upload came, from Moodle's offline grading
 * worksheet (Grades > "Download grading worksheet", a CSV), which the instructor downloads from
 * the platform: its "Identifier" column ("Participant 1234") and "Last modified (submission)"
 * (Moodle's userdate, "Tuesday, 10 January 2026, 12:00 PM" in English, in the Moodle user's
 * time zone, read here as this machine's local time; "-" where nothing was submitted).
 * A fact of the platform's, never the student's. Pure functions but for the file read in
 * intake_worksheet_read (tests/unit/test_intake.c).
 */
#define _GNU_SOURCE /* strptime */
#include "intake.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The next field of an RFC 4180 record at *at (quotes doubled inside quotes; a quoted field may
 * hold commas and line breaks), copied into FIELD; *end_of_record set when it ended the line.
 * Returns 0, or -1 at the end of the text. */
int intake_csv_field(const char **at, char *field, size_t size, int *end_of_record) {
    const char *p = *at;
    if (!*p)
        return -1;
    size_t n = 0;
    int quoted = *p == '"';
    if (quoted)
        p++;
    for (; *p; p++) {
        if (quoted && *p == '"' && p[1] == '"')
            p++;
        else if (quoted && *p == '"') {
            quoted = 0;
            continue;
        } else if (!quoted && (*p == ',' || *p == '\n' || *p == '\r'))
            break;
        if (n + 1 < size)
            field[n++] = *p;
    }
    field[n] = '\0';
    *end_of_record = *p != ',';
    if (*p == ',')
        p++;
    else if (*p == '\r' && p[1] == '\n')
        p += 2;
    else if (*p)
        p++;
    *at = p;
    return 0;
}

/* Moodle's date of a worksheet, as epoch seconds in local time; -1 when it is none ("-"). */
long long intake_moodle_time(const char *text) {
    static const char *const formats[] = {"%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p",
                                          "%A, %d %B %Y, %H:%M", "%Y-%m-%d %H:%M", NULL};
    for (size_t i = 0; formats[i]; i++) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *end = strptime(text, formats[i], &tm);
        if (end && !*end) {
            tm.tm_isdst = -1;
            return (long long)mktime(&tm);
        }
    }
    return -1;
}

int intake_worksheet(const char *text, FILE *out, FILE *err) {
    /* the header: which columns hold the identifier and the submission's time */
    char field[1024];
    int end = 0, column = 0, identifier = -1, modified = -1;
    const char *at = text;
    if (strncmp(at, "\xEF\xBB\xBF", 3) == 0) /* a byte order mark, as Excel saves it */
        at += 3;
    while (!end && intake_csv_field(&at, field, sizeof field, &end) == 0) {
        if (strcmp(field, "Identifier") == 0)
            identifier = column;
        else if (strcmp(field, "Last modified (submission)") == 0)
            modified = column;
        column++;
    }
    if (identifier < 0 || modified < 0) {
        fprintf(err, "not Moodle's grading worksheet: no \"Identifier\" and \"Last modified "
                     "(submission)\" columns\n");
        return INTAKE_REFUSED;
    }
    while (*at) {
        char number[32] = "", when[1024] = "";
        end = 0;
        for (column = 0; !end && intake_csv_field(&at, field, sizeof field, &end) == 0; column++) {
            if (column == identifier && strncmp(field, "Participant ", 12) == 0 &&
                strlen(field + 12) < sizeof number &&
                strspn(field + 12, "0123456789") == strlen(field + 12))
                snprintf(number, sizeof number, "%s", field + 12);
            else if (column == modified)
                snprintf(when, sizeof when, "%s", field);
        }
        if (!*number)
            continue;
        long long t = intake_moodle_time(when);
        if (t >= 0)
            fprintf(out, "%s\t%lld\n", number, t);
        else if (strcmp(when, "-") != 0 && *when)
            fprintf(err, "Participant %s: \"%s\" is no date this reads\n", number, when);
    }
    return INTAKE_OK;
}
