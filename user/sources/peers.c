// SPDX-License-Identifier: GPL-2.0
/* Socket peers' names, from /proc (see peers.h). */
#include <stdio.h>
#include <string.h>
#include "sources/peers.h"

const char *peer_comm(__u32 pid, __u32 tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	/* the task under its process: a reused tid of another is not it */
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid,
		 tid ? tid : pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = 0;
	return n ? buf : NULL;
}
