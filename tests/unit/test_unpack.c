/* test_unpack.c - unit tests (cmocka) of `build/grader/intake unpack`, the intake's unpacker of
 * students' archives, run as a program on archives made here with zip and tar from random content:
 * good .zip, .tar.gz and .tar unpack byte for byte with fixed modes; every refused kind (absolute
 * path, .., symlink, hard link, FIFO, device, a line break in a name, an encrypted member, a name
 * twice, not a zip or tar) is refused with its reason and writes nothing outside DIR; the caps
 * count real bytes and members (one byte or member over is refused, exactly at the cap is not),
 * also for a zip whose headers understate its sizes; the folders a few members' paths make, a
 * path's depth and a name's length have caps too (intake.h); a class download (`intake class`)
 * refuses only the participant whose folder passes those caps, counted inside it, and still the
 * whole download for a link; malformed numbers are usage errors.
 *
 * Contained: when root, unpack runs as nobody, always under rlimits, on archives whose escapes
 * would land in this test's own temporary folder. Random inputs come from a seed chosen at run
 * time and printed at the start and in every failure; TEST_UNPACK_SEED=<seed> repeats a run.
 * Built and run by tests/run.sh from the repository root, after `make all` built the program
 * (INTAKE=path overrides where it is).
 */
#define _GNU_SOURCE /* mkdtemp, mknod, setgroups */
#include "grader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "intake/intake.h"
#include "testkit.h"

static char g_tmp[64];
static const char *g_unpack = "build/grader/intake";

/* ---------------------------------------------------------------- running programs */

struct ran {
    int status;     /* exit status, or 128 + the signal that ended it */
    char out[2048]; /* its stdout (and stderr when asked), cut to fit */
};

/* Run argv in folder `dir`; `contained`: the program under test, under rlimits and, when root,
 * as nobody. stderr joins stdout when `with_stderr`. */
static struct ran run_in(const char *dir, const char *const argv[], int contained,
                         int with_stderr) {
    struct ran r = {.status = -1};
    int pipe_fd[2];
    CHECK(pipe(pipe_fd) == 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(pipe_fd[1], 1);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(with_stderr ? pipe_fd[1] : null, 2);
        close(pipe_fd[0]);
        if (chdir(dir) != 0)
            _exit(126);
        if (contained) {
            struct rlimit size = {256 << 20, 256 << 20}, cpu = {60, 60};
            setrlimit(RLIMIT_FSIZE, &size);
            setrlimit(RLIMIT_CPU, &cpu);
            if (geteuid() == 0 &&
                (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
                _exit(125);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipe_fd[1]);
    size_t got = 0;
    for (ssize_t n; (n = read(pipe_fd[0], r.out + got, sizeof r.out - 1 - got)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got += (size_t)n;
        if (got == sizeof r.out - 1) { /* drain the rest */
            char sink[4096];
            while (read(pipe_fd[0], sink, sizeof sink) > 0) {
            }
            break;
        }
    }
    r.out[got] = '\0';
    close(pipe_fd[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

/* A packing tool (zip, tar) that must succeed. */
static void tool(const char *dir, const char *const argv[]) {
    struct ran r = run_in(dir, argv, 0, 1);
    CHECK(r.status == 0, "%s in %s exited %d: %s", argv[0], dir, r.status, r.out);
}

/* ---------------------------------------------------------------- files and folders */

static void write_file(const char *path, const void *data, size_t length) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
    CHECK(fwrite(data, 1, length, f) == length, "short write to %s", path);
    CHECK(fclose(f) == 0, "cannot close %s", path);
}

/* A fresh case folder g_tmp/NAME with src/ (what is packed) and out/ (DIR, writable by the
 * contained unpack); the case folder itself is not writable by it. */
static void make_case(const char *name, char *path, size_t size) {
    snprintf(path, size, "%s/%s", g_tmp, name);
    char sub[512];
    CHECK(mkdir(path, 0711) == 0, "mkdir %s: %s", path, strerror(errno));
    snprintf(sub, sizeof sub, "%s/src", path);
    CHECK(mkdir(sub, 0755) == 0, "mkdir %s: %s", sub, strerror(errno));
    snprintf(sub, sizeof sub, "%s/out", path);
    CHECK(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0, "mkdir %s: %s", sub, strerror(errno));
}

/* Random content: noise, runs of one byte, or a mix, so some of it compresses and some not. */
static void random_bytes(struct rng *r, unsigned char *data, size_t length) {
    long kind = rng_range(r, 0, 2);
    for (size_t i = 0; i < length;) {
        size_t run = (size_t)rng_range(r, 1, kind == 0 ? 1 : 4096);
        unsigned char byte = (unsigned char)rng_next(r);
        for (size_t j = 0; j < run && i < length; j++, i++)
            data[i] = kind == 0 || (kind == 2 && j % 3 == 0) ? (unsigned char)rng_next(r) : byte;
    }
}

/* A random tree under src/top: folders up to three deep, 1 to 12 files of 0 to 100 kB, names
 * with spaces, dots and UTF-8 among them. Returns the bytes of all files; *members: files and
 * folders, top included. */
static size_t random_tree(struct rng *r, const char *src, long *members) {
    static const char *const names[] = {"main.c", "kernel.cl", "notes é.txt", "a b", ".hidden",
                                        "x.y.z",  "README",    "-dash",       "_"};
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/top", src);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    *members = 1;
    size_t total = 0;
    long files = rng_range(r, 1, 12);
    for (long f = 0; f < files; f++) {
        if (rng_range(r, 0, 2) == 0 && strlen(dir) < 400) { /* one level deeper */
            size_t at = strlen(dir);
            snprintf(dir + at, sizeof dir - at, "/d%ld", f);
            CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
            ++*members;
        }
        snprintf(path, sizeof path, "%s/%ld %s", dir, f,
                 names[rng_range(r, 0, (long)(sizeof names / sizeof *names) - 1)]);
        size_t length = (size_t)rng_range(r, 0, 100000);
        unsigned char *data = malloc(length + 1);
        CHECK(data != NULL, "out of memory");
        random_bytes(r, data, length);
        write_file(path, data, length);
        free(data);
        total += length;
        ++*members;
    }
    return total;
}

/* Every entry of `want` is in `got` with the same type and bytes, files 0644 and folders 0755.
 * Returns the entries compared. */
static long compare_trees(const char *want, const char *got) {
    DIR *d = opendir(want);
    CHECK(d != NULL, "opendir %s: %s", want, strerror(errno));
    long seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", want, e->d_name);
        snprintf(b, sizeof b, "%s/%s", got, e->d_name);
        struct stat sa, sb;
        CHECK(lstat(a, &sa) == 0, "lstat %s", a);
        CHECK(lstat(b, &sb) == 0, "%s was not unpacked", b);
        seen++;
        if (S_ISDIR(sa.st_mode)) {
            CHECK(S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0755, "%s: mode %o", b,
                  (unsigned)sb.st_mode);
            seen += compare_trees(a, b);
            continue;
        }
        CHECK(S_ISREG(sb.st_mode) && (sb.st_mode & 07777) == 0644, "%s: mode %o", b,
              (unsigned)sb.st_mode);
        CHECK(sa.st_size == sb.st_size, "%s: %lld bytes, expected %lld", b, (long long)sb.st_size,
              (long long)sa.st_size);
        FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
        CHECK(fa && fb, "cannot open %s or %s", a, b);
        for (int ca, cb;;) {
            ca = fgetc(fa);
            cb = fgetc(fb);
            CHECK(ca == cb, "%s differs from what was packed", b);
            if (ca == EOF)
                break;
        }
        fclose(fa);
        fclose(fb);
    }
    closedir(d);
    return seen;
}

/* Files and folders under dir, at any depth. */
static long count_tree(const char *dir) {
    DIR *d = opendir(dir);
    CHECK(d != NULL, "opendir %s", dir);
    long n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        CHECK(lstat(path, &st) == 0, "lstat %s", path);
        n += 1 + (S_ISDIR(st.st_mode) ? count_tree(path) : 0);
    }
    closedir(d);
    return n;
}

/* Entries directly in `dir` (not counting . and ..). */
static long entries_in(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Bytes of all regular files under dir. */
static long long bytes_under(const char *dir) {
    DIR *d = opendir(dir);
    CHECK(d != NULL, "opendir %s", dir);
    long long total = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        CHECK(lstat(path, &st) == 0, "lstat %s", path);
        total += S_ISDIR(st.st_mode) ? bytes_under(path) : (long long)st.st_size;
    }
    closedir(d);
    return total;
}

/* ---------------------------------------------------------------- unpack itself */

/* Run unpack on case/ARCHIVE into case/out with optional cap flags (NULL-terminated). */
static struct ran unpack(const char *dir, const char *archive, ...) {
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_argv_push_all(&argv, (const char *const[]){g_unpack, "unpack", archive, "out", NULL});
    va_list args;
    va_start(args, archive);
    for (const char *flag; (flag = va_arg(args, const char *));)
        grader_argv_push(&argv, flag);
    va_end(args);
    struct ran r = run_in(dir, (const char *const *)argv.argv, 1, 0);
    grader_argv_clear(&argv);
    return r;
}

/* A refusal: status 1 and exactly one line, "archive refused: " and `reason` in it. */
static void expect_refused(const struct ran *r, const char *what, const char *reason) {
    CHECK(r->status == 1, "%s: exit %d, expected 1 (refused); said: %s", what, r->status, r->out);
    CHECK(strncmp(r->out, "archive refused: ", 17) == 0 && strstr(r->out, reason) &&
              strchr(r->out, '\n') == r->out + strlen(r->out) - 1,
          "%s: said \"%s\", expected one line \"archive refused: ...%s...\"", what, r->out, reason);
}

static int group_setup(void **state) {
    (void)state;
    const char *path = getenv("INTAKE");
    if (path && *path)
        g_unpack = path;
    static char absolute[4096];
    if (g_unpack[0] != '/' && getcwd(absolute, sizeof absolute - 64)) {
        strcat(absolute, "/");
        strncat(absolute, g_unpack, sizeof absolute - strlen(absolute) - 1);
        g_unpack = absolute;
    }
    if (access(g_unpack, X_OK) != 0) {
        print_error("no intake program at %s: run make all\n", g_unpack);
        return -1;
    }
    if (testkit_start("test_unpack", "TEST_UNPACK_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    /* the contained unpack (nobody, when root) must reach the case folders, and the program:
     * a checkout under /root is out of nobody's reach, so it runs from a copy in g_tmp */
    if (chmod(g_tmp, 0711) != 0)
        return -1;
    static char copy[sizeof g_tmp + 16];
    snprintf(copy, sizeof copy, "%s/intake", g_tmp);
    if (grader_copy_trusted(g_unpack, copy) != 0 || chmod(copy, 0755) != 0) {
        print_error("cannot copy %s to %s\n", g_unpack, copy);
        return -1;
    }
    g_unpack = copy;
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* ---------------------------------------------------------------- good archives */

static void good_archive(const char *tag, const char *archive) {
    struct rng r = rng_for(tag);
    char dir[256], src[300], out[300];
    make_case(tag, dir, sizeof dir);
    snprintf(src, sizeof src, "%s/src", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    long members;
    random_tree(&r, src, &members);
    char target[300];
    snprintf(target, sizeof target, "../%s", archive);
    if (strstr(archive, ".zip"))
        tool(src, (const char *const[]){"zip", "-qr", target, "top", NULL});
    else /* an owner name with spaces: ignored, and it must not matter */
        tool(src, (const char *const[]){"tar", strstr(archive, ".gz") ? "-czf" : "-cf", target,
                                        "--owner=a student:1000", "--group=the class:1000", "top",
                                        NULL});
    struct ran u = unpack(dir, archive, NULL);
    CHECK(u.status == 0 && u.out[0] == '\0', "%s: exit %d: %s", archive, u.status, u.out);
    CHECK(compare_trees(src, out) == members, "%s: not every member unpacked", archive);
    CHECK(count_tree(out) == members, "%s: more unpacked than packed", archive);
    CHECK(entries_in(dir) == 3, "%s: something was written beside out/", archive);
}

static void test_good_zip(void **state) {
    (void)state;
    good_archive("good_zip", "good.zip");
}

static void test_good_tar_gz(void **state) {
    (void)state;
    good_archive("good_tar_gz", "good.tar.gz");
}

static void test_good_plain_tar(void **state) {
    (void)state;
    good_archive("good_tar", "good.tar");
}

/* ---------------------------------------------------------------- caps */

/* Exactly at each cap unpacks; one byte or one member over is refused, for zip and tar.gz. */
static void test_caps_count_written_bytes_and_members(void **state) {
    (void)state;
    static const char *const kinds[] = {"caps.zip", "caps.tar.gz"};
    for (int k = 0; k < 2; k++) {
        struct rng r = rng_for(kinds[k]);
        char dir[256], src[300], out[300], name[64];
        snprintf(name, sizeof name, "caps_%d", k);
        make_case(name, dir, sizeof dir);
        snprintf(src, sizeof src, "%s/src", dir);
        snprintf(out, sizeof out, "%s/out", dir);
        long members;
        size_t bytes = random_tree(&r, src, &members);
        char target[300];
        snprintf(target, sizeof target, "../%s", kinds[k]);
        if (k == 0)
            tool(src, (const char *const[]){"zip", "-qr", target, "top", NULL});
        else
            tool(src, (const char *const[]){"tar", "-czf", target, "top", NULL});
        char at[32], over[32], m_at[32], m_over[32];
        snprintf(at, sizeof at, "%zu", bytes);
        snprintf(over, sizeof over, "%zu", bytes - 1);
        snprintf(m_at, sizeof m_at, "%ld", members);
        snprintf(m_over, sizeof m_over, "%ld", members - 1);
        struct ran u = unpack(dir, kinds[k], "--max-bytes", at, "--max-entries", m_at, NULL);
        CHECK(u.status == 0, "%s at the caps (%s bytes, %s members): exit %d: %s", kinds[k], at,
              m_at, u.status, u.out);
        grader_remove_tree(out);
        CHECK(mkdir(out, 0777) == 0 && chmod(out, 0777) == 0, "mkdir %s", out);
        if (bytes > 0) {
            u = unpack(dir, kinds[k], "--max-bytes", over, NULL);
            char reason[80];
            snprintf(reason, sizeof reason, "it unpacks to more than %zu bytes", bytes - 1);
            expect_refused(&u, kinds[k], reason);
            CHECK(bytes_under(out) <= (long long)bytes - 1, "%s: more than the cap written",
                  kinds[k]);
            grader_remove_tree(out);
            CHECK(mkdir(out, 0777) == 0 && chmod(out, 0777) == 0, "mkdir %s", out);
        }
        u = unpack(dir, kinds[k], "--max-entries", m_over, NULL);
        char reason[80];
        snprintf(reason, sizeof reason, "it holds more than %ld members", members - 1);
        expect_refused(&u, kinds[k], reason);
    }
}

/* Set the unpacked size of every member larger than `claim` to `claim`, in its local and its
 * central header: the lie of an archive built to pass a check of the sizes headers report.
 * Info-ZIP's zip writes no data descriptor and no comment, so the end record is the last 22. */
static void understate_zip(const char *path, uint32_t claim) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot read %s", path);
    static unsigned char zip[1 << 20];
    size_t size = fread(zip, 1, sizeof zip, f);
    fclose(f);
    CHECK(size > 22 && size < sizeof zip, "%s: %zu bytes", path, size);
#define LE16(p) ((uint32_t)(p)[0] | (uint32_t)(p)[1] << 8)
#define LE32(p) (LE16(p) | LE16((p) + 2) << 16)
    const unsigned char *end = zip + size - 22;
    CHECK(LE32(end) == 0x06054b50u, "%s: no plain end record", path);
    uint32_t at = LE32(end + 16), patched = 0;
    for (uint32_t i = 0; i < LE16(end + 10); i++) {
        unsigned char *central = zip + at;
        CHECK(at + 46 <= size && LE32(central) == 0x02014b50u, "%s: bad central header", path);
        unsigned char *local = zip + LE32(central + 42);
        CHECK(LE32(local) == 0x04034b50u, "%s: bad local header", path);
        if (LE32(central + 24) > claim) {
            for (int b = 0; b < 4; b++)
                central[24 + b] = local[22 + b] = (unsigned char)(claim >> (8 * b));
            patched++;
        }
        at += 46 + LE16(central + 28) + LE16(central + 30) + LE16(central + 32);
    }
#undef LE16
#undef LE32
    CHECK(patched > 0, "%s: no member to understate", path);
    write_file(path, zip, size);
}

/* A zip claiming 1000 bytes per member, really megabytes: refused on what it writes. */
static void test_understated_zip(void **state) {
    (void)state;
    struct rng r = rng_for("understated");
    char dir[256], src[300], out[300], path[400];
    make_case("understated", dir, sizeof dir);
    snprintf(src, sizeof src, "%s/src", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(path, sizeof path, "%s/top", src);
    CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
    long files = rng_range(&r, 2, 4);
    size_t total = 0;
    for (long f = 0; f < files; f++) {
        size_t length = (size_t)rng_range(&r, 1 << 20, 3 << 20);
        unsigned char *data = calloc(length, 1);
        CHECK(data != NULL, "out of memory");
        for (size_t i = 0; i < length; i += (size_t)rng_range(&r, 1000, 100000))
            data[i] = (unsigned char)rng_next(&r); /* compressible, not all zero */
        snprintf(path, sizeof path, "%s/top/pad%ld.bin", src, f);
        write_file(path, data, length);
        free(data);
        total += length;
    }
    tool(src, (const char *const[]){"zip", "-qr", "../lie.zip", "top", NULL});
    snprintf(path, sizeof path, "%s/lie.zip", dir);
    understate_zip(path, 1000);
    /* a cap far above what the headers claim, below what is really there */
    char cap[32];
    long long limit = rng_range(&r, 100000, (long)total - 1);
    snprintf(cap, sizeof cap, "%lld", limit);
    struct ran u = unpack(dir, "lie.zip", "--max-bytes", cap, NULL);
    expect_refused(&u, "understated zip", "it unpacks to more than");
    CHECK(bytes_under(out) <= limit, "understated zip: %lld bytes written past the cap %lld",
          bytes_under(out), limit);
}

/* ---------------------------------------------------------------- refused kinds */

/* Each builder packs case/src into case/bad.* and names the path an escape would create. */
struct refusal {
    const char *name;   /* the case */
    const char *reason; /* part of the refusal line */
};

static void test_refused_kinds(void **state) {
    (void)state;
    static const struct refusal cases[] = {
        {"absolute", "a member has an absolute path or .."},
        {"dotdot", "a member has an absolute path or .."},
        {"symlink_tar", "a member is a link or special file"},
        {"symlink_zip", "a member is a link or special file"},
        {"hardlink", "a member is a link or special file"},
        {"fifo", "a member is a link or special file"},
        {"device", "a member is a link or special file"},
        {"line_break", "a member name holds a line break or control character"},
        {"encrypted", "a member is encrypted"},
        {"twice", "File exists"},
        {"not_archive", "not a zip or tar archive"},
        {"gzip_not_tar", "not a zip or tar archive"},
    };
    struct rng r = rng_for("refused");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *name = cases[c].name;
        char dir[256], src[300], out[300], escape[400], path[400], archive[32] = "bad.tar.gz";
        char junk[64];
        make_case(name, dir, sizeof dir);
        snprintf(src, sizeof src, "%s/src", dir);
        snprintf(out, sizeof out, "%s/out", dir);
        snprintf(escape, sizeof escape, "%s/escaped", dir);
        snprintf(path, sizeof path, "%s/top", src);
        CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
        random_bytes(&r, (unsigned char *)junk, sizeof junk);
        snprintf(path, sizeof path, "%s/top/main.c", src);
        write_file(path, junk, sizeof junk);
        if (!strcmp(name, "absolute") || !strcmp(name, "dotdot")) {
            /* a member naming case/escaped, absolutely or as out/../escaped */
            write_file(escape, junk, sizeof junk);
            tool(out, (const char *const[]){"tar", "-czPf", "../bad.tar.gz",
                                            name[0] == 'a' ? escape : "../escaped", NULL});
            CHECK(unlink(escape) == 0, "unlink %s", escape);
        } else if (!strcmp(name, "symlink_tar") || !strcmp(name, "symlink_zip")) {
            snprintf(path, sizeof path, "%s/top/link", src);
            CHECK(symlink(escape, path) == 0, "symlink %s", path);
            if (name[8] == 'z') {
                strcpy(archive, "bad.zip");
                tool(src, (const char *const[]){"zip", "-qry", "../bad.zip", "top", NULL});
            } else
                tool(src, (const char *const[]){"tar", "-czf", "../bad.tar.gz", "top", NULL});
        } else if (!strcmp(name, "hardlink")) {
            char other[400];
            snprintf(other, sizeof other, "%s/top/again", src);
            CHECK(link(path, other) == 0, "link %s", other);
            tool(src, (const char *const[]){"tar", "-czf", "../bad.tar.gz", "top", NULL});
        } else if (!strcmp(name, "fifo") || !strcmp(name, "device")) {
            snprintf(path, sizeof path, "%s/top/node", src);
            if (name[0] == 'f')
                CHECK(mkfifo(path, 0644) == 0, "mkfifo %s", path);
            else if (mknod(path, S_IFCHR | 0644, makedev(1, 3)) != 0) {
                print_message("test_unpack: no device node here (%s): device case skipped\n",
                              strerror(errno));
                continue;
            }
            tool(src, (const char *const[]){"tar", "-czf", "../bad.tar.gz", "top", NULL});
        } else if (!strcmp(name, "line_break")) {
            snprintf(path, sizeof path, "%s/top/a\nb", src);
            write_file(path, junk, sizeof junk);
            tool(src, (const char *const[]){"tar", "-czf", "../bad.tar.gz", "top", NULL});
        } else if (!strcmp(name, "encrypted")) {
            strcpy(archive, "bad.zip");
            tool(src,
                 (const char *const[]){"zip", "-qr", "-P", "secret", "../bad.zip", "top", NULL});
        } else if (!strcmp(name, "twice")) {
            /* appended by a second tar: a full copy, not a link */
            strcpy(archive, "bad.tar");
            tool(src, (const char *const[]){"tar", "-cf", "../bad.tar", "top/main.c", NULL});
            tool(src, (const char *const[]){"tar", "-rf", "../bad.tar", "top/main.c", NULL});
        } else if (!strcmp(name, "not_archive")) {
            snprintf(path, sizeof path, "%s/%s", dir, archive);
            write_file(path, junk, sizeof junk);
        } else {
            tool(src, (const char *const[]){"sh", "-c", "gzip -c top/main.c >../bad.tar.gz", NULL});
        }
        struct ran u = unpack(dir, archive, NULL);
        expect_refused(&u, name, cases[c].reason);
        struct stat st;
        CHECK(lstat(escape, &st) != 0, "%s: %s was written", name, escape);
        CHECK(entries_in(dir) == 3, "%s: something was written beside out/", name);
        CHECK(bytes_under(out) <= (long long)sizeof junk, "%s: more written than packed", name);
    }
}

/* ---------------------------------------------------------------- usage */

/* A tar of CHAINS chains of LENGTH folders each (top/cN/d1/.../f), as tar writes it from disk. */
static void folder_chains(const char *dir, long chains, long length, const char *transform) {
    char src[300], path[4096];
    snprintf(src, sizeof src, "%s/src", dir);
    for (long c = 0; c < chains; c++) {
        int n = snprintf(path, sizeof path, "%s/top/c%ld", src, c);
        for (long d = 1; d < length; d++)
            n += snprintf(path + n, sizeof path - (size_t)n, "/d%ld", d);
        tool(dir, (const char *const[]){"mkdir", "-p", path, NULL});
        snprintf(path + n, sizeof path - (size_t)n, "/f");
        write_file(path, "x", 1);
    }
    if (transform)
        tool(src, (const char *const[]){"tar", "-czf", "../bomb.tar.gz", "--transform", transform,
                                        "top", NULL});
    else
        tool(src, (const char *const[]){"tar", "-czf", "../bomb.tar.gz", "top", NULL});
}

/* The folders a few members' paths make count (a small tar of deep paths is a folder bomb), and
 * a path's depth and a name's length have caps: one over is refused, the cap itself is not. */
static void test_folder_depth_and_name_caps(void **state) {
    (void)state;
    struct rng r = rng_for("folders");
    /* chains of 10 to 14 folders (top/cN/d1/.../f: LENGTH + 2 components, within the depth's
     * cap), as many as stay at or under the cap of 1000 folders (top/ is one) */
    long length = rng_range(&r, 10, INTAKE_MAX_DEPTH - 2),
         under = (INTAKE_MAX_FOLDERS - 1) / length;
    char dir[256];
    make_case("folders_at_cap", dir, sizeof dir);
    folder_chains(dir, under, length, NULL);
    struct ran u = unpack(dir, "bomb.tar.gz", NULL);
    CHECK(u.status == 0, "%ld chains of %ld folders: exit %d, said: %s", under, length, u.status,
          u.out);
    make_case("folders_over_cap", dir, sizeof dir);
    folder_chains(dir, under + 1, length, NULL);
    u = unpack(dir, "bomb.tar.gz", NULL);
    expect_refused(&u, "folders over the cap", "makes more than 1000 folders");
    /* depth: top/c0/d1/.../f is LENGTH + 2 components */
    make_case("depth_at_cap", dir, sizeof dir);
    folder_chains(dir, 1, INTAKE_MAX_DEPTH - 2, NULL);
    u = unpack(dir, "bomb.tar.gz", NULL);
    CHECK(u.status == 0, "a path %d deep: exit %d, said: %s", INTAKE_MAX_DEPTH, u.status, u.out);
    make_case("depth_over_cap", dir, sizeof dir);
    folder_chains(dir, 1, INTAKE_MAX_DEPTH - 1, NULL);
    u = unpack(dir, "bomb.tar.gz", NULL);
    expect_refused(&u, "a path one too deep", "more than 16 folders deep");
    /* a name of 256 bytes (longer than a Linux file name) renamed in by tar */
    char transform[400] = "s,/c0/,/";
    size_t n = strlen(transform);
    for (int i = 0; i < INTAKE_MAX_NAME + 1; i++)
        transform[n++] = (char)('a' + rng_range(&r, 0, 25));
    snprintf(transform + n, sizeof transform - n, "/,");
    make_case("name_over_cap", dir, sizeof dir);
    folder_chains(dir, 1, 2, transform);
    u = unpack(dir, "bomb.tar.gz", NULL);
    expect_refused(&u, "a name of 256 bytes", "name is longer than 255 bytes");
}

/* ---------------------------------------------------------------- a class download */

/* Whether TEXT is valid UTF-8 (no overlong form, surrogate or byte past U+10FFFF). */
static int valid_utf8(const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        unsigned c = *p;
        size_t n = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (!n)
            return 0;
        unsigned long code = n == 1 ? c : c & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            code = code << 6 | (p[i] & 0x3f);
        }
        if ((n == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) ||
            (n == 4 && (code < 0x10000 || code > 0x10ffff)))
            return 0;
        p += n;
    }
    return 1;
}

static int starts(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The uploads (tab-separated) of the record of KEY in `intake class` output RECORDS; "" if none. */
static const char *class_uploads(const char *records, const char *key, char *out, size_t size) {
    size_t k = strlen(key);
    *out = '\0';
    for (const char *line = records; *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        if (strncmp(line, key, k) != 0 || line[k] != '\t')
            continue;
        const char *p = line;
        for (int tabs = 0; p && tabs < 7; tabs++)
            p = strchr(p, '\t') ? strchr(p, '\t') + 1 : NULL;
        size_t n = p ? strcspn(p, "\n") : 0;
        snprintf(out, size, "%.*s", (int)n, p ? p : "");
        break;
    }
    return out;
}

/* `intake stage` of one student's UPLOADS (tab-separated) in DIR into DIR/staged_TAG: what it said.
 */
static struct ran class_stage(const char *dir, const char *tag, const char *uploads) {
    char into[64], scratch[400], list[1024];
    snprintf(into, sizeof into, "out/staged_%s", tag);
    snprintf(scratch, sizeof scratch, "%s/out/scratch_%s", dir, tag);
    CHECK(mkdir(scratch, 0777) == 0 && chmod(scratch, 0777) == 0, "mkdir %s", scratch);
    snprintf(list, sizeof list, "%s", uploads);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_argv_push_all(&argv,
                         (const char *const[]){g_unpack, "stage", "--into", into, "--scratch",
                                               scratch, "--exercises", "04_local_B", NULL});
    for (char *save = NULL, *u = strtok_r(list, "\t", &save); u; u = strtok_r(NULL, "\t", &save))
        grader_argv_push(&argv, u);
    struct ran r = run_in(dir, (const char *const *)argv.argv, 1, 0);
    grader_argv_clear(&argv);
    return r;
}

/* DIR/src/NAME/a/a/.../f.txt, a path of DEPTH components inside NAME; its path in PATH. */
static void deep_file(const char *dir, const char *name, int depth, char *path, size_t size) {
    int n = snprintf(path, size, "%s/src/%s", dir, name);
    for (int d = 1; d < depth; d++)
        n += snprintf(path + n, size - (size_t)n, "/a");
    tool(dir, (const char *const[]){"mkdir", "-p", path, NULL});
    snprintf(path + n, size - (size_t)n, "/f.txt");
    write_file(path, "x", 1);
}

/* A Moodle download holding a participant's member past one upload's caps: that participant is
 * refused (its row says why) and the class is graded; the depth counts inside the participant's
 * folder (one deeper than an upload: at the cap it is taken); names are cut at a character. */
static void test_class_download_refuses_one_participant(void **state) {
    (void)state;
    static const char ada[] = "Ada Lovelace_1234_assignsubmission_file_",
                      mallory[] = "Mallory Evil_4321_assignsubmission_file_",
                      carol[] = "Carol Deep_5555_assignsubmission_file_",
                      dan[] = "Dan Long_6666_assignsubmission_file_",
                      eve[] = "Eve Flat_7777_assignsubmission_file_";
    char dir[256], path[4096], uploads[1024], han[INTAKE_MAX_NAME + 46] = "";
    make_case("class_download", dir, sizeof dir);
    for (int i = 0; i < 100; i++) /* 100 x U+6F22, 300 bytes */
        strcat(han, "\xe6\xbc\xa2");
    snprintf(path, sizeof path, "src/%s/04_local_B", ada);
    tool(dir, (const char *const[]){"mkdir", "-p", path, NULL});
    snprintf(path, sizeof path, "%s/src/%s/04_local_B/kernel.cl", dir, ada);
    write_file(path, "// ada\n", 7);
    char deep[4096], at_cap[4096];
    deep_file(dir, mallory, INTAKE_MAX_DEPTH + 1, deep, sizeof deep);
    deep_file(dir, carol, INTAKE_MAX_DEPTH, at_cap, sizeof at_cap);
    snprintf(path, sizeof path, "%s/src/%s/long", dir, dan);
    tool(dir, (const char *const[]){"mkdir", "-p", path, NULL});
    snprintf(path, sizeof path, "%s/src/%s/long/f", dir, dan);
    write_file(path, "x", 1);
    /* Dan's folder `long` renamed to 300 bytes (no file on disk can have that name) */
    char transform[900];
    /* and Eve's flat file (Moodle's download without folders) to a name of 300 bytes and more */
    snprintf(path, sizeof path, "%s/src/%sx.c", dir, eve);
    write_file(path, "x", 1);
    snprintf(transform, sizeof transform, "s,/long/,/%s/,;s,_x\\.c$,_%s.c,", han, han);
    tool(dir, (const char *const[]){"sh", "-c", "cd src && zip -qr ../class.zip *", NULL});
    tool(dir,
         (const char *const[]){"tar", "-czf", "class.tar.gz", "-C", "src", "--transform", transform,
                               ada, dan, "Eve Flat_7777_assignsubmission_file_x.c", NULL});
    for (int i = 1; i <= 3; i++) {
        snprintf(path, sizeof path, "%s/out/s%d", dir, i);
        CHECK(mkdir(path, 0777) == 0 && chmod(path, 0777) == 0, "mkdir %s", path);
    }
    struct ran r =
        run_in(dir, (const char *const[]){g_unpack, "class", "class.zip", "out/s1", NULL}, 1, 0);
    CHECK(r.status == 0 && r.out[0], "the class download: exit %d, said: %s", r.status, r.out);
    struct ran st =
        class_stage(dir, "ada", class_uploads(r.out, "moodle:1234", uploads, sizeof uploads));
    CHECK(strncmp(st.out, "graded\n", 7) == 0, "Ada's good upload beside Mallory's: %s", st.out);
    class_uploads(r.out, "moodle:4321", uploads, sizeof uploads);
    CHECK(strstr(uploads, "/" INTAKE_REFUSED_FOLDER "/Mallory Evil_4321"), "Mallory's record: %s",
          r.out);
    st = class_stage(dir, "mallory", uploads);
    CHECK(starts(st.out, "refused: upload refused: a member is more than 16 folders deep (a/a/"),
          "Mallory refused alone, the path inside her folder said: %s", st.out);
    /* nothing past the cap was written */
    snprintf(path, sizeof path, "%s/out/s1/download/%s", dir, deep + strlen(dir) + 5);
    CHECK(lstat(path, &(struct stat){0}) != 0, "%s was written", path);
    class_uploads(r.out, "moodle:5555", uploads, sizeof uploads);
    CHECK(*uploads && !strstr(uploads, INTAKE_REFUSED_FOLDER),
          "16 deep inside the participant's folder is within the cap: %s", r.out);
    snprintf(path, sizeof path, "%s/out/s1/download/%s", dir, at_cap + strlen(dir) + 5);
    CHECK(lstat(path, &(struct stat){0}) == 0, "%s was not unpacked", path);
    /* a name of 300 bytes: Dan refused, the reason cut at a character */
    r = run_in(dir, (const char *const[]){g_unpack, "class", "class.tar.gz", "out/s2", NULL}, 1, 0);
    CHECK(r.status == 0, "the class with a long name: exit %d, said: %s", r.status, r.out);
    st = class_stage(dir, "dan", class_uploads(r.out, "moodle:6666", uploads, sizeof uploads));
    CHECK(starts(st.out, "refused: upload refused: a member's name is longer than 255 bytes (") &&
              strstr(st.out, "\xe6\xbc\xa2...)\n") && valid_utf8(st.out),
          "Dan refused, his name cut at a character: %s", st.out);
    st = class_stage(dir, "ada2", class_uploads(r.out, "moodle:1234", uploads, sizeof uploads));
    CHECK(strncmp(st.out, "graded\n", 7) == 0, "Ada beside Dan: %s", st.out);
    /* a participant's own entry of 300 bytes: refused by its name cut to a file name's length */
    st = class_stage(dir, "eve", class_uploads(r.out, "moodle:7777", uploads, sizeof uploads));
    CHECK(
        starts(st.out, "refused: upload refused: a member's name is longer than 255 bytes (Eve") &&
            valid_utf8(st.out),
        "Eve refused: %s (records:\n%s)", st.out, r.out);
    /* what is unsafe anywhere still refuses the whole download */
    snprintf(path, sizeof path, "%s/src/%s/link", dir, ada);
    CHECK(symlink("/etc/passwd", path) == 0, "symlink %s", path);
    tool(dir, (const char *const[]){"sh", "-c", "cd src && zip -qry ../links.zip *", NULL});
    r = run_in(dir, (const char *const[]){g_unpack, "class", "links.zip", "out/s3", NULL}, 1, 0);
    CHECK(r.status == 1 &&
              strstr(r.out, "class download refused: a member is a link or special file"),
          "a link in the class download: exit %d, said: %s", r.status, r.out);
}

static void test_malformed_numbers_are_usage_errors(void **state) {
    (void)state;
    char dir[256];
    make_case("usage", dir, sizeof dir);
    struct rng r = rng_for("usage");
    char random_tail[32];
    snprintf(random_tail, sizeof random_tail, "%ldk", rng_range(&r, 0, 1000000));
    static const char *const bad[] = {"",    "-1",  "+5",   " 5",
                                      "12x", "1e3", "0x10", "99999999999999999999999"};
    for (int flag = 0; flag < 2; flag++)
        for (size_t i = 0; i <= sizeof bad / sizeof *bad; i++) {
            const char *value = i < sizeof bad / sizeof *bad ? bad[i] : random_tail;
            struct ran u =
                unpack(dir, "none.zip", flag ? "--max-entries" : "--max-bytes", value, NULL);
            CHECK(u.status == 2 && u.out[0] == '\0', "%s '%s': exit %d, said: %s",
                  flag ? "--max-entries" : "--max-bytes", value, u.status, u.out);
        }
    struct ran u = run_in(dir, (const char *const[]){g_unpack, "unpack", "only-one", NULL}, 1, 0);
    CHECK(u.status == 2, "one argument: exit %d", u.status);
    u = run_in(dir, (const char *const[]){g_unpack, "unpack", "missing.zip", "out", NULL}, 1, 0);
    CHECK(u.status == 2 && u.out[0] == '\0', "a missing archive: exit %d, said: %s", u.status,
          u.out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_zip),
        cmocka_unit_test(test_good_tar_gz),
        cmocka_unit_test(test_good_plain_tar),
        cmocka_unit_test(test_caps_count_written_bytes_and_members),
        cmocka_unit_test(test_understated_zip),
        cmocka_unit_test(test_refused_kinds),
        cmocka_unit_test(test_folder_depth_and_name_caps),
        cmocka_unit_test(test_class_download_refuses_one_participant),
        cmocka_unit_test(test_malformed_numbers_are_usage_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
