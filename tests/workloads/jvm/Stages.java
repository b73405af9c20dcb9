// SPDX-License-Identifier: GPL-2.0
/*
 * What StreamGraph and SkewGraph share: a stage thread that takes a
 * record from its bounded queue, spends its CPU time on it and passes it
 * on, and the run's end (stop the stages, print each one's count).
 * Compiled with them: javac -sourcepath tests/workloads/jvm.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.BlockingQueue;

public class Stages {
	static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
	static volatile boolean stop;
	/* what the stages computed: kept, so that no work is optimized out */
	static volatile long sinkSum;

	/* @ns of the calling thread's own CPU time, whatever its waits */
	static long burn(long ns) {
		long end = MX.getCurrentThreadCpuTime() + ns, x = 1;

		while (MX.getCurrentThreadCpuTime() < end)
			for (int i = 0; i < 200; i++)
				x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	/*
	 * Stage @k named @name: each record from @in (null: the source,
	 * which makes them) costs @work ns of CPU, then goes to @out (null:
	 * the sink), counted in @records[k]. A daemon, not started.
	 */
	static Thread stage(String name, long[] records, int k,
			    BlockingQueue<Long> in, BlockingQueue<Long> out,
			    long work) {
		Thread t = new Thread(() -> {
			long v = 0, acc = 0;

			try {
				while (!stop) {
					if (in != null)
						v = in.take();
					else
						v++;
					acc += burn(work);
					if (out != null)
						out.put(v);
					records[k]++;
				}
			} catch (InterruptedException e) {
				/* stopped */
			}
			sinkSum += acc;
		}, name);
		t.setDaemon(true);
		return t;
	}

	/* The pid line, first: the tests wait for it. */
	static void started() {
		System.out.println("pid=" + ProcessHandle.current().pid());
		System.out.flush();
	}

	/*
	 * Run for @secs, stop; print @what (which stage the run made the
	 * busy one), then each stage's "stage=NAME records=N"; exit.
	 */
	static void finish(double secs, String what, String[] names,
			   long[] records) throws InterruptedException {
		Thread.sleep((long)(secs * 1000));
		stop = true;
		System.out.println(what);
		for (int i = 0; i < names.length; i++)
			System.out.println("stage=" + names[i] + " records=" +
					   records[i]);
		System.exit(0);
	}
}
