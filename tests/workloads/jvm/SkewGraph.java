// SPDX-License-Identifier: GPL-2.0
/*
 * A Flink-like JVM stream graph with data skew, for tdbpf's tests: one
 * operator run as three parallel subtasks named as Flink names them,
 * "Map -> Filter (1/3)#0" .. "(3/3)#0" (the kernel keeps 15 bytes of a
 * thread's name: "Map -> Filter (" for all three), the source sending
 * each subtask its records by key, and the hot key (80% of the records)
 * going to one subtask. Queues are bounded (ArrayBlockingQueue of 4), so
 * the source waits on the hot subtask and the rest of the graph on the
 * source or on it.
 *
 *   Source: gen -> Map -> Filter (N/3)#0 x3 -> Window agg -> Sink: out
 *
 * usage: java SkewGraph [SECONDS] [HOT]
 *   SECONDS  run time (default 3)
 *   HOT      the subtask given the hot key, 1-3 (default 2)
 *   Every subtask spends 200 us of its own CPU time per record; source,
 *   agg and sink 20 us.
 *
 * stdout: "pid=<pid>" first, then at the end "hot=<name>" and each
 * thread's "stage=<name> records=<n>".
 */
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

public class SkewGraph {
	static final int PAR = 3;

	public static void main(String[] args) throws Exception {
		double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3;
		int hot = args.length > 1 ? Integer.parseInt(args[1]) - 1 : 1;
		@SuppressWarnings("unchecked")
		BlockingQueue<Long>[] sub = new BlockingQueue[PAR];
		BlockingQueue<Long> agg = new ArrayBlockingQueue<>(4);
		BlockingQueue<Long> sink = new ArrayBlockingQueue<>(4);
		String[] names = new String[PAR + 3];
		long[] records = new long[PAR + 3];
		Thread[] t = new Thread[PAR + 3];

		Stages.started();
		names[0] = "Source: gen";
		for (int i = 0; i < PAR; i++) {
			sub[i] = new ArrayBlockingQueue<>(4);
			names[1 + i] = "Map -> Filter (" + (i + 1) + "/" + PAR +
				       ")#0";
			t[1 + i] = Stages.stage(names[1 + i], records, 1 + i,
						sub[i], agg, 200 * 1000L);
		}
		names[PAR + 1] = "Window agg";
		names[PAR + 2] = "Sink: out";
		t[PAR + 1] = Stages.stage(names[PAR + 1], records, PAR + 1, agg,
					  sink, 20 * 1000L);
		t[PAR + 2] = Stages.stage(names[PAR + 2], records, PAR + 2, sink,
					  null, 20 * 1000L);
		t[0] = new Thread(() -> {
			long v = 0;

			try {
				while (!Stages.stop) {
					/* the hot key: 4 records of 5 */
					int k = v % 5 != 0 ? hot :
						(hot + 1 + (int)(v / 5 % 2)) % PAR;

					Stages.burn(20 * 1000L);
					sub[k].put(v++);
					records[0]++;
				}
			} catch (InterruptedException e) {
				/* stopped */
			}
		}, names[0]);
		t[0].setDaemon(true);
		for (Thread x : t)
			x.start();
		Stages.finish(secs, "hot=" + names[1 + hot], names, records);
	}
}
