// Long work off the loop hands its core to the loop's thread now and then: the one place that
// asks the platform to.
#ifndef PACING_H
#define PACING_H

/// Marks the calling thread as one that works for the loop, once: it yields to the loop's
/// thread (on Linux its nice value becomes 10, the loop's staying 0; on Apple platforms its
/// quality of service becomes utility), and its pause points (`pacing_pause`) hand its core
/// over.
void pacing_work_for_loop(void);

/// A point where long work may pause. On a thread `pacing_work_for_loop` marked, once at least
/// `pacing_interval_ns` have passed since it last paused, it hands its core to any thread
/// waiting for one (`sched_yield`): the loop's, woken by a client, need not wait for the
/// kernel's next tick (4 ms on Linux at 250 Hz) to preempt the worker. It reads the clock on
/// every 16th call only, so that it can be called per item of a few microseconds' work.
/// Elsewhere, and between those times, it returns at once.
void pacing_pause(void);

/// How long a marked thread works between pauses: 100 µs.
#define pacing_interval_ns 100000

/// The pauses the calling thread has made.
unsigned long pacing_pauses(void);

#endif
