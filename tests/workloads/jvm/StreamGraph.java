// SPDX-License-Identifier: GPL-2.0
/*
 * A JVM stream graph for tdbpf's tests: four stage threads with Flink-like
 * names joined by bounded queues (ArrayBlockingQueue of 4), one of them
 * CPU-heavy, running beside the JVM's own threads (GC, JIT compilers,
 * "VM Periodic Task", "G1 Service", ...), which sleep on timers and that
 * no stage waits on.
 *
 *   Source: gen -> Map -> Filter -> Window agg -> Sink: out
 *
 * usage: java StreamGraph [SECONDS] [HEAVY]
 *   SECONDS  run time (default 3)
 *   HEAVY    the CPU-heavy stage, 0-3 (default 1, Map -> Filter): 400 us
 *            of its own CPU time per record; the others 20 us
 *
 * stdout: "pid=<pid>" first, then at the end "heavy=<name>" and each
 * stage's "stage=<name> records=<n>".
 */
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

public class StreamGraph {
	static final String[] NAMES = { "Source: gen", "Map -> Filter",
					"Window agg", "Sink: out" };

	public static void main(String[] args) throws Exception {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		int heavy = args.length > 1 ? Integer.parseInt(args[1]) : 1;
		@SuppressWarnings("unchecked")
		BlockingQueue<Long>[] q = new BlockingQueue[NAMES.length - 1];
		long[] records = new long[NAMES.length];

		Stages.started();
		for (int i = 0; i < q.length; i++)
			q[i] = new ArrayBlockingQueue<>(4);
		for (int i = 0; i < NAMES.length; i++)
			Stages.stage(NAMES[i], records, i, i > 0 ? q[i - 1] : null,
				     i < q.length ? q[i] : null,
				     (i == heavy ? 400 : 20) * 1000L).start();
		Stages.finish(secs, "heavy=" + NAMES[heavy], NAMES, records);
	}
}
