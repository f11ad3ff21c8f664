/* intake_name.c - a learning platform's download name read where the platform writes it.
 *
 * Moodle's "download all submissions" names each upload `Full Name_N_assignsubmission_file_NAME`
 * (or a folder `Full Name_N_assignsubmission_file_` holding it), N the participant number; Canvas
 * names it `login_N_FILEID_NAME`, or `login_LATE_N_FILEID_NAME` past the due date, N the user id.
 * NAME is the student's own file name, and may hold anything a student types, `_99_
 * assignsubmission_` or `_LATE_` included: so Moodle's number is the FIRST `_N_assignsubmission_`
 * (the platform's, before the student's text), Canvas's prefix is anchored at the start, and a
 * name both platforms read (one of them then reads the student's text) is refused.
 * Pure functions: no I/O (tests/unit/test_intake_name.c).
 */
#include "intake.h"

#include <string.h>

const char *const intake_editable[] = {"main.c",    "kernel.cl", "answers.txt",
                                       "kernel.cu", "main.cu",   NULL};

const char *intake_platform_word(enum intake_platform platform) {
    switch (platform) {
    case INTAKE_MOODLE:
        return "moodle";
    case INTAKE_CANVAS:
        return "canvas";
    case INTAKE_AMBIGUOUS:
        return "ambiguous";
    case INTAKE_PLAIN:
        break;
    }
    return "plain";
}

static int intake_is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* Digits at P (at least one, at most what NUMBER holds): their count, or 0. */
static size_t intake_digits(const char *p, size_t most) {
    size_t n = 0;
    while (intake_is_digit(p[n]))
        n++;
    return n > 0 && n < most ? n : 0;
}

/* Copy N bytes of FROM into TO (of SIZE bytes) as a string; 0, or -1 when it does not fit. */
static int intake_copy(char *to, size_t size, const char *from, size_t n) {
    if (n >= size)
        return -1;
    memcpy(to, from, n);
    to[n] = '\0';
    return 0;
}

/* Canvas: `login_(LATE_)?UID_FILEID_REST`, login without underscores, REST not empty. */
static int intake_canvas(const char *name, struct intake_name *out) {
    const char *under = strchr(name, '_');
    if (!under || under == name)
        return 0;
    const char *p = under + 1;
    int late = strncmp(p, "LATE_", 5) == 0;
    if (late)
        p += 5;
    size_t uid = intake_digits(p, sizeof out->number);
    if (!uid || p[uid] != '_')
        return 0;
    const char *file_id = p + uid + 1;
    size_t fid = intake_digits(file_id, 64);
    if (!fid || file_id[fid] != '_' || file_id[fid + 1] == '\0')
        return 0;
    if (intake_copy(out->number, sizeof out->number, p, uid) != 0 ||
        intake_copy(out->person, sizeof out->person, name, (size_t)(under - name)) != 0)
        return 0;
    out->late = late;
    out->rest = file_id + fid + 1;
    return 1;
}

/* Moodle: the first `_N_assignsubmission_KIND` (KIND letters), then `_REST` or nothing. */
static int intake_moodle(const char *name, struct intake_name *out) {
    static const char marker[] = "_assignsubmission_";
    for (const char *under = strchr(name, '_'); under; under = strchr(under + 1, '_')) {
        size_t n = intake_digits(under + 1, sizeof out->number);
        if (!n || under == name || strncmp(under + 1 + n, marker, sizeof marker - 1) != 0)
            continue;
        const char *kind = under + 1 + n + sizeof marker - 1;
        size_t letters = strspn(kind, "abcdefghijklmnopqrstuvwxyz");
        if (!letters || (kind[letters] != '_' && kind[letters] != '\0'))
            continue;
        if (intake_copy(out->number, sizeof out->number, under + 1, n) != 0 ||
            intake_copy(out->person, sizeof out->person, name, (size_t)(under - name)) != 0)
            return 0;
        out->late = 0;
        out->rest = kind[letters] ? kind + letters + 1 : kind + letters;
        return 1;
    }
    return 0;
}

int intake_parse_name(const char *name, struct intake_name *out, const char **why) {
    memset(out, 0, sizeof *out);
    out->rest = name ? name : "";
    if (!name || !*name) {
        *why = "an empty name";
        return -1;
    }
    if (strlen(name) > INTAKE_MAX_NAME) {
        *why = "a name longer than 255 bytes";
        return -1;
    }
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/') {
            *why = "a name holding a line break, a control character or a slash";
            return -1;
        }
    struct intake_name canvas, moodle;
    memset(&canvas, 0, sizeof canvas);
    memset(&moodle, 0, sizeof moodle);
    int is_canvas = intake_canvas(name, &canvas);
    int is_moodle = intake_moodle(name, &moodle);
    if (is_canvas && is_moodle) {
        out->platform = INTAKE_AMBIGUOUS;
        *why = "the name reads as Canvas's and as Moodle's (one of them in the student's own file "
               "name): rename it to the platform's part alone";
        return 0;
    }
    if (is_canvas) {
        *out = canvas;
        out->platform = INTAKE_CANVAS;
    } else if (is_moodle) {
        *out = moodle;
        out->platform = INTAKE_MOODLE;
    }
    return 0;
}

const char *intake_editable_name(const char *name) {
    for (size_t i = 0; intake_editable[i]; i++) {
        const char *want = intake_editable[i];
        if (strcmp(name, want) == 0)
            return want;
        /* Canvas's resubmission: kernel-1.cl, main-12.c */
        const char *dot = strrchr(want, '.');
        size_t stem = (size_t)(dot - want);
        if (strncmp(name, want, stem) != 0 || name[stem] != '-')
            continue;
        size_t n = intake_digits(name + stem + 1, 8);
        if (n && strcmp(name + stem + 1 + n, dot) == 0)
            return want;
    }
    return NULL;
}

/* The length of the valid UTF-8 character at P (1 to 4), or 0 when P starts none (an overlong
 * form, a surrogate, past U+10FFFF, a stray continuation byte). P is NUL-terminated: a NUL is no
 * continuation byte, so nothing past it is read. */
static size_t intake_utf8_length(const unsigned char *p) {
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    size_t n;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        lo = p[0] == 0xe0 ? 0xa0 : 0x80;
        hi = p[0] == 0xed ? 0x9f : 0xbf;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        lo = p[0] == 0xf0 ? 0x90 : 0x80;
        hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

const char *intake_shown(const char *name, char *out, size_t size) {
    static const char hex[] = "0123456789ABCDEF";
    if (size < 4) {
        if (size)
            out[0] = '\0';
        return out;
    }
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p;) {
        char piece[4];
        size_t length = intake_utf8_length(p), step = length;
        if (length == 0) {
            piece[0] = '\\', piece[1] = 'x', piece[2] = hex[*p >> 4], piece[3] = hex[*p & 15];
            length = 4, step = 1;
        } else if (length == 1 && (*p < 0x20 || *p == 0x7f))
            piece[0] = '?';
        else
            memcpy(piece, p, length);
        /* room kept for "..." and the NUL: a cut is never inside a character or an escape */
        if (n + length > size - 4) {
            memcpy(out + n, "...", 3);
            n += 3;
            break;
        }
        memcpy(out + n, piece, length);
        n += length;
        p += step;
    }
    out[n] = '\0';
    return out;
}
