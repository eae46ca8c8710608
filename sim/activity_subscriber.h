/* The simulated runtimes' per-op reports, for a face's profiling library (libcnpapi, libmspti,
   libmupti in sim/activity_libs/): sim-private, not a vendor interface. Each face library
   (libcnrt.so, libascendcl.so, libmusart.so, libamdhip64.so.5) exports
   prof_sim_activity_subscribe; a profiling library finds it in its face with
   dlopen(face, RTLD_NOLOAD) + dlsym, as a real one reaches its driver through private calls. */
#ifndef PROF_SIM_ACTIVITY_SUBSCRIBER_H
#define PROF_SIM_ACTIVITY_SUBSCRIBER_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum prof_sim_op_kind { PROF_SIM_OP_KERNEL = 0, PROF_SIM_OP_COPY = 1, PROF_SIM_OP_MEMSET = 2 };
/* A copy's direction, as the model knows it. */
enum prof_sim_copy_direction {
  PROF_SIM_COPY_H2D = 0,
  PROF_SIM_COPY_D2H = 1,
  PROF_SIM_COPY_D2D = 2,
  PROF_SIM_COPY_H2H = 3,
  PROF_SIM_COPY_P2P = 4
};

struct prof_sim_op_report {
  uint64_t correlation_id; /* the id on_enqueue was told */
  uint32_t kind;           /* prof_sim_op_kind */
  uint32_t direction;      /* prof_sim_copy_direction (copies) */
  int device;
  uint64_t stream;   /* the stream's handle value, as the application passes it */
  uint64_t begin_ns; /* device begin and end, CLOCK_MONOTONIC ns */
  uint64_t end_ns;
  uint64_t bytes;   /* copies and memsets */
  const char* name; /* kernels: the registered name, or NULL; valid during the call */
  uint32_t grid[3];
  uint32_t block[3];
};

struct prof_sim_activity_subscriber {
  /* Bit (1 << prof_sim_op_kind) for each kind the subscriber wants reported. */
  uint32_t kinds;
  /* On the thread whose API call enqueues the op, inside that call (under the model's lock: it
     must not call the runtime). */
  void (*on_enqueue)(uint64_t correlation_id, uint32_t kind, void* arg);
  /* Once per op, when its device times are final: on a stream's worker thread, or on the calling
     thread inside a blocking call. Must not call the runtime. */
  void (*on_done)(const struct prof_sim_op_report* report, void* arg);
  void* arg;
};

/* Adds (or, with kinds == 0 for the same on_done, removes) a subscriber; at most 4. Returns 0,
   or -1 when all slots are taken. The structure is copied. */
typedef int (*prof_sim_activity_subscribe_t)(const struct prof_sim_activity_subscriber* subscriber);

#ifdef __cplusplus
}
#endif
#endif
