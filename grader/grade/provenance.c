/* provenance.c - where a grading run came from, for the head of its logs: the grader's version
 * (git describe of the workbook, or the version compiled in), the run's date, and the command
 * line that repeats it. report.c prints them; main.c gathers them once per run. */
#define _DEFAULT_SOURCE /* gmtime_r */
#include "grade/grade.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What git prints for args in the workbook at root (its first line, at most size - 1 bytes): 0,
 * or -1 when git is missing, fails or prints nothing. Git is ours to trust here: it reads the
 * instructor's or the student's own checkout, never a submission. */
static int git_line(const char *root, const char *const *args, char *out, size_t size) {
    char git_dir[PATH_MAX + 16], work_tree[PATH_MAX + 16];
    /* the workbook's own .git (a file in a worktree), never a repository around the workbook:
     * a copy inside a student's own repository is no checkout of the workbook */
    snprintf(git_dir, sizeof git_dir, "--git-dir=%s/.git", root);
    snprintf(work_tree, sizeof work_tree, "--work-tree=%s", root);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_argv_push(&argv, "git");
    grader_argv_push(&argv, git_dir);
    grader_argv_push(&argv, work_tree);
    grader_argv_push_all(&argv, args);
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) {
        grader_argv_clear(&argv);
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 2);
        dup2(pipe_fd[1], 1);
        close(pipe_fd[0]);
        execvp("git", argv.argv);
        _exit(127);
    }
    grader_argv_clear(&argv);
    close(pipe_fd[1]);
    size_t got = 0;
    ssize_t n;
    while (pid > 0 && got + 1 < size && (n = read(pipe_fd[0], out + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(pipe_fd[0]);
    out[got] = '\0';
    int status = -1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    grader_sanitize_text(out);
    return out[0] ? 0 : -1;
}

void grader_version(const char *root, char *out, size_t size) {
    static const char *const describe[] = {"describe", "--always", "--tags", NULL};
    /* what grades (the grader, the library, the references), not the student's exercises/ */
    static const char *const changed[] = {"status",    "--porcelain", "--untracked-files=no",
                                          "--",        "grader",      "common",
                                          "solutions", "Makefile",    NULL};
    char commit[128], changes[64];
    if (git_line(root, describe, commit, sizeof commit) != 0) {
        snprintf(out, size,
                 "%s (the version compiled in: no git describe of the workbook %s: no checkout, "
                 "or git missing or refusing)",
                 GRADER_VERSION, root);
        return;
    }
    int modified = git_line(root, changed, changes, sizeof changes) == 0;
    snprintf(out, size, "%s%s (git describe of the workbook %s)", commit,
             modified ? " with uncommitted changes to grader/, common/, solutions/ or Makefile"
                      : "",
             root);
}

void grader_utc_date(time_t when, char *out, size_t size) {
    struct tm utc;
    if (!gmtime_r(&when, &utc) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
        snprintf(out, size, "unknown");
}

/* Whether a shell reads word as it stands (no quoting needed). */
static int plain_word(const char *word) {
    if (!*word)
        return 0;
    for (const char *c = word; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *c))
            return 0;
    return 1;
}

/* word for a POSIX shell: as it is when plain, else in single quotes ('\'' for a quote). */
static void shell_word(FILE *out, const char *word) {
    if (plain_word(word)) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (const char *c = word; *c; c++)
        if (*c == '\'')
            fputs("'\\''", out);
        else
            fputc(*c, out);
    fputc('\'', out);
}

char *grader_shell_command(const char *cwd, const char *const *argv) {
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out)
        return NULL;
    if (cwd) { /* relative paths in argv (make grade's results/grade.json) mean this folder */
        fputs("cd ", out);
        shell_word(out, cwd);
        fputs(" && ", out);
    }
    for (int i = 0; argv[i]; i++) {
        if (i > 0)
            fputc(' ', out);
        shell_word(out, argv[i]);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
