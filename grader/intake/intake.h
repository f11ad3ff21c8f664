/* intake.h - what a student's upload becomes before anything grades it: the one intake of
 * `make batch`, Slurm and Gradescope (build/grader/intake, a program of its own: libarchive, no
 * OpenCL). A class's downloads (a folder, or the platform's zip) are walked into students; each
 * student's uploads (folders, archives, loose files, archives inside archives) are staged into
 * the editable files of each exercise; nothing a student wrote names the student or says when
 * the upload came.
 *
 *   intake_name.c   a learning platform's download name read as the platform writes it (pure)
 *   intake_unpack.c one archive unpacked under the caps below, checking every member
 *   intake_stage.c  one student's uploads staged into DIR/NN_name/{main.c,kernel.cl,...}
 *   intake_class.c  a class's downloads walked into one record a student
 *   intake_worksheet.c  Moodle's grading worksheet: when each upload came, as Moodle says
 *   intake_fill.c   the same worksheet, its Grade column filled with the batch's totals, and
 *                   Canvas's gradebook export, its assignment's column filled
 *   intake_main.c   the command line (intake class|stage|unpack|name|worksheet|worksheet-fill|
 *                   gradebook-fill|caps)
 */
#ifndef INTAKE_H
#define INTAKE_H

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- the caps, defined once
 * A student's upload, all its archives together (nested ones included): what unpacking may
 * write, how many members and folders it may make, how deep and how long its names may be, how
 * many archives deep it may nest. A bomb is refused the moment one is passed. The class download
 * (a platform's zip of every upload) has caps of its own, sized for 300 students. Shell scripts
 * read these from `intake caps`. */
#define INTAKE_MAX_BYTES         20971520ull /* written, holes included (MAX_UNPACKED overrides) */
#define INTAKE_MAX_MEMBERS       10000ull    /* archive members seen, folders included */
#define INTAKE_MAX_FOLDERS       1000ull     /* folders made, those a member's path implies too */
#define INTAKE_MAX_DEPTH         16          /* components of a member's path */
#define INTAKE_MAX_NAME          255         /* bytes of one component (a Linux file name) */
#define INTAKE_MAX_PATH          1024        /* bytes of a member's whole path */
#define INTAKE_MAX_NESTING       2           /* archives inside the upload's archive */
#define INTAKE_MAX_FILE          1048576     /* bytes of one editable file taken (main.c, ...) */
#define INTAKE_CLASS_MAX_BYTES   4294967296ull /* a class download unpacked */
#define INTAKE_CLASS_MAX_MEMBERS 100000ull
#define INTAKE_CLASS_MAX_FOLDERS 20000ull

/* The files a student may edit; everything else of an upload is never read or run. */
extern const char *const intake_editable[];

/* ---------------------------------------------------------------- platform names */
enum intake_platform { INTAKE_PLAIN, INTAKE_MOODLE, INTAKE_CANVAS, INTAKE_AMBIGUOUS };

/* A download's name as its platform wrote it. Moodle: `Full Name_N_assignsubmission_KIND_REST`,
 * N the first number followed by `_assignsubmission_` (the student's own file name, REST, may
 * hold another). Canvas: `login_(LATE_)?UID_FILEID_REST`, anchored at the start, tried first.
 * A name both read differently is INTAKE_AMBIGUOUS: refused, never guessed. */
struct intake_name {
    enum intake_platform platform;
    char number[24];  /* Moodle's participant number or Canvas's user id ("" when plain) */
    char person[256]; /* the name part the platform wrote (Moodle's full name, Canvas's login) */
    int late;         /* Canvas's LATE flag */
    const char *rest; /* inside the parsed string: the student's own file name ("" for none) */
};

/* Parse NAME (a file or folder name, no slash). Returns 0, or -1 when NAME cannot be one entry
 * of a class (empty, a control character, too long), with *why set. */
int intake_parse_name(const char *name, struct intake_name *out, const char **why);
const char *intake_platform_word(enum intake_platform platform);

/* A loose file's exercise name: NAME, or Canvas's resubmission form `stem-N.ext` read as
 * `stem.ext`, when that is an editable file name; NULL otherwise. */
const char *intake_editable_name(const char *name);

/* NAME fit for a message or a status line, in OUT of SIZE bytes: valid UTF-8 whatever NAME
 * holds (a control byte as ?, a byte that is no part of a UTF-8 character as \xHH), cut at a
 * character and ended by "..." where more than SIZE - 4 bytes would be needed. Returns OUT. */
const char *intake_shown(const char *name, char *out, size_t size);

/* ---------------------------------------------------------------- unpacking */
/* What one upload's archives may still use: shared by every archive of a student, so a nested
 * archive counts against the same caps as its parent. */
struct intake_budget {
    unsigned long long max_bytes, max_members, max_folders;
    unsigned long long bytes, members, folders; /* used so far */
};
void intake_budget_upload(struct intake_budget *budget, unsigned long long max_bytes);
void intake_budget_class(struct intake_budget *budget);

enum { INTAKE_OK = 0, INTAKE_REFUSED = 1, INTAKE_ERROR = 2 };

/* Unpack ARCHIVE (.zip, .tar, .tar.gz) into the existing folder DIR, charging BUDGET; only
 * regular files and folders, no absolute path, no .., no control character, nothing encrypted.
 * A file's time is its member's (a platform's own zip is the only archive whose times are
 * believed). Returns INTAKE_OK, or INTAKE_REFUSED / INTAKE_ERROR with the reason in WHY. */
int intake_unpack(const char *archive, const char *dir, struct intake_budget *budget, char *why,
                  size_t why_size);

/* A platform's class download unpacked into DIR as intake_unpack does, but each top entry is
 * one participant's part (`Full Name_N_assignsubmission_file_/...`), and the caps of one upload
 * on a member's path (depth, name and path length) apply inside it, the participant's folder not
 * counted. A member past them refuses that participant only: the rest of its part is not written,
 * and REFUSED (an existing folder outside DIR) gets a folder named as the part (cut to 255
 * bytes) holding INTAKE_REFUSED_REASON, the reason, for intake_class and intake_stage. What is
 * unsafe (an absolute path, .., a link, a control character, an encrypted member) and the class
 * caps still refuse the whole download. */
int intake_unpack_class(const char *archive, const char *dir, const char *refused,
                        struct intake_budget *budget, char *why, size_t why_size);

/* The folder, beside the unpacked class download, of its refused participants; an upload whose
 * parent folder has this name is one (intake_stage refuses it): no student names it, as every
 * upload is a top entry of the class folder. */
#define INTAKE_REFUSED_FOLDER ".intake-refused"
#define INTAKE_REFUSED_REASON "reason"

/* Whether NAME is an archive the intake opens (.zip, .tar, .tar.gz, .tgz). */
int intake_is_archive(const char *name);

/* The next entry of the open folder D (DIR's), . and .. left out: its path in PATH, its lstat
 * in ST (never through a link); NULL at the end. Entries whose path does not fit are skipped. */
struct dirent *intake_next_entry(DIR *d, const char *dir, char *path, size_t size, struct stat *st);

/* ---------------------------------------------------------------- staging */
struct intake_stage_options {
    const char *into;             /* the staged folder (made): INTO/NN_name/<editable files> */
    const char *scratch;          /* an empty folder archives are unpacked into */
    const char *const *exercises; /* the workbook's exercise folder names, NULL-terminated */
    const char *single; /* the assignment's one exercise: loose files go there (or NULL) */
    unsigned long long max_bytes; /* INTAKE_MAX_BYTES unless the instructor said otherwise */
};

/* One student's uploads staged. Writes INTO's files and prints on OUT: a first line `graded`,
 * `refused: WHY` or `empty: WHAT THE UPLOAD HELD`, then lines `took: ...` saying which archive
 * or files were chosen where there was a choice. Returns INTAKE_OK or INTAKE_ERROR (ours). */
int intake_stage(const struct intake_stage_options *options, const char *const *uploads,
                 size_t count, FILE *out);

/* ---------------------------------------------------------------- a class */
/* Walk the class folder SUBS (a platform's zip is unpacked into SCRATCH first, by the caller),
 * and REFUSED (the refused participants of that zip, or NULL) as if its entries were SUBS's, and
 * print one record a student on OUT:
 *   KEY<tab>PLATFORM<tab>NUMBER<tab>PERSON<tab>LATE<tab>EPOCH<tab>SOURCE<tab>UPLOAD...
 * KEY the platform number prefixed (moodle:1234, canvas:555) or the plain id; UPLOAD the
 * absolute paths of the student's entries; EPOCH the newest time the instructor's disk gives
 * them (never a time inside an upload) and SOURCE what it was. Entries that belong to nobody
 * (a name that parses two ways, a bad id, a line break) are listed on ERR as `skipped NAME: WHY`.
 * Returns INTAKE_OK or INTAKE_ERROR. */
int intake_class(const char *subs, const char *refused, FILE *out, FILE *err);

/* ---------------------------------------------------------------- Moodle's worksheet */
/* The next RFC 4180 field at *at into FIELD (cut to SIZE); *end_of_record when it ended a line.
 * 0, or -1 at the end of the text. */
int intake_csv_field(const char **at, char *field, size_t size, int *end_of_record);
/* Moodle's userdate ("Tuesday, 10 January 2026, 12:00 PM") in local time; -1 for none. */
long long intake_moodle_time(const char *text);
/* Moodle's grading worksheet TEXT: `NUMBER<tab>EPOCH` on OUT for every participant whose
 * "Last modified (submission)" is a date. INTAKE_REFUSED (said on ERR) when TEXT is no worksheet.
 */
int intake_worksheet(const char *text, FILE *out, FILE *err);
/* The worksheet TEXT on OUT with its Grade cell set for each participant that GRADES
 * (`NUMBER<tab>TOTAL` lines) has, every other byte as it was (intake_fill.c). INTAKE_REFUSED
 * (said on ERR) when TEXT has no "Identifier" and "Grade" columns. */
int intake_worksheet_fill(const char *text, const char *grades, FILE *out, FILE *err);
/* Canvas's gradebook export TEXT on OUT with ASSIGNMENT's column (its header "ASSIGNMENT" or
 * "ASSIGNMENT (id)") set for each student whose ID GRADES has, every other byte as it was.
 * INTAKE_REFUSED (said on ERR) without an ID column or with none or several such columns. */
int intake_gradebook_fill(const char *text, const char *assignment, const char *grades, FILE *out,
                          FILE *err);

#endif
