/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's cgroup, container and pod from the text of its
 * /proc/PID/cgroup, as container runtimes name their cgroups:
 *
 *   docker      /docker/ID, /system.slice/docker-ID.scope
 *   podman      /libpod_parent/libpod-ID, /machine.slice/libpod-ID.scope
 *               (v2: .../libpod-ID.scope/container)
 *   containerd  /kubepods/burstable/podUID/ID,
 *               /kubepods.slice/.../kubepods-burstable-podUID.slice/
 *               cri-containerd-ID.scope
 *   CRI-O       .../kubepods-besteffort-podUID.slice/crio-ID.scope
 *
 * ID is 64 hex digits (what `podman inspect --format {{.Id}}` prints);
 * a systemd slice spells the pod UID's dashes as underscores. A
 * runtime's monitor (conmon: libpod-conmon-ID, crio-conmon-ID) is no
 * container. Pure text: unit-tested on each shape, cgroup v1 and v2.
 */
#ifndef TDBPF_CGROUP_PATH_H
#define TDBPF_CGROUP_PATH_H

#include "sums/cgroups.h"

/* The container and pod in one cgroup @path into @c (path untouched). */
void cgroup_parse_path(const char *path, struct task_cgroup *c);
/*
 * From the lines of /proc/PID/cgroup (v2 "0::PATH", v1
 * "N:CONTROLLERS:PATH"): the path that names a container if one does
 * (v2's first, then name=systemd's, then the controllers' in order),
 * else v2's, name=systemd's or the first controller's that is not the
 * root; its container and pod. @c's pid is left as it is.
 */
void cgroup_parse_proc(const char *text, struct task_cgroup *c);

#endif /* TDBPF_CGROUP_PATH_H */
