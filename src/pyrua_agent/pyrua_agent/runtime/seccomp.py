"""
The seccomp filter of the bubblewrap sandbox: system calls a cell never needs are refused.

Built with ``pyseccomp`` (ctypes bindings to the system's libseccomp) and handed to bwrap
as a BPF program (``--seccomp FD``); it holds for the worker and everything it starts.
Refused with EPERM: debugging other processes (``ptrace``, ``process_vm_readv``/``writev``,
``kcmp``), mounting (``mount``, ``umount2``, ``pivot_root``, ``fsopen``, ``move_mount``, ...),
namespaces (``unshare``, ``setns``, and ``clone`` with ``CLONE_NEWUSER`` or another new
namespace flag; ``clone3`` answers ENOSYS so the C library falls back to ``clone``), the
kernel keyring (``keyctl``, ``add_key``, ``request_key``), execution-domain changes
(``personality`` setting a flag such as ``ADDR_NO_RANDOMIZE``), and kernel-level facilities
(``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_*``, module loading,
``kexec_*``, ``reboot``, ``swapon``, ``acct``, ``syslog``, ``open_by_handle_at``, ...).
Everything else is allowed: the filter is a deny list on top of the namespaces.

Where ``pyseccomp`` or libseccomp is missing, ``seccomp_problem()`` says so and the
sandbox runs without the filter, with one warning line.
"""

from __future__ import annotations

import errno
import functools
import io
import logging
import os

_LOG = logging.getLogger(__name__)
DENIED = (
    'ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp',
    'mount', 'umount2', 'pivot_root', 'chroot', 'fsopen', 'fsconfig', 'fsmount', 'fspick',
    'move_mount', 'open_tree', 'mount_setattr',
    'unshare', 'setns',
    'keyctl', 'add_key', 'request_key',
    'bpf', 'perf_event_open', 'userfaultfd', 'io_uring_setup', 'io_uring_enter',
    'io_uring_register', 'init_module', 'finit_module', 'delete_module', 'kexec_load',
    'kexec_file_load', 'reboot', 'swapon', 'swapoff', 'acct', 'syslog', 'quotactl',
    'open_by_handle_at', 'name_to_handle_at', 'lookup_dcookie', 'iopl', 'ioperm',
    'settimeofday', 'clock_settime', 'adjtimex', 'clock_adjtime', 'vhangup',
)
# clone(2) flags that make a new namespace.
CLONE_NAMESPACE_FLAGS = {
    'CLONE_NEWUSER': 0x10000000, 'CLONE_NEWNS': 0x00020000, 'CLONE_NEWPID': 0x20000000,
    'CLONE_NEWNET': 0x40000000, 'CLONE_NEWIPC': 0x08000000, 'CLONE_NEWUTS': 0x04000000,
    'CLONE_NEWCGROUP': 0x02000000}
# personality(2) flags that change how memory is laid out or how the kernel answers.
PERSONALITY_FLAGS = {
    'UNAME26': 0x0020000, 'ADDR_NO_RANDOMIZE': 0x0040000, 'FDPIC_FUNCPTRS': 0x0080000,
    'MMAP_PAGE_ZERO': 0x0100000, 'ADDR_COMPAT_LAYOUT': 0x0200000,
    'READ_IMPLIES_EXEC': 0x0400000, 'ADDR_LIMIT_32BIT': 0x0800000,
    'SHORT_INODE': 0x1000000, 'WHOLE_SECONDS': 0x2000000, 'STICKY_TIMEOUTS': 0x4000000,
    'ADDR_LIMIT_3GB': 0x8000000}
_QUERY_BIT = 0x80000000
INSTALL_HINT = ("pip install 'pyseccomp>=0.1.2' (needs the system libseccomp2; Debian/Ubuntu: "
                'apt-get install libseccomp2)')


def _build() -> bytes:
    import pyseccomp

    refuse = pyseccomp.ERRNO(errno.EPERM)
    rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(refuse, name)
        except (OSError, ValueError, RuntimeError):  # not a system call on this kernel/arch
            continue
    for flag in CLONE_NAMESPACE_FLAGS.values():
        rules.add_rule(refuse, 'clone', pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    try:
        rules.add_rule(pyseccomp.ERRNO(errno.ENOSYS), 'clone3')
    except (OSError, ValueError, RuntimeError):
        pass
    # A flag set in anything but the query (0xffffffff, whose top bit no flag uses).
    for flag in PERSONALITY_FLAGS.values():
        rules.add_rule(refuse, 'personality',
                       pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag | _QUERY_BIT, flag))
    out = io.BytesIO()
    # export_bpf writes through the file descriptor: use a real file, then read it back.
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(write_fd, 'wb', closefd=True) as sink:
            rules.export_bpf(sink)
        with os.fdopen(read_fd, 'rb', closefd=True) as source:
            out.write(source.read())
    except BaseException:
        for fd in (read_fd, write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        raise
    return out.getvalue()


@functools.lru_cache(maxsize=1)
def _program() -> tuple[bytes | None, str | None]:
    try:
        return _build(), None
    except ImportError:
        return None, f'pyseccomp is not installed; {INSTALL_HINT}'
    except Exception as exc:  # libseccomp missing or refusing (RuntimeError, OSError, ...)
        return None, f'the seccomp filter could not be built ({type(exc).__name__}: {exc}); ' \
                     f'{INSTALL_HINT}'


def seccomp_problem() -> str | None:
    """Return why the sandbox runs without its seccomp filter here, or None if it has one."""
    return _program()[1]


def bpf_program() -> bytes | None:
    """Return the filter as a BPF program for ``bwrap --seccomp``, or None (see above)."""
    program, problem = _program()
    if problem is not None:
        _warn_once(problem)
    return program


def program_fd() -> int | None:
    """
    Return a new readable descriptor holding the BPF program (one per bwrap start).

    The caller passes it to bwrap and closes it once bwrap has started.
    """
    program = bpf_program()
    if program is None:
        return None
    fd = os.memfd_create('pyrua-seccomp', 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@functools.lru_cache(maxsize=1)
def _warn_once(problem: str) -> None:
    _LOG.warning('CELL SANDBOX WITHOUT SECCOMP FILTER: %s; cells may then call ptrace, '
                 'mount, unshare and keyctl inside their namespaces', problem)
