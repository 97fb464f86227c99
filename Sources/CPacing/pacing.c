#include "pacing.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__APPLE__)
#include <pthread/qos.h>
#endif

/// Calls to `pacing_pause` between two readings of the clock.
enum { calls_per_reading = 16 };

static _Thread_local int works_for_loop = 0;
static _Thread_local int calls_before_reading = 0;
static _Thread_local uint64_t last_pause_ns = 0;
static _Thread_local unsigned long pauses = 0;

static uint64_t now_ns(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

void pacing_work_for_loop(void) {
  if (works_for_loop) return;
#if defined(__linux__)
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#elif defined(__APPLE__)
  pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
#endif
  works_for_loop = 1;
  last_pause_ns = now_ns();
}

void pacing_pause(void) {
  if (!works_for_loop || --calls_before_reading > 0) return;
  calls_before_reading = calls_per_reading;
  uint64_t now = now_ns();
  if (now - last_pause_ns < pacing_interval_ns) return;
  sched_yield();
  pauses += 1;
  last_pause_ns = now_ns();
}

unsigned long pacing_pauses(void) { return pauses; }
