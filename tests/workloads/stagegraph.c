// SPDX-License-Identifier: GPL-2.0
/*
 * stagegraph: a stream graph described on the command line, for checking
 * tdbpf's bottleneck verdict against causal truth: speed one stage up
 * (-S NAME:2) and see what the graph's throughput does.
 *
 * usage: stagegraph [-m MODE] [-d SECS] [-w SECS] [-q CAP] [-r BYTES]
 *                   [-x N[@CPU]] [-S NAME:FACTOR]... STAGE...
 *   -m MODE   threads: one process, a thread per stage, bounded queues of
 *                      CAP records (mutex and condition variables)
 *             unix, tcp, udp: a process per stage, each edge a socket on
 *                      loopback (Unix stream pair; TCP with small buffers;
 *                      UDP connected pairs with CAP credits for flow
 *                      control, as loopback UDP drops rather than blocks)
 *             pipe:    a process per stage, each edge a pipe of the
 *                      smallest size the kernel allows at or above
 *                      CAP records (a page at the defaults)
 *   -d SECS   throughput measured over SECS (default 2) after
 *   -w SECS   a warm-up of SECS (default 0.5)
 *   -q CAP    records in flight per edge (default 4)
 *   -r BYTES  record size on sockets (default 1024)
 *   -x N[@CPU]  N noisy neighbours: processes named "noisy" that burn CPU,
 *             pinned to CPU if given; not part of the graph
 *   -S NAME:FACTOR  speed stage NAME up: its cpu, lock and sleep per
 *             record are divided by FACTOR (same as speed= in its spec)
 *
 *   STAGE is NAME[:KEY=VAL[,KEY=VAL...]] with keys
 *     from=A[+B...]  its inputs (default the stage before; none for the
 *                    first; "from=" none, another source): two or more
 *                    is a fan-in, read in turn; a
 *                    stage several others read from fans out in turn
 *     cpu=US         CPU work per record (its own CPU clock)
 *     sleep=US       a wait in nanosleep per record (timer slack 1 ns)
 *     lock=US        CPU work per record holding the graph's one lock
 *                    (process-shared), which every stage with lock= takes
 *     speed=F        speed-up factor (default 1)
 *     pin=CPU        run on CPU only
 *     cg=DIR         join the cgroup DIR (v1 tasks; v2 cgroup.threads, or
 *                    cgroup.procs in a process mode)
 *   A stage without inputs is a source (makes records as fast as its work
 *   lets it); one nobody reads is a sink (counts them).
 *
 * stdout: "pid=<pid>"; once every stage runs, one line per stage,
 * "stage=<name> pid=<pid> tid=<tid>", and "noisy pid=<pid>" per neighbour,
 * then "ready"; at the end "throughput=<records/s> window_s=<secs>" (the
 * sinks' records over the window) and per stage
 * "stage=<name> pid=<pid> tid=<tid> records=<n> cpu_ns=<ns>".
 * Exits 2 on a bad argument, with one line saying which.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "workload.h"

#define MAX_STAGES	16
#define MAX_EDGES	32
#define MAX_NOISY	8

enum mode { M_THREADS, M_UNIX, M_TCP, M_UDP, M_PIPE, NMODES };

static const char *const mode_name[NMODES] = { "threads", "unix", "tcp",
					       "udp", "pipe" };

struct stage {
	char name[16];
	long long cpu_ns, sleep_ns, lock_ns;
	double speed;
	int pin;		/* -1: anywhere */
	const char *cg;
	char from[MAX_STAGES][16];
	int nfrom;
	int in[MAX_STAGES], nin;	/* edge indexes */
	int out[MAX_STAGES], nout;
};

/* What the stages share, in memory that survives fork. */
struct shared {
	pthread_mutex_t lock;
	atomic_int started, stop;
	pid_t pid[MAX_STAGES], tid[MAX_STAGES];
	atomic_long records[MAX_STAGES];
	atomic_llong cpu_ns[MAX_STAGES];
};

/*
 * An edge: a queue between threads, or a socket's two ends (fd[0] the
 * writer's, fd[1] the reader's); credits: UDP's records still allowed in
 * flight, known to the writer.
 */
struct edge {
	int from, to;
	struct wq q;
	int fd[2];
	int credits;
};

static struct stage st[MAX_STAGES];
static struct edge edges[MAX_EDGES];
static int nstages, nedges, qcap = 4, rbytes = 1024;
static enum mode mode = M_THREADS;
static struct shared *sh;

static void die2(const char *fmt, const char *arg)
{
	fprintf(stderr, "stagegraph: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static int stage_index(const char *name)
{
	for (int i = 0; i < nstages; i++)
		if (!strcmp(st[i].name, name))
			return i;
	return -1;
}

/* ---------------------------------------------------------- transports */

static void full_io(int fd, char *buf, size_t len, bool wr)
{
	while (len) {
		ssize_t n = wr ? write(fd, buf, len) : read(fd, buf, len);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			_exit(0);	/* the other end went away: stop */
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void q_send(struct edge *e, char *rec)
{
	wq_push(&e->q, *(uint64_t *)rec);
}

static void q_recv(struct edge *e, char *rec)
{
	uint64_t v = 0;

	wq_pop(&e->q, &v);
	*(uint64_t *)rec = v;
}

static void stream_send(struct edge *e, char *rec)
{
	full_io(e->fd[0], rec, rbytes, true);
}

static void stream_recv(struct edge *e, char *rec)
{
	full_io(e->fd[1], rec, rbytes, false);
}

/* UDP: a record costs a credit; the reader returns one per record read. */
static void udp_send(struct edge *e, char *rec)
{
	char c;

	while (e->credits == 0)
		if (recv(e->fd[0], &c, 1, 0) == 1)
			e->credits++;
	if (send(e->fd[0], rec, rbytes, 0) == rbytes)
		e->credits--;
}

static void udp_recv(struct edge *e, char *rec)
{
	char c = 'c';

	while (recv(e->fd[1], rec, rbytes, 0) != rbytes)
		;
	send(e->fd[1], &c, 1, 0);
}

static const struct transport {
	void (*send)(struct edge *e, char *rec);
	void (*recv)(struct edge *e, char *rec);
} transport[NMODES] = {
	[M_THREADS] = { q_send, q_recv },
	[M_UNIX] = { stream_send, stream_recv },
	[M_TCP] = { stream_send, stream_recv },
	[M_UDP] = { udp_send, udp_recv },
	[M_PIPE] = { stream_send, stream_recv },
};

static void small_buffers(int fd)
{
	int sz = qcap * rbytes;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int loopback_socket(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, type, 0);

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    getsockname(fd, (struct sockaddr *)a, &len)) {
		perror("stagegraph: loopback socket");
		exit(1);
	}
	return fd;
}

/* The two ends of edge @e in the chosen mode. */
static void edge_open(struct edge *e)
{
	struct sockaddr_in a, b;
	int one = 1, l, p[2];

	switch (mode) {
	case M_THREADS:
		wq_init(&e->q, qcap);
		return;
	case M_UNIX:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, e->fd))
			break;
		small_buffers(e->fd[0]);
		small_buffers(e->fd[1]);
		return;
	case M_TCP:
		l = loopback_socket(SOCK_STREAM, &a);
		small_buffers(l);	/* accepted sockets inherit it */
		e->fd[0] = socket(AF_INET, SOCK_STREAM, 0);
		small_buffers(e->fd[0]);
		if (listen(l, 1) ||
		    connect(e->fd[0], (struct sockaddr *)&a, sizeof(a)))
			break;
		e->fd[1] = accept(l, NULL, NULL);
		close(l);
		setsockopt(e->fd[0], IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
		if (e->fd[1] >= 0)
			return;
		break;
	case M_UDP:
		e->fd[0] = loopback_socket(SOCK_DGRAM, &a);
		e->fd[1] = loopback_socket(SOCK_DGRAM, &b);
		e->credits = qcap;
		if (!connect(e->fd[0], (struct sockaddr *)&b, sizeof(b)) &&
		    !connect(e->fd[1], (struct sockaddr *)&a, sizeof(a)))
			return;
		break;
	case M_PIPE:
		/* a pipe's ends the other way round: p[1] is the writer's */
		if (pipe(p))
			break;
		e->fd[0] = p[1];
		e->fd[1] = p[0];
		/* the kernel rounds up to a page, its least */
		fcntl(p[1], F_SETPIPE_SZ, qcap * rbytes);
		return;
	case NMODES:
		break;
	}
	perror("stagegraph: an edge's sockets");
	exit(1);
}

/* ----------------------------------------------------------- stages */

static void sleep_ns(long long ns)
{
	struct timespec ts = { ns / NSEC, ns % NSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Put the calling task in cgroup @dir: v1's tasks, else v2's files. */
static void join_cgroup(const char *dir, pid_t tid)
{
	static const char *const files[] = { "tasks", "cgroup.threads",
					     "cgroup.procs" };
	char path[512];
	FILE *f;

	for (unsigned int i = 0; i < 3; i++) {
		/* cgroup.procs moves the whole process: only a stage's own */
		if (i == 2 && mode == M_THREADS)
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		f = fopen(path, "w");
		if (!f)
			continue;
		fprintf(f, "%d\n", i == 2 ? getpid() : tid);
		if (!fclose(f))
			return;
	}
	fprintf(stderr, "stagegraph: cannot join cgroup %s (%s); check the directory exists and that you are root\n",
		dir, strerror(errno));
	exit(1);
}

static void stage_run(int i)
{
	struct stage *s = &st[i];
	const struct transport *t = &transport[mode];
	char rec[65536] = { 0 };
	unsigned int rin = 0, rout = 0;
	uint64_t seq = 0;
	double f = s->speed;

	prctl(PR_SET_NAME, s->name);
	prctl(PR_SET_TIMERSLACK, 1UL);	/* sleep= means what it says */
	sh->pid[i] = getpid();
	sh->tid[i] = (pid_t)syscall(SYS_gettid);
	if (s->pin >= 0)
		pin_cpu(s->pin);
	if (s->cg)
		join_cgroup(s->cg, sh->tid[i]);
	atomic_fetch_add(&sh->started, 1);
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		if (s->nin) {
			t->recv(&edges[s->in[rin]], rec);
			rin = (rin + 1) % s->nin;
		} else {
			*(uint64_t *)rec = seq++;
		}
		if (s->cpu_ns)
			burn_ns((long long)(s->cpu_ns / f));
		if (s->lock_ns) {
			pthread_mutex_lock(&sh->lock);
			burn_ns((long long)(s->lock_ns / f));
			pthread_mutex_unlock(&sh->lock);
		}
		if (s->sleep_ns)
			sleep_ns((long long)(s->sleep_ns / f));
		if (s->nout) {
			t->send(&edges[s->out[rout]], rec);
			rout = (rout + 1) % s->nout;
		}
		atomic_fetch_add_explicit(&sh->records[i], 1,
					  memory_order_relaxed);
		atomic_store_explicit(&sh->cpu_ns[i],
				      clock_ns(CLOCK_THREAD_CPUTIME_ID),
				      memory_order_relaxed);
	}
}

static void *stage_thread(void *arg)
{
	stage_run((int)(intptr_t)arg);
	return NULL;
}

static void noisy(int cpu)
{
	volatile uint64_t x = 1;

	prctl(PR_SET_NAME, "noisy");
	if (cpu >= 0)
		pin_cpu(cpu);
	for (;;)
		x = x * 6364136223846793005ULL + 1;
}

/* -------------------------------------------------------- arguments */

static long long parse_us(const char *v, const char *key)
{
	return parse_num(v, key, 0, 10000000) * 1000LL;
}

static void parse_stage(char *spec)
{
	struct stage *s;
	char *kv, *save = NULL, *opts = strchr(spec, ':');
	bool from_set = false;

	if (nstages == MAX_STAGES)
		die2("at most %s stages", "16");
	s = &st[nstages];
	s->speed = 1;
	s->pin = -1;
	if (opts)
		*opts++ = '\0';
	if (!*spec || strlen(spec) >= sizeof(s->name) || strchr(spec, '='))
		die2("'%s': a stage wants a name of 1-15 characters first", spec);
	if (stage_index(spec) >= 0)
		die2("stage '%s' named twice", spec);
	strcpy(s->name, spec);
	for (kv = opts ? strtok_r(opts, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (!v)
			die2("'%s': stage options are KEY=VALUE", kv);
		*v++ = '\0';
		if (!strcmp(kv, "cpu")) {
			s->cpu_ns = parse_us(v, "cpu=");
		} else if (!strcmp(kv, "sleep")) {
			s->sleep_ns = parse_us(v, "sleep=");
		} else if (!strcmp(kv, "lock")) {
			s->lock_ns = parse_us(v, "lock=");
		} else if (!strcmp(kv, "speed")) {
			s->speed = parse_secs(v, "speed=");
		} else if (!strcmp(kv, "pin")) {
			s->pin = (int)parse_num(v, "pin=", 0, CPU_SETSIZE - 1);
		} else if (!strcmp(kv, "cg")) {
			s->cg = v;
		} else if (!strcmp(kv, "from")) {
			char *save2 = NULL, *n;

			from_set = true;
			for (n = strtok_r(v, "+", &save2); n;
			     n = strtok_r(NULL, "+", &save2)) {
				if (s->nfrom == MAX_STAGES ||
				    strlen(n) >= sizeof(s->from[0]))
					die2("from=%s: too many or too long", n);
				strcpy(s->from[s->nfrom++], n);
			}
		} else {
			die2("unknown stage option '%s' (cpu, sleep, lock, speed, pin, cg, from)",
			     kv);
		}
	}
	/* by default a chain: the stage before feeds this one; "from="
	 * (empty) makes another source */
	if (!from_set && nstages)
		strcpy(s->from[s->nfrom++], st[nstages - 1].name);
	nstages++;
}

/* Edges from every stage's from= list, checked. */
static void build_edges(void)
{
	for (int i = 0; i < nstages; i++) {
		for (int k = 0; k < st[i].nfrom; k++) {
			int src = stage_index(st[i].from[k]);
			struct edge *e = &edges[nedges];

			if (src < 0)
				die2("from=%s: no such stage", st[i].from[k]);
			if (src == i)
				die2("stage '%s' reads from itself", st[i].name);
			if (nedges == MAX_EDGES)
				die2("at most %s edges", "32");
			e->from = src;
			e->to = i;
			st[i].in[st[i].nin++] = nedges;
			st[src].out[st[src].nout++] = nedges;
			nedges++;
		}
	}
}

static void set_speed(char *arg)
{
	char *c = strrchr(arg, ':');
	int i;

	if (!c)
		die2("-S %s: wants NAME:FACTOR", arg);
	*c = '\0';
	i = stage_index(arg);
	if (i < 0)
		die2("-S: no stage '%s'", arg);
	st[i].speed = parse_secs(c + 1, "-S factor");
}

static long sink_records(void)
{
	long n = 0;

	for (int i = 0; i < nstages; i++)
		if (!st[i].nout)
			n += atomic_load(&sh->records[i]);
	return n;
}

/*
 * A child killed with its parent: a stagegraph stopped by a signal (a
 * caller's timeout) leaves no stage burning CPU under the next run.
 */
static void dies_with(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
}

int main(int argc, char **argv)
{
	pid_t parent;
	pthread_mutexattr_t ma;
	pthread_t th[MAX_STAGES];
	pid_t child[MAX_STAGES + MAX_NOISY], nz[MAX_NOISY];
	char *speeds[MAX_STAGES];
	int nspeeds = 0, nnoisy = 0, noisy_cpu = -1, opt, i, k;
	double secs = 2, warm = 0.5;
	long long t0, t1;
	long r0, r1;

	while ((opt = getopt(argc, argv, "m:d:w:q:r:x:S:")) != -1) {
		switch (opt) {
		case 'm':
			for (k = 0; k < NMODES && strcmp(optarg, mode_name[k]);
			     k++)
				;
			if (k == NMODES)
				die2("-m %s: wants threads, unix, tcp, udp or pipe",
				     optarg);
			mode = (enum mode)k;
			break;
		case 'd':
			secs = parse_secs(optarg, "-d");
			break;
		case 'w':
			warm = parse_secs(optarg, "-w");
			break;
		case 'q':
			qcap = (int)parse_num(optarg, "-q", 1, WQ_MAX);
			break;
		case 'r':
			rbytes = (int)parse_num(optarg, "-r", 8, 65536);
			break;
		case 'x': {
			char *at = strchr(optarg, '@');

			if (at) {
				*at = '\0';
				noisy_cpu = (int)parse_num(at + 1, "-x CPU", 0,
							   CPU_SETSIZE - 1);
			}
			nnoisy = (int)parse_num(optarg, "-x", 0, MAX_NOISY);
			break;
		}
		case 'S':
			if (nspeeds < MAX_STAGES)
				speeds[nspeeds++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: stagegraph [-m threads|unix|tcp|udp|pipe] [-d SECS] [-w SECS] [-q CAP] [-r BYTES] [-x N[@CPU]] [-S NAME:FACTOR] NAME[:cpu=US,sleep=US,lock=US,speed=F,pin=CPU,cg=DIR,from=A+B] ...\n");
			return 2;
		}
	}
	if (optind == argc)
		die2("%s", "no stages: give at least one, e.g. 'src:cpu=50 sink'");
	for (i = optind; i < argc; i++)
		parse_stage(argv[i]);
	for (i = 0; i < nspeeds; i++)
		set_speed(speeds[i]);
	build_edges();

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	for (i = 0; i < nedges; i++)
		edge_open(&edges[i]);
	announce_pid();
	signal(SIGPIPE, SIG_IGN);
	parent = getpid();

	for (i = 0; i < nnoisy; i++) {
		nz[i] = fork();
		if (nz[i] == 0) {
			dies_with(parent);
			noisy(noisy_cpu);
		}
		child[i] = nz[i];
	}
	for (i = 0; i < nstages; i++) {
		if (mode == M_THREADS) {
			if (pthread_create(&th[i], NULL, stage_thread,
					   (void *)(intptr_t)i))
				return 1;
			continue;
		}
		child[nnoisy + i] = fork();
		if (child[nnoisy + i] == 0) {
			dies_with(parent);
			stage_run(i);
			_exit(0);
		}
	}
	while (atomic_load(&sh->started) < nstages)
		usleep(1000);
	for (i = 0; i < nstages; i++)
		printf("stage=%s pid=%d tid=%d\n", st[i].name, sh->pid[i],
		       sh->tid[i]);
	for (i = 0; i < nnoisy; i++)
		printf("noisy pid=%d\n", nz[i]);
	printf("ready\n");

	usleep((useconds_t)(warm * 1e6));
	t0 = clock_ns(CLOCK_MONOTONIC);
	r0 = sink_records();
	usleep((useconds_t)(secs * 1e6));
	t1 = clock_ns(CLOCK_MONOTONIC);
	r1 = sink_records();
	atomic_store(&sh->stop, 1);

	printf("throughput=%.1f window_s=%.3f\n",
	       (double)(r1 - r0) * NSEC / (double)(t1 - t0),
	       (double)(t1 - t0) / NSEC);
	for (i = 0; i < nstages; i++)
		printf("stage=%s pid=%d tid=%d records=%ld cpu_ns=%lld\n",
		       st[i].name, sh->pid[i], sh->tid[i],
		       atomic_load(&sh->records[i]),
		       atomic_load(&sh->cpu_ns[i]));
	/* stages blocked on a queue or socket are not drained: just ended */
	for (i = 0; i < nnoisy + (mode == M_THREADS ? 0 : nstages); i++) {
		kill(child[i], SIGKILL);
		waitpid(child[i], NULL, 0);
	}
	fflush(stdout);
	_exit(0);
}
