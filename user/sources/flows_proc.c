// SPDX-License-Identifier: GPL-2.0
/*
 * Flow halves from /proc (flows_proc.h). /proc/PID/net/{tcp,tcp6,udp,
 * udp6} list the sockets of PID's network namespace with their inodes;
 * /proc/PID/fd says which of those inodes PID holds. This is the
 * namespace's own view of each address, which is what the other host's
 * half of the flow must mirror. Read at each report, not per packet:
 * a flow is matched by its addresses, which outlive the traffic.
 * Each namespace's tables are read once per collect, however many
 * processes share it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sources/flows_proc.h"
#include "support/array.h"

struct sock_ent {
	unsigned long ino;
	struct sock_flow f;		/* pid and comm filled per process */
};

struct ns_socks {
	unsigned long netns;
	struct sock_ent *v;
	size_t nr, cap;
};

/* include/net/tcp_states.h */
#define TCP_ESTABLISHED	1
#define TCP_LISTEN	10

/*
 * The kernel prints each 32-bit word of an address with %08X as a
 * native integer: storing that integer back gives the bytes in network
 * order again.
 */
static bool parse_end(const char *s, int family, struct flow_end *e)
{
	int words = family == AF_INET ? 1 : 4, i;
	unsigned int port;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < words; i++) {
		unsigned int w;

		if (sscanf(s + 8 * i, "%8X", &w) != 1)
			return false;
		memcpy(e->addr + 4 * i, &w, 4);
	}
	if (s[8 * words] != ':' || sscanf(s + 8 * words + 1, "%X", &port) != 1)
		return false;
	e->family = (__u8)family;
	e->port = (__u16)port;
	return true;
}

static int add_sock(struct ns_socks *ns, const struct sock_ent *s)
{
	if (array_grow(&ns->v, &ns->cap, ns->nr, sizeof(*ns->v), 64))
		return -ENOMEM;
	ns->v[ns->nr++] = *s;
	return 0;
}

static int read_table(struct ns_socks *ns, __u32 pid, const char *name,
		      const char *proto, int family)
{
	char path[64], line[512], l[160], r[160];
	unsigned int st;
	unsigned long ino;
	struct sock_ent s;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/net/%s", pid, name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {	/* the header */
		fclose(f);
		return 0;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		memset(&s, 0, sizeof(s));
		if (sscanf(line, " %*d: %159s %159s %X %*s %*s %*s %*u %*d %lu",
			   l, r, &st, &ino) != 4 || !ino)
			continue;
		if (!parse_end(l, family, &s.f.local) ||
		    !parse_end(r, family, &s.f.remote))
			continue;
		if (st == TCP_ESTABLISHED)
			s.f.state = FLOW_ESTABLISHED;
		else if (st == TCP_LISTEN && !strcmp(proto, "tcp"))
			s.f.state = FLOW_LISTEN;
		else
			continue;	/* UDP: 1 is connected, 7 unconnected */
		snprintf(s.f.proto, sizeof(s.f.proto), "%s", proto);
		s.ino = ino;
		err = add_sock(ns, &s);
	}
	fclose(f);
	return err;
}

static int read_ns(struct ns_socks *ns, __u32 pid)
{
	static const struct {
		const char *name, *proto;
		int family;
	} tables[] = {
		{ "tcp", "tcp", AF_INET },
		{ "tcp6", "tcp", AF_INET6 },
		{ "udp", "udp", AF_INET },
		{ "udp6", "udp", AF_INET6 },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(tables) && !err; i++)
		err = read_table(ns, pid, tables[i].name, tables[i].proto,
				 tables[i].family);
	return err;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The socket inodes @pid holds, sorted; *nr of them. NULL: none. */
static unsigned long *sock_inodes(__u32 pid, size_t *nr)
{
	char path[64], link[64];
	unsigned long *v = NULL, ino;
	size_t cap = 0;
	struct dirent *d;
	DIR *dir;

	*nr = 0;
	snprintf(path, sizeof(path), "/proc/%u/fd", pid);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(dir), d->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (sscanf(link, "socket:[%lu]", &ino) != 1)
			continue;
		if (*nr == cap) {
			unsigned long *nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*nr)++] = ino;
	}
	closedir(dir);
	if (v)
		qsort(v, *nr, sizeof(*v), cmp_ulong);
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

__u32 *flows_task_pids(const struct task_table *t, size_t *nr)
{
	__u32 *pids = calloc(t->nr ? t->nr : 1, sizeof(*pids));
	size_t i, n = 0;

	if (!pids)
		return NULL;
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);

		if (!r->exited && r->pid)
			pids[n++] = r->pid;
	}
	qsort(pids, n, sizeof(*pids), cmp_u32);
	*nr = n;
	return pids;
}

/* The namespace of @netns in @nss, added (its tables read) if new. */
static int ns_of(struct ns_socks **nss, size_t *nr_ns, unsigned long netns,
		 __u32 pid, struct ns_socks **out)
{
	struct ns_socks *v;
	size_t j;

	for (j = 0; j < *nr_ns; j++)
		if ((*nss)[j].netns == netns) {
			*out = &(*nss)[j];
			return 0;
		}
	v = realloc(*nss, (*nr_ns + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*nss = v;
	*out = &v[(*nr_ns)++];
	memset(*out, 0, sizeof(**out));
	(*out)->netns = netns;
	return read_ns(*out, pid);
}

int flows_read_pids(struct flow_table *out, const __u32 *pids, size_t nr)
{
	struct ns_socks *nss = NULL;
	size_t nr_ns = 0, i, j, k;
	int err = 0;

	flows_reset(out);
	for (i = 0; i < nr && !err; i++) {
		char path[64], comm[TDBPF_COMM_LEN + 2] = "";
		struct ns_socks *ns = NULL;
		unsigned long *inos;
		size_t nr_inos;
		struct stat st;
		FILE *f;

		if (i && pids[i] == pids[i - 1])
			continue;
		snprintf(path, sizeof(path), "/proc/%u/ns/net", pids[i]);
		if (stat(path, &st))
			continue;
		inos = sock_inodes(pids[i], &nr_inos);
		if (!inos)
			continue;
		err = ns_of(&nss, &nr_ns, (unsigned long)st.st_ino, pids[i],
			    &ns);
		if (err) {
			free(inos);
			break;
		}
		snprintf(path, sizeof(path), "/proc/%u/comm", pids[i]);
		f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		for (k = 0; k < ns->nr && !err; k++) {
			struct sock_flow fl = ns->v[k].f;

			if (!bsearch(&ns->v[k].ino, inos, nr_inos,
				     sizeof(*inos), cmp_ulong))
				continue;
			fl.pid = pids[i];
			snprintf(fl.comm, sizeof(fl.comm), "%s", comm);
			err = flows_add(out, &fl);
		}
		free(inos);
	}
	for (j = 0; j < nr_ns; j++)
		free(nss[j].v);
	free(nss);
	return err;
}

int flows_collect(struct flow_table *out, const struct task_table *t)
{
	size_t nr = 0;
	__u32 *pids = flows_task_pids(t, &nr);
	int err;

	if (!pids)
		return -ENOMEM;
	err = flows_read_pids(out, pids, nr);
	free(pids);
	return err;
}
