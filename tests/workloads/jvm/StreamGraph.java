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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

public class StreamGraph {
	static final String[] NAMES = { "Source: gen", "Map -> Filter",
					"Window agg", "Sink: out" };
	static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
	static volatile boolean stop;
	static volatile long sinkSum;

	/* @ns of the calling thread's own CPU time, whatever its waits */
	static long burn(long ns) {
		long end = MX.getCurrentThreadCpuTime() + ns, x = 1;

		while (MX.getCurrentThreadCpuTime() < end)
			for (int i = 0; i < 200; i++)
				x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	public static void main(String[] args) throws Exception {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		int heavy = args.length > 1 ? Integer.parseInt(args[1]) : 1;
		@SuppressWarnings("unchecked")
		BlockingQueue<Long>[] q = new BlockingQueue[NAMES.length - 1];
		Thread[] t = new Thread[NAMES.length];
		long[] records = new long[NAMES.length];

		System.out.println("pid=" + ProcessHandle.current().pid());
		System.out.flush();
		for (int i = 0; i < q.length; i++)
			q[i] = new ArrayBlockingQueue<>(4);
		for (int i = 0; i < NAMES.length; i++) {
			final int k = i;
			final long work = (k == heavy ? 400 : 20) * 1000L;

			t[i] = new Thread(() -> {
				long v = 0, acc = 0;

				try {
					while (!stop) {
						if (k > 0)
							v = q[k - 1].take();
						else
							v++;
						acc += burn(work);
						if (k < q.length)
							q[k].put(v);
						records[k]++;
					}
				} catch (InterruptedException e) {
					/* stopped */
				}
				if (k == NAMES.length - 1)
					sinkSum = acc;
			}, NAMES[i]);
			t[i].setDaemon(true);
			t[i].start();
		}
		Thread.sleep((long)(secs * 1000));
		stop = true;
		System.out.println("heavy=" + NAMES[heavy]);
		for (int i = 0; i < NAMES.length; i++)
			System.out.println("stage=" + NAMES[i] + " records=" +
					   records[i]);
		System.exit(0);
	}
}
