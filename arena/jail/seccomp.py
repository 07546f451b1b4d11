"""The jail's system-call filter: a small classic-BPF program, written out so it can be read.

A bot in its jail (``jail.py``) already runs as a user of its own in namespaces of its own;
the filter takes away the system calls that would let it reach past them or attack the
kernel, and that no bot needs:

- reading or writing another process: ``ptrace``, ``process_vm_readv``/``writev``,
  ``pidfd_open``/``pidfd_getfd`` (copying another process's descriptor), ``kcmp``;
- changing what it sees: ``mount`` and the new mount API, ``umount2``, ``pivot_root``,
  ``chroot``, ``unshare``, ``setns``, and ``clone`` with any ``CLONE_NEW*`` flag (a new user
  namespace would give it capabilities there); ``clone3``, whose flags live in memory a
  filter cannot read, answers ``ENOSYS``, so the C library falls back to ``clone``;
- the kernel's larger attack surfaces: ``bpf``, ``perf_event_open``, ``userfaultfd``,
  ``io_uring_*``, ``keyctl``/``add_key``/``request_key``, ``fanotify_init``,
  ``open_by_handle_at``/``name_to_handle_at``, ``lookup_dcookie``, ``syslog``;
- the machine's state: modules, ``kexec``, ``reboot``, swap, ``acct``, the clock, the host
  and domain names, ``quotactl``, ``vhangup``, ``iopl``/``ioperm``/``modify_ldt``/``uselib``;
- sockets of any family but ``AF_UNIX`` (the jail has no network either; this keeps
  netlink and raw sockets away too);
- file locks, leases and change notices: ``flock``, ``fcntl``'s lock, lease and ``F_NOTIFY``
  commands, ``inotify_init``/``inotify_init1``/``inotify_add_watch``.  Every file a jail
  shows (the interpreter, the arena, the bot's module) is shown to the other jails too, read
  only; a lock taken on it, or an access watched, is seen from every jail, so two bots at
  one table could pass their hands through it.  Neither Python's import nor a bot needs them.

Each of these answers ``EPERM`` (``EAFNOSUPPORT`` for a socket, ``ENOSYS`` for ``clone3``): a
bot that tries one gets an ``OSError`` it may handle, as it would on a machine that forbids
it.  A call made under another ABI (32-bit ``int 0x80`` on x86_64, x32) ends the process:
the table below is for the native ABI only.  Everything else is allowed: the filter is a
deny list on top of the namespaces and the unprivileged user, not the whole defence.

The program is built for x86_64 and aarch64 (``FILTER_ARCHES``); on another machine there is
no filter, and the run's log says so.  bubblewrap loads it (``--seccomp FD``) just before it
starts the jail's first process, which then cannot remove it.
"""

from __future__ import annotations

import errno
import platform
import struct

# Classic BPF opcodes (linux/filter.h, linux/bpf_common.h).
BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = 32-bit word at offset k of seccomp_data
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
BPF_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
BPF_RET_K = 0x06  # BPF_RET | BPF_K

# seccomp return values (linux/seccomp.h).
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# Offsets in struct seccomp_data: nr (int), arch (u32), instruction_pointer (u64), args[6].
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
#: x32 system calls are the native numbers with this bit set.
X32_SYSCALL_BIT = 0x40000000

AF_UNIX = 1
#: Every CLONE_NEW* flag: NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NEW_FLAGS = 0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 \
    | 0x10000000 | 0x20000000 | 0x40000000

#: Denied system calls: name -> (x86_64 number, aarch64 number or None where it has none).
#: The numbers are the kernel's (asm/unistd_64.h and asm-generic/unistd.h).
DENIED: dict[str, tuple[int, int | None]] = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "pidfd_open": (434, 434),
    "pidfd_getfd": (438, 438),
    "kcmp": (312, 272),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "fanotify_init": (300, 262),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "lookup_dcookie": (212, 18),
    "syslog": (103, 116),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "adjtimex": (159, 171),
    "clock_adjtime": (305, 266),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
    "quotactl": (179, 60),
    "vhangup": (153, 58),
    "iopl": (172, None),
    "ioperm": (173, None),
    "modify_ldt": (154, None),
    "uselib": (134, None),
    "flock": (73, 32),
    "inotify_init": (253, None),
    "inotify_init1": (294, 26),
    "inotify_add_watch": (254, 27),
}
#: The calls whose arguments are looked at: name -> (x86_64, aarch64).
SOCKET = (41, 198)
CLONE = (56, 220)
CLONE3 = (435, 435)
FCNTL = (72, 25)
#: ``fcntl`` commands denied: F_GETLK, F_SETLK, F_SETLKW (the same numbers as their ``64``
#: forms on these machines), F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE
#: and F_NOTIFY.  Asking whether a lock is held is a channel as much as taking one.
FCNTL_DENIED = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)

#: Machines the filter is built for: ``platform.machine()`` -> (audit arch, table column).
FILTER_ARCHES = {"x86_64": (AUDIT_ARCH_X86_64, 0), "aarch64": (AUDIT_ARCH_AARCH64, 1)}


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    """One ``struct sock_filter``: u16 code, u8 jt, u8 jf, u32 k (native byte order)."""
    return struct.pack("=HBBI", code, jt, jf, k)


def filter_program(machine: str | None = None) -> bytes | None:
    """The filter for this machine (or ``machine``) as bytes of ``struct sock_filter``, the
    form ``bwrap --seccomp`` reads; None where no table is written for the machine.

    The layout, in order: the architecture check (kill on a foreign ABI), the x32 check
    (x86_64), one ``jeq`` per denied call (to the EPERM return at the end), then ``socket``
    (allowed for AF_UNIX only), ``clone`` (denied with a CLONE_NEW* flag), ``clone3``
    (ENOSYS), ``fcntl`` (denied for the commands of ``FCNTL_DENIED``), and allow.
    """
    machine = machine or platform.machine()
    if machine not in FILTER_ARCHES:
        return None
    arch, column = FILTER_ARCHES[machine]
    denied = sorted({numbers[column] for numbers in DENIED.values()
                     if numbers[column] is not None})  # type: ignore[type-var]
    # Instructions as (code, k, jt, jf); a jump is a label (an instruction's name below)
    # or 0, resolved into offsets at the end.
    code: list[tuple[int, int, str | int, str | int]] = [
        (BPF_LD_W_ABS, ARCH, 0, 0),
        (BPF_JEQ_K, arch, "nr", 0),
        (BPF_RET_K, RET_KILL_PROCESS, 0, 0),
    ]
    labels = {"nr": 3}
    code.append((BPF_LD_W_ABS, NR, 0, 0))
    if machine == "x86_64":
        code += [(BPF_JGE_K, X32_SYSCALL_BIT, 0, "denied"),
                 (BPF_RET_K, RET_KILL_PROCESS, 0, 0)]
    labels["denied"] = len(code)
    code += [(BPF_JEQ_K, nr, "eperm", 0) for nr in denied]
    labels["socket"] = len(code)
    code += [
        # socket(domain, ...): AF_UNIX only (the low word of the first argument).
        (BPF_JEQ_K, SOCKET[column], 0, "clone"),
        (BPF_LD_W_ABS, ARG0, 0, 0),
        (BPF_JEQ_K, AF_UNIX, "allow", 0),
        (BPF_RET_K, RET_ERRNO | errno.EAFNOSUPPORT, 0, 0),
    ]
    labels["clone"] = len(code)
    code += [
        # clone(flags, ...): no new namespace (the flags are in the low word).
        (BPF_JEQ_K, CLONE[column], 0, "clone3"),
        (BPF_LD_W_ABS, ARG0, 0, 0),
        (BPF_JSET_K, CLONE_NEW_FLAGS, "eperm", "allow"),
    ]
    labels["clone3"] = len(code)
    code += [
        # clone3: its flags are out of reach, so it is not offered.
        (BPF_JEQ_K, CLONE3[column], 0, "fcntl"),
        (BPF_RET_K, RET_ERRNO | errno.ENOSYS, 0, 0),
    ]
    labels["fcntl"] = len(code)
    code += [
        # fcntl(fd, cmd, ...): no lock, lease or notice (the command in the low word).
        (BPF_JEQ_K, FCNTL[column], 0, "allow"),
        (BPF_LD_W_ABS, ARG1, 0, 0),
        *[(BPF_JEQ_K, cmd, "eperm", 0) for cmd in FCNTL_DENIED],
    ]
    labels["allow"] = len(code)
    code.append((BPF_RET_K, RET_ALLOW, 0, 0))
    labels["eperm"] = len(code)
    code.append((BPF_RET_K, RET_ERRNO | errno.EPERM, 0, 0))

    def offset(at: int, jump: str | int) -> int:
        return jump if isinstance(jump, int) else labels[jump] - at - 1

    prog = [_insn(op, k, offset(i, jt), offset(i, jf)) for i, (op, k, jt, jf) in enumerate(code)]
    return b"".join(prog)
