# bench/graph/draw.awk: draw N random stream graphs for bench-graph.
# awk -v seed=S -v n=N -f draw.awk -> one line per config:
#   name|shape|transport|slow stage|slowed by|factor|other CPU|stagegraph options|stages
# A shape (chain of 2-6 stages, fan-out, fan-in, diamond), a transport
# (threads over queues, processes over Unix, TCP or UDP sockets or pipes),
# what else the machine runs (nothing; a busy process on CPU 1 at the
# graph's priority; an idle Prometheus and an idle JVM, traced with -a), a base
# per-record CPU work per stage (small or large against the IPC cost), one
# stage slowed by CPU work, a sleep or a lock held, by 1.5x to 10x.
function pick(s,    a, k) { k = split(s, a, " "); return a[int(rand() * k) + 1] }
function base() { return pick("5 10 20 40 80") }
BEGIN {
	srand(seed)
	for (c = 1; c <= n; c++) {
		shape = pick("chain chain fan-out fan-in diamond")
		tr = pick("threads unix tcp udp pipe")
		env = pick("idle busy runtime")
		ns = 0
		if (shape == "chain") {
			k = 2 + int(rand() * 5)
			for (i = 1; i <= k; i++) { nm[++ns] = "s" i; fr[ns] = "" }
		} else if (shape == "fan-out") {
			nm[++ns] = "src"; fr[ns] = ""
			nm[++ns] = "a"; fr[ns] = "src"
			nm[++ns] = "b"; fr[ns] = "src"
			if (rand() < 0.5) { nm[++ns] = "sa"; fr[ns] = "a"; nm[++ns] = "sb"; fr[ns] = "b" }
		} else if (shape == "fan-in") {
			nm[++ns] = "in1"; fr[ns] = ""
			nm[++ns] = "in2"; fr[ns] = "-"
			nm[++ns] = "join"; fr[ns] = "in1+in2"
			if (rand() < 0.5) { nm[++ns] = "sink"; fr[ns] = "join" }
		} else {
			nm[++ns] = "src"; fr[ns] = ""
			nm[++ns] = "left"; fr[ns] = "src"
			nm[++ns] = "right"; fr[ns] = "src"
			nm[++ns] = "join"; fr[ns] = "left+right"
		}
		slow = int(rand() * ns) + 1
		by = pick("cpu cpu sleep lock")
		f = sprintf("%.1f", 1.5 + rand() * 8.5)
		b = base()
		other = slow == 1 ? 2 : 1
		st = ""
		for (i = 1; i <= ns; i++) {
			s = nm[i] ":cpu=" (i == slow && by == "cpu" ? int(b * f) : b)
			if (i == slow && by == "sleep")
				s = s ",sleep=" int(b * f)
			if (by == "lock" && i == slow)
				s = s ",lock=" int(b * f)
			if (by == "lock" && i == other)
				s = s ",lock=" b
			if (fr[i] == "-")
				s = s ",from="
			else if (fr[i] != "")
				s = s ",from=" fr[i]
			st = st (i > 1 ? " " : "") s
		}
		printf "g%02d-%s-%s|%s|%s|%s|%s|%s|%s|-m %s%s|%s\n", c, shape, tr, shape,
			tr, nm[slow], by, f, env, tr, env == "busy" ? " -x 1@1" : "", st
	}
}
