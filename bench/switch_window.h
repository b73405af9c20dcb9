/* SPDX-License-Identifier: GPL-2.0 */
/* One slice of a traced task, as bench/switch_window.bpf.c saw it. */
#ifndef SWITCH_WINDOW_H
#define SWITCH_WINDOW_H

struct sw_slice {
	__u32 cpu, pid;
	__u32 from_idle;	/* the switch-in came from the idle task */
	__u32 pad;
	__u64 in_clk, out_clk;	/* cpu-clock at the switch-in, switch-out */
	__u64 in_sum, out_sum;	/* se.sum_exec_runtime then */
	__u64 in_start;		/* se.exec_start at the switch-in */
	__u64 in_rq_clock, out_rq_clock;	/* rq->clock then */
	__u64 in_rq_clock_task;
	__u64 wake_rq_clock;	/* rq->clock at its wakeup, 0 unseen */
};

#endif
