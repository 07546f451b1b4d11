/* An attacker engine for tests/protocol/test_engine_attacks.py: it speaks the engine
 * protocol (docs/protocol.md) and plays random legal actions, but at its first decision it
 * tries directly what a Python bot reaches only through ctypes, if at all (raw system
 * calls, ptrace, process_vm_readv, clone3, other ABIs), to get out of its jail, and says
 * what each attempt gave.
 *
 * Why at a decision: a fault there is a fault of its seat's game, and the arena quotes the
 * engine's last stderr lines with it (its game record's error, arena.log).  So the engine
 * writes its results to stderr as lines "A {json}" (an attempt's name -> "ok[:detail]" or
 * the errno's name), each under the 300 characters a quoted line keeps and at most four
 * of them (five are quoted), then answers an action that is not legal: the record holds
 * the report.  An engine that plays on (attack=none) shows the protocol side works.
 *
 * Options: attack=all (every attempt, the engine keeps its children and its locks until
 * its jail ends), int80 or x32 (one system call under a foreign ABI, which the filter
 * answers by ending the process), recall (what it was dealt in its first game, said in a
 * later one), ansi (stderr with a terminal's escape sequences), none; run=PATH, a folder of the arena's that the engine must not see (the
 * test's run folder).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <dirent.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#endif
/* PTRACE_ATTACH (sys/ptrace.h's enum, which clashes with linux/ headers). */
#define PTRACE_ATTACH_NR 16
#ifndef AF_PACKET
#define AF_PACKET 17
#endif
/* The System V key both jails of a run would use if they shared an IPC namespace. */
#define QUEUE_KEY 0x7a6b0054

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static char attack[16] = "all";
static char run_folder[1024] = "";
static char report[300];
static size_t report_used = 0;
/* The seat of the game being played, games begun by this process, and whether the game's
 * first decision is still to come. */
static int seat = 0, games_started = 0, first_of_game = 0;

static uint64_t next_random(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The errno's name (strerrorname_np is glibc 2.32 and later only). */
static const char *errno_name(int error) {
    static char other[16];
    switch (error) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EACCES: return "EACCES";
    case EAGAIN: return "EAGAIN";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    case EROFS: return "EROFS";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENOMEM: return "ENOMEM";
    case EMFILE: return "EMFILE";
    default:
        snprintf(other, sizeof other, "E%d", error);
        return other;
    }
}

static void flush_report(void) {
    if (report_used == 0) return;
    fprintf(stderr, "A {%s}\n", report);
    fflush(stderr);
    report_used = 0;
    report[0] = 0;
}

/* Record one attempt: KEY -> VALUE (short; a quote, backslash or control character in
 * VALUE, which comes from a folder's names, becomes '_' so the line stays JSON). */
static void note(const char *key, const char *value) {
    char item[160], clean[100];
    size_t i = 0;
    for (; value[i] && i < sizeof clean - 1; i++)
        clean[i] = (value[i] == '"' || value[i] == '\\' || (unsigned char)value[i] < 32)
                       ? '_' : value[i];
    clean[i] = 0;
    value = clean;
    int n = snprintf(item, sizeof item, "%s\"%s\":\"%s\"", report_used ? "," : "", key, value);
    if (n < 0) return;
    if (report_used + (size_t)n > 280) { /* "A {" and "}" keep the line under 300 */
        flush_report();
        n = snprintf(item, sizeof item, "\"%s\":\"%s\"", key, value);
    }
    memcpy(report + report_used, item, (size_t)n + 1);
    report_used += (size_t)n;
}

/* Record the outcome of a call returning RESULT (negative: failed with errno). */
static void outcome(const char *key, long result) {
    if (result < 0) {
        note(key, errno_name(errno));
    } else {
        char text[40];
        snprintf(text, sizeof text, "ok:%ld", result);
        note(key, text);
    }
}

static int string_field(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *at = strstr(line, pattern);
    if (!at) return 0;
    at += strlen(pattern);
    const char *end = strchr(at, '"');
    if (!end || (size_t)(end - at) >= size) return 0;
    memcpy(out, at, end - at);
    out[end - at] = 0;
    return 1;
}

static void answer(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* A child that waits to be killed (a target to trace, then one of the fork bomb). */
static pid_t sleeper(int own_session) {
    pid_t pid = fork();
    if (pid == 0) {
        if (own_session) setsid();
        for (;;) pause();
    }
    return pid;
}

static void try_trace(const char *key, pid_t pid) {
    long got = syscall(SYS_ptrace, PTRACE_ATTACH_NR, pid, 0, 0);
    outcome(key, got);
}

static void try_read_memory(const char *key, pid_t pid) {
    /* Any address: the filter answers before the kernel looks at it. */
    char buffer[16];
    struct iovec local = {buffer, sizeof buffer};
    struct iovec remote = {(void *)0x400000, sizeof buffer};
    outcome(key, syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0));
}

static void try_socket(const char *key, int family, int type) {
    long fd = syscall(SYS_socket, family, type, 0);
    outcome(key, fd);
    if (fd >= 0) close((int)fd);
}

static void try_open(const char *key, const char *path, int flags) {
    long fd = open(path, flags, 0644);
    outcome(key, fd);
    if (fd >= 0) close((int)fd);
}

/* clone and clone3 with a new user namespace; a child that was made exits at once. */
static void try_clones(void) {
    long got = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (got == 0) _exit(0);
    outcome("clone_newuser", got);
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_NEWUSER;
    args.exit_signal = SIGCHLD;
    got = syscall(SYS_clone3, &args, sizeof args);
    if (got == 0) _exit(0);
    outcome("clone3", got);
}

/* Locks on a file every jail is shown (this program): a channel between two jails.  The
 * descriptor stays open, so a lock that was granted is held until the jail ends. */
static void try_locks(void) {
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0) {
        outcome("flock", -1);
        return;
    }
    outcome("flock", flock(fd, LOCK_SH | LOCK_NB));
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = F_RDLCK;
    lock.l_whence = SEEK_SET;
    outcome("fcntl_lock", fcntl(fd, F_SETLK, &lock));
    memset(&lock, 0, sizeof lock);
    lock.l_type = F_RDLCK;
    lock.l_whence = SEEK_SET;
    outcome("ofd_lock", fcntl(fd, F_OFD_SETLK, &lock));
    long watch = syscall(SYS_inotify_init1, 0);
    outcome("inotify", watch);
}

/* Sum up one pid's answer into SUMMARY: "EPERM" while every pid so far answered so, else
 * the first pid that did not and what it gave. */
static void sum_up(char *summary, size_t size, pid_t pid, long got, int error) {
    if (got < 0 && error == EPERM) {
        if (strcmp(summary, "none") == 0) snprintf(summary, size, "EPERM");
    } else if (strncmp(summary, "pid", 3) != 0) {
        snprintf(summary, size, "pid%d:%s", (int)pid, got < 0 ? errno_name(error) : "ok");
    }
}

/* How many processes it can see in /proc, and ptrace / process_vm_readv on each but
 * itself. */
static void try_visible(void) {
    DIR *proc = opendir("/proc");
    int seen = 0;
    char trace[40] = "none", read[40] = "none";
    if (proc) {
        struct dirent *entry;
        while ((entry = readdir(proc))) {
            pid_t pid = (pid_t)atoi(entry->d_name);
            if (pid <= 0) continue;
            seen++;
            if (pid == getpid()) continue;
            long got = syscall(SYS_ptrace, PTRACE_ATTACH_NR, pid, 0, 0);
            sum_up(trace, sizeof trace, pid, got, errno);
            char buffer[16];
            struct iovec local = {buffer, sizeof buffer};
            struct iovec remote = {(void *)0x400000, sizeof buffer};
            got = syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0);
            sum_up(read, sizeof read, pid, got, errno);
        }
        closedir(proc);
    }
    char count[16];
    snprintf(count, sizeof count, "%d", seen);
    note("pids_seen", count);
    note("ptrace_all", trace);
    note("vm_readv_all", read);
}

/* A System V queue: one made by an earlier game's jail would be found here (game 2 looks
 * for game 1's), and one made here would outlive the jail were the namespace the host's. */
static void try_queue(void) {
    outcome("msg_seen", msgget(QUEUE_KEY, 0));
    outcome("msg_make", msgget(QUEUE_KEY, IPC_CREAT | 0666));
}

/* The names in /root (the jail shows only the way to a path of its view there, if any),
 * and a file of root's that is no part of the view. */
static void try_root(void) {
    char names[64] = "";
    size_t used = 0;
    DIR *root = opendir("/root");
    if (!root) {
        outcome("root_ls", -1);
    } else {
        struct dirent *entry;
        while ((entry = readdir(root))) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
            int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ";" : "",
                             entry->d_name);
            if (n < 0 || (size_t)n >= sizeof names - used) break;
            used += (size_t)n;
        }
        closedir(root);
        note("root_ls", names);
    }
    try_open("root_bashrc", "/root/.bashrc", O_RDONLY);
}

/* The fork bomb: children in sessions of their own, until the jail's limit says no.  They
 * are left alive: the jail must end them. */
static void try_fork_bomb(void) {
    int made = 0;
    for (; made < 100000; made++) {
        pid_t pid = sleeper(1);
        if (pid < 0) break;
    }
    char text[48];
    snprintf(text, sizeof text, "%d:%s", made, made < 100000 ? errno_name(errno) : "ok");
    note("forks", text);
}

static void attack_all(void) {
    char text[64];
    snprintf(text, sizeof text, "%u", (unsigned)getuid());
    note("uid", text);
    pid_t parent = getppid();
    pid_t child = sleeper(0);
    try_trace("ptrace_ppid", parent);
    try_trace("ptrace_1", 1);
    try_trace("ptrace_child", child);
    try_read_memory("vm_readv_ppid", parent);
    try_read_memory("vm_readv_child", child);
    try_visible();
    try_socket("sock_inet", AF_INET, SOCK_STREAM);
    try_socket("sock_inet6", AF_INET6, SOCK_DGRAM);
    try_socket("sock_raw", AF_INET, SOCK_RAW);
    try_socket("sock_netlink", AF_NETLINK, SOCK_RAW);
    try_socket("sock_packet", AF_PACKET, SOCK_RAW);
    outcome("unshare_user", syscall(SYS_unshare, CLONE_NEWUSER));
    outcome("unshare_mnt", syscall(SYS_unshare, CLONE_NEWNS));
    try_clones();
    outcome("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL));
    /* The kernel's larger surfaces, with arguments it would refuse anyway: the filter
     * answers first. */
    outcome("bpf", syscall(SYS_bpf, 0, NULL, 0));
    outcome("perf", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
    outcome("userfaultfd", syscall(SYS_userfaultfd, 0));
    outcome("io_uring", syscall(SYS_io_uring_setup, 1, NULL));
    outcome("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0));
    outcome("pidfd_open", syscall(SYS_pidfd_open, 1, 0));
    /* socketpair is not filtered: no family but AF_UNIX makes pairs. */
    int pair[2];
    outcome("pair_inet", socketpair(AF_INET, SOCK_STREAM, 0, pair));
    outcome("pair_netlink", socketpair(AF_NETLINK, SOCK_RAW, 0, pair));
    outcome("setuid0", syscall(SYS_setuid, 0));
    try_open("proc1_mem", "/proc/1/mem", O_RDONLY);
    try_open("proc1_environ", "/proc/1/environ", O_RDONLY);
    try_open("proc1_root", "/proc/1/root/etc/shadow", O_RDONLY);
    try_open("proc_sys", "/proc/sys/kernel/hostname", O_WRONLY);
    try_open("sysrq", "/proc/sysrq-trigger", O_WRONLY);
    try_open("cgroup", "/sys/fs/cgroup/cgroup.procs", O_WRONLY);
    try_open("dev_mem", "/dev/mem", O_RDONLY);
    try_root();
    try_open("shadow", "/etc/shadow", O_RDONLY);
    if (run_folder[0]) {
        char path[1100];
        try_open("run", run_folder, O_RDONLY | O_DIRECTORY);
        snprintf(path, sizeof path, "%s/run.key", run_folder);
        try_open("run_key", path, O_RDONLY);
    }
    try_open("write_own", "attacker-was-here", O_WRONLY | O_CREAT | O_TRUNC);
    try_open("write_usr", "/usr/attacker-was-here", O_WRONLY | O_CREAT | O_TRUNC);
    snprintf(text, sizeof text, "/tmp/attacker-was-here-%u", (unsigned)getuid());
    try_open("write_tmp", text, O_WRONLY | O_CREAT | O_TRUNC);
    try_locks();
    try_queue();
    try_fork_bomb();
    note("done", "1");
    flush_report();
}

/* One system call under a foreign ABI: getpid, which would succeed were it let through. */
static void attack_abi(void) {
    long got = -1;
    fprintf(stderr, "A {\"%s\":\"trying\"}\n", attack);
    fflush(stderr);
#if defined(__x86_64__)
    if (strcmp(attack, "int80") == 0) {
        long nr = 20; /* getpid in the i386 table */
        __asm__ volatile("int $0x80" : "=a"(got) : "a"(nr) : "memory");
    } else {
        got = syscall(0x40000000 | 39); /* getpid in the x32 table */
    }
#endif
    fprintf(stderr, "A {\"%s\":\"survived:%ld\"}\n", attack, got);
    fflush(stderr);
}

/* The seat's own objectives in a decide message's view (hands[seat].objectives), as
 * "card;card;..." into OUT. */
static void own_objectives(const char *line, int seat, char *out, size_t size) {
    const char *at = strstr(line, "\"hands\":[");
    out[0] = 0;
    for (int i = 0; at && i <= seat; i++) {
        at = strstr(at, "\"objectives\":[");
        if (at) at += strlen("\"objectives\":[");
    }
    if (!at) return;
    size_t used = 0;
    for (; *at && *at != ']' && used + 1 < size; at++)
        if (*at != '"') out[used++] = *at == ',' ? ';' : *at;
    out[used] = 0;
}

/* attack=recall: the objectives dealt to it in its first game, said at the first decision
 * of a later game of the same process (a seat rotation of the same deal deals them to the
 * opponent, whose hand is hidden); the earlier games are played out. */
static int recall(const char *line) {
    static char remembered[200] = "";
    if (!first_of_game) return 0;
    first_of_game = 0;
    if (games_started < 2 || !remembered[0]) {
        if (!remembered[0]) own_objectives(line, seat, remembered, sizeof remembered);
        return 0;
    }
    note("recall", remembered);
    char count[16];
    snprintf(count, sizeof count, "%d", games_started);
    note("games", count);
    flush_report();
    return 1;
}

/* attack=ansi: stderr that would clear a terminal and draw a standings table of its own,
 * quoted with its fault wherever the arena shows that. */
static void attack_terminal(void) {
    fputs("A {\"ansi\":\"1\"} \x1b[2J\x1b[H\x1b[32mattacker 2 2 100.0%\x1b[0m\r\x1b]0;owned\x07"
          "\xe2\x80\xae\x9b\n", stderr);
    fflush(stderr);
}

static void decide(const char *line) {
    static int first = 1;
    if (strcmp(attack, "recall") == 0) {
        if (recall(line)) {
            answer("{\"type\":\"action\",\"action\":\"report\"}");
            return;
        }
    } else if (first) {
        first = 0;
        if (strcmp(attack, "all") == 0) attack_all();
        else if (strcmp(attack, "ansi") == 0) attack_terminal();
        else if (strcmp(attack, "none") != 0) attack_abi();
        if (strcmp(attack, "none") != 0) {
            answer("{\"type\":\"action\",\"action\":\"report\"}");
            return;
        }
    }
    const char *at = strstr(line, "\"legal\":[");
    if (!at) return;
    at += strlen("\"legal\":[");
    const char *starts[512];
    size_t lengths[512];
    int n = 0;
    while (*at == '"' && n < 512) {
        const char *end = strchr(at + 1, '"');
        if (!end) break;
        starts[n] = at + 1;
        lengths[n] = end - at - 1;
        n++;
        at = end + 1;
        if (*at == ',') at++;
    }
    if (n == 0) return;
    int chosen = (int)(next_random() % (uint64_t)n);
    printf("{\"type\":\"action\",\"action\":\"%.*s\"}\n", (int)lengths[chosen], starts[chosen]);
    fflush(stdout);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    char type[32];
    signal(SIGCHLD, SIG_IGN); /* the children it makes are reaped by the kernel */
    while (getline(&line, &capacity, stdin) > 0) {
        if (!string_field(line, "type", type, sizeof type)) continue;
        if (strcmp(type, "hello") == 0) {
            answer("{\"type\":\"hello\",\"protocol\":\"takenoko-engine\",\"version\":1,"
                   "\"name\":\"attacker\",\"author\":\"takenoko-arena tests\",\"options\":["
                   "{\"name\":\"attack\",\"type\":\"combo\",\"default\":\"all\","
                   "\"values\":[\"all\",\"int80\",\"x32\",\"recall\",\"ansi\",\"none\"]},"
                   "{\"name\":\"run\",\"type\":\"string\",\"default\":\"\"}]}");
        } else if (strcmp(type, "options") == 0) {
            string_field(line, "attack", attack, sizeof attack);
            string_field(line, "run", run_folder, sizeof run_folder);
        } else if (strcmp(type, "newgame") == 0) {
            const char *seed = strstr(line, "\"seed\":");
            state = seed ? strtoull(seed + 7, NULL, 10) : 0;
            const char *at = strstr(line, "\"seat\":");
            seat = at ? atoi(at + 7) : 0;
            games_started++;
            first_of_game = 1;
        } else if (strcmp(type, "decide") == 0) {
            decide(line);
        } else if (strcmp(type, "quit") == 0) {
            break;
        }
    }
    free(line);
    return 0;
}
