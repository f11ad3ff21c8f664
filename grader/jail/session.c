/* session.c - the scheduling session of a jailed child, and the filter that keeps it there.
 *
 * Linux schedules every session as one group ("autogroup", on by default in Debian): the CPU is
 * shared first between sessions, and nice only orders the processes inside one. A student's
 * program that calls setsid() in every child it forks so gets a full share per child, and its
 * nice 19 means nothing; the corpus's fork bomb slowed the good submission graded beside it from
 * 5 s to 24 s that way. So a jailed child gets a session of its own, that session's nice, and a
 * seccomp filter under which setsid() fails: all it starts shares that one session's share. The
 * filter refuses sched_setaffinity() too (see its rule).
 * Everything here runs between fork and exec, so it only makes system calls. */
#define _GNU_SOURCE
#include "jail/jail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* the session's nice, written to /proc/self/autogroup (silently skipped without autogroups) */
static void set_session_niceness(int niceness) {
    char text[8];
    int len = 0;
    if (niceness <= 0 || niceness > 19)
        return;
    if (niceness >= 10)
        text[len++] = (char)('0' + niceness / 10);
    text[len++] = (char)('0' + niceness % 10);
    int fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, text, (size_t)len);
    (void)ignored;
    close(fd);
}

int grader_enter_own_session(int niceness) {
    if (setsid() < 0)
        return -1;
    set_session_niceness(niceness);
#ifdef NATIVE_ARCH
    struct sock_filter rules[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* calls of another ABI (32-bit x86 on x86_64) could reach setsid under another number */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* and the x32 ABI shares the arch, with bit 30 set on its numbers */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setsid, 1, 0),
        /* threads pinned to fewer CPUs than the machine has would wait for each other while a
         * CPU stays free: what the timing reads as a busy machine
         * (grade/busy.c's grade_busy_lost_share) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setaffinity, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {(unsigned short)(sizeof rules / sizeof rules[0]), rules};
    /* no_new_privs: a filter may then be set without privileges, and no setuid program run
     * under it gains any */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
        return -1;
#endif
    return 0;
}
