// SPDX-License-Identifier: GPL-2.0
/*
 * An idle service JVM for tdbpf's whole-host tests: a timer pool
 * ("scheduler-tick") hands a token to a worker pool ("worker-N") every
 * 2 ms, and the workers do next to nothing with it. Tasks that wake each
 * other and do no work: no stage of anything, never a bottleneck.
 *
 * usage: java IdlePool [SECONDS]   (default 10)
 * stdout: "pid=<pid>" first.
 */
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public class IdlePool {
	public static void main(String[] args) throws Exception {
		long secs = args.length > 0 ? Long.parseLong(args[0]) : 10;
		AtomicInteger n = new AtomicInteger();
		AtomicLong tokens = new AtomicLong();
		ExecutorService workers = Executors.newFixedThreadPool(4, r -> {
			Thread t = new Thread(r, "worker-" + n.incrementAndGet());
			t.setDaemon(true);
			return t;
		});
		ScheduledExecutorService tick =
			Executors.newSingleThreadScheduledExecutor(r -> {
				Thread t = new Thread(r, "scheduler-tick");
				t.setDaemon(true);
				return t;
			});

		System.out.println("pid=" + ProcessHandle.current().pid());
		System.out.flush();
		tick.scheduleAtFixedRate(() -> workers.execute(tokens::incrementAndGet),
					 2, 2, TimeUnit.MILLISECONDS);
		Thread.sleep(secs * 1000);
		System.out.println("tokens=" + tokens.get());
	}
}
