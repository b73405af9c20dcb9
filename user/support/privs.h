/* SPDX-License-Identifier: GPL-2.0 */
/* Privileges: the launched command runs as the sudo user; tdbpf keeps only
 * the capabilities it still needs once the programs are attached. */
#ifndef TDBPF_PRIVS_H
#define TDBPF_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/capability.h>

/* libcap headers older than Linux 5.8 do not name them */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/*
 * SUDO_UID and SUDO_GID, when set (as root), must both be ids: else -1
 * with @err. Checked before anything is run or created for the user.
 */
int privs_check_sudo(char *err, size_t len);
/*
 * In the child, before exec: when root through sudo, become SUDO_UID/GID
 * with that user's groups. Returns 0, or -1 with @err.
 */
int privs_drop_to_invoking_user(char *err, size_t len);
/* After load/attach: keep CAP_BPF, CAP_PERFMON and CAP_KILL, drop the rest. */
void privs_drop_after_setup(void);
/*
 * Before that: @keep false when there is no command to stop, so CAP_KILL
 * goes too (a --listen server then holds CAP_BPF and CAP_PERFMON only).
 */
void privs_keep_kill(bool keep);
/*
 * Open @path for writing, creating it if needed, refused (-ELOOP) when
 * any component of it is a symlink; when root through sudo, with the
 * sudo user's rights (a file it creates is theirs). An existing file is
 * not emptied (out_open() does that when the first report comes).
 * Returns an fd or -errno; *@made: it was created.
 */
int privs_create_output(const char *path, bool *made);
/* Outputs are created as the sudo user: true, with their uid. */
bool privs_output_uid(uid_t *uid);
/*
 * In the /proc peer reader, a process of its own: CAP_SYS_PTRACE and
 * CAP_DAC_READ_SEARCH, to read the traced processes' /proc/PID/fd (their
 * sockets: the flows that join hosts' graphs), and nothing else.
 */
void privs_drop_to_proc_reader(void);

#endif /* TDBPF_PRIVS_H */
