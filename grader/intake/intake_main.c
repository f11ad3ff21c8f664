/* intake_main.c - build/grader/intake, the one intake of make batch, Slurm and Gradescope:
 *
 *   intake class SUBS SCRATCH    the class's students, one record a line (intake_class); SUBS a
 *                                folder, or a platform's zip unpacked into SCRATCH first (its
 *                                refused participants in SCRATCH/.intake-refused)
 *   intake stage --into DIR --scratch DIR --exercises "00_vadd ..." [--single EX]
 *                [--max-bytes N] UPLOAD...   one student's uploads staged (intake_stage)
 *   intake unpack ARCHIVE DIR [--max-bytes N] [--max-entries N]   one archive (intake_unpack)
 *   intake worksheet FILE        Moodle's grading worksheet: NUMBER<tab>EPOCH a participant
 *   intake worksheet-fill FILE GRADES   that worksheet with its Grade column set from GRADES
 *   intake gradebook-fill FILE ASSIGNMENT GRADES   Canvas's gradebook export, ASSIGNMENT's
 *                                column set from GRADES
 *                                (NUMBER<tab>TOTAL lines), every other byte as it was
 *   intake name NAME             how a download's name reads: PLATFORM<tab>NUMBER<tab>PERSON<tab>
 *                                LATE<tab>REST
 *   intake caps                  the caps (intake.h) as shell assignments, for the scripts
 *
 * Exit 0: done. 1: refused (an archive; the reason on stdout). 2: usage or our own error.
 */
#define _GNU_SOURCE /* getopt_long */
#include "intake.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A whole decimal number, nothing else (no sign, no blanks, no overflow). */
static int intake_count(const char *text, unsigned long long *out) {
    if (!text || *text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = value;
    return 0;
}

static int intake_usage(FILE *to, int code) {
    fprintf(to,
            "usage: intake class SUBS SCRATCH\n"
            "       intake stage --into DIR --scratch DIR --exercises \"NN_name ...\" "
            "[--single EX] [--max-bytes N] UPLOAD...\n"
            "       intake unpack ARCHIVE DIR [--max-bytes N] [--max-entries N]\n"
            "       intake worksheet FILE\n"
            "       intake worksheet-fill FILE GRADES\n"
            "       intake gradebook-fill FILE ASSIGNMENT GRADES\n"
            "       intake name NAME\n"
            "       intake caps\n"
            "  the intake of students' uploads: archives checked member by member (links,\n"
            "  special files, absolute paths, .., control characters and encrypted members\n"
            "  refused) under caps of %llu bytes, %llu members, %llu folders, %d folders deep,\n"
            "  %d archives nested. Exit 0: done; 1: refused (the reason on stdout); 2: error.\n",
            INTAKE_MAX_BYTES, INTAKE_MAX_MEMBERS, INTAKE_MAX_FOLDERS, INTAKE_MAX_DEPTH,
            INTAKE_MAX_NESTING);
    return code;
}

/* The options of unpack and stage: --into, --scratch, --exercises, --single, --max-bytes,
 * --max-entries. Returns the index of the first operand, or -1 after a usage message. */
struct intake_args {
    const char *into, *scratch, *exercises, *single;
    unsigned long long max_bytes, max_entries;
};

static int intake_options(int argc, char **argv, struct intake_args *a) {
    static const struct option options[] = {{"into", required_argument, NULL, 'i'},
                                            {"scratch", required_argument, NULL, 's'},
                                            {"exercises", required_argument, NULL, 'x'},
                                            {"single", required_argument, NULL, '1'},
                                            {"max-bytes", required_argument, NULL, 'b'},
                                            {"max-entries", required_argument, NULL, 'e'},
                                            {NULL, 0, NULL, 0}};
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        unsigned long long *cap = c == 'b' ? &a->max_bytes : c == 'e' ? &a->max_entries : NULL;
        if (c == 'i')
            a->into = optarg;
        else if (c == 's')
            a->scratch = optarg;
        else if (c == 'x')
            a->exercises = optarg;
        else if (c == '1')
            a->single = *optarg ? optarg : NULL;
        else if (!cap || intake_count(optarg, cap) != 0) {
            if (cap)
                fprintf(stderr, "intake: %s needs a whole number, not '%s'\n", argv[optind - 1],
                        optarg);
            return intake_usage(stderr, -1);
        }
    }
    return optind;
}

static int intake_unpack_command(int argc, char **argv) {
    struct intake_args a = {0};
    int first = intake_options(argc, argv, &a);
    if (first < 0 || argc - first != 2)
        return first < 0 ? INTAKE_ERROR : intake_usage(stderr, INTAKE_ERROR);
    struct intake_budget budget;
    intake_budget_upload(&budget, a.max_bytes);
    if (a.max_entries)
        budget.max_members = a.max_entries;
    char why[600];
    int code = intake_unpack(argv[first], argv[first + 1], &budget, why, sizeof why);
    if (code == INTAKE_REFUSED)
        printf("archive refused: %s\n", why);
    else if (code == INTAKE_ERROR)
        fprintf(stderr, "intake: %s\n", why);
    return code;
}

static int intake_stage_command(int argc, char **argv) {
    struct intake_args a = {0};
    int first = intake_options(argc, argv, &a);
    if (first < 0)
        return INTAKE_ERROR;
    if (!a.into || !a.scratch || !a.exercises || first >= argc)
        return intake_usage(stderr, INTAKE_ERROR);
    /* the exercise names, split at blanks */
    char *list = strdup(a.exercises);
    const char *names[128];
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(list, " \t\n", &save); w && n + 1 < 128;
         w = strtok_r(NULL, " \t\n", &save))
        names[n++] = w;
    names[n] = NULL;
    struct intake_stage_options options = {.into = a.into,
                                           .scratch = a.scratch,
                                           .exercises = names,
                                           .single = a.single,
                                           .max_bytes = a.max_bytes};
    int code =
        intake_stage(&options, (const char *const *)argv + first, (size_t)(argc - first), stdout);
    if (code != INTAKE_OK)
        fprintf(stderr, "intake: cannot stage into %s\n", a.into);
    free(list);
    return code;
}

static int intake_class_command(int argc, char **argv) {
    if (argc != 3)
        return intake_usage(stderr, INTAKE_ERROR);
    const char *subs = argv[1];
    struct stat st;
    if (stat(subs, &st) != 0) {
        fprintf(stderr, "intake: no class at %s\n", subs);
        return INTAKE_ERROR;
    }
    char folder[4096], refused[4096] = "";
    if (S_ISREG(st.st_mode)) {
        /* the platform's zip of every upload: its member times are the platform's */
        struct intake_budget budget;
        intake_budget_class(&budget);
        char why[600];
        snprintf(folder, sizeof folder, "%s/download", argv[2]);
        snprintf(refused, sizeof refused, "%s/%s", argv[2], INTAKE_REFUSED_FOLDER);
        const char *failed = mkdir(folder, 0755) != 0    ? folder
                             : mkdir(refused, 0755) != 0 ? refused
                                                         : NULL;
        if (failed) {
            fprintf(stderr, "intake: cannot create %s: %s\n", failed, strerror(errno));
            return INTAKE_ERROR;
        }
        int code = intake_unpack_class(subs, folder, refused, &budget, why, sizeof why);
        if (code != INTAKE_OK) {
            fprintf(code == INTAKE_REFUSED ? stdout : stderr, "%s: %s\n",
                    code == INTAKE_REFUSED ? "class download refused" : "intake", why);
            return code;
        }
        subs = folder;
    }
    return intake_class(subs, *refused ? refused : NULL, stdout, stderr);
}

/* A worksheet or a list of grades read whole (a class of thousands is a few hundred kilobytes;
 * 16 MB at most); NULL said on stderr. */
static char *read_whole(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "intake: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 16u << 20;
    char *text = malloc(cap + 1);
    size_t n = text ? fread(text, 1, cap + 1, f) : 0;
    fclose(f);
    if (!text || n > cap) {
        fprintf(stderr, "intake: %s is larger than 16 MB: not read\n", path);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static int intake_worksheet_command(int argc, char **argv) {
    if (argc != 2)
        return intake_usage(stderr, INTAKE_ERROR);
    char *text = read_whole(argv[1]);
    if (!text)
        return INTAKE_REFUSED;
    int code = intake_worksheet(text, stdout, stderr);
    free(text);
    return code;
}

static int intake_fill_command(int argc, char **argv) {
    if (argc != 3)
        return intake_usage(stderr, INTAKE_ERROR);
    char *text = read_whole(argv[1]), *grades = text ? read_whole(argv[2]) : NULL;
    int code = grades ? intake_worksheet_fill(text, grades, stdout, stderr) : INTAKE_REFUSED;
    free(text);
    free(grades);
    return code;
}

static int intake_gradebook_command(int argc, char **argv) {
    if (argc != 4)
        return intake_usage(stderr, INTAKE_ERROR);
    char *text = read_whole(argv[1]), *grades = text ? read_whole(argv[3]) : NULL;
    int code =
        grades ? intake_gradebook_fill(text, argv[2], grades, stdout, stderr) : INTAKE_REFUSED;
    free(text);
    free(grades);
    return code;
}

static int intake_name_command(int argc, char **argv) {
    if (argc != 2)
        return intake_usage(stderr, INTAKE_ERROR);
    struct intake_name name;
    const char *why = NULL;
    if (intake_parse_name(argv[1], &name, &why) != 0) {
        printf("refused\t%s\n", why);
        return INTAKE_REFUSED;
    }
    printf("%s\t%s\t%s\t%s\t%s\n", intake_platform_word(name.platform), name.number, name.person,
           name.late ? "late" : "", name.rest);
    return INTAKE_OK;
}

int main(int argc, char **argv) {
    /* UTF-8 member names must read as names whatever the caller's locale */
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "");
    umask(022);
    const char *command = argc > 1 ? argv[1] : "";
    if (strcmp(command, "class") == 0)
        return intake_class_command(argc - 1, argv + 1);
    if (strcmp(command, "stage") == 0)
        return intake_stage_command(argc - 1, argv + 1);
    if (strcmp(command, "unpack") == 0)
        return intake_unpack_command(argc - 1, argv + 1);
    if (strcmp(command, "name") == 0)
        return intake_name_command(argc - 1, argv + 1);
    if (strcmp(command, "worksheet") == 0)
        return intake_worksheet_command(argc - 1, argv + 1);
    if (strcmp(command, "worksheet-fill") == 0)
        return intake_fill_command(argc - 1, argv + 1);
    if (strcmp(command, "gradebook-fill") == 0)
        return intake_gradebook_command(argc - 1, argv + 1);
    if (strcmp(command, "caps") == 0) {
        printf("intake_max_bytes=%llu\nintake_max_file=%d\nintake_max_members=%llu\n"
               "intake_max_folders=%llu\nintake_max_nesting=%d\n",
               INTAKE_MAX_BYTES, INTAKE_MAX_FILE, INTAKE_MAX_MEMBERS, INTAKE_MAX_FOLDERS,
               INTAKE_MAX_NESTING);
        printf("intake_editable=\"");
        for (size_t i = 0; intake_editable[i]; i++)
            printf("%s%s", i ? " " : "", intake_editable[i]);
        printf("\"\n");
        return INTAKE_OK;
    }
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0)
        return intake_usage(stdout, INTAKE_OK);
    return intake_usage(stderr, INTAKE_ERROR);
}
