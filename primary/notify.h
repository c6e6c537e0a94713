/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine under a service manager (docs/service.md): systemd's notify protocol, through
 * libsystemd's sd_notify (notify_systemd.c), or nothing when the engine is built without it
 * (notify_none.c, meson option systemd). Each call does nothing when the engine was not
 * started by a manager that listens ($NOTIFY_SOCKET unset). Thread-safe. */
#ifndef MPE_NOTIFY_H
#define MPE_NOTIFY_H

#include <stdint.h>

/* Whether the engine is built with the notifications (for --version and the start log). */
int mpe_notify_built(void);
/* The manager's watchdog interval in microseconds ($WATCHDOG_USEC, for this process), 0:
 * none. Call before any other. */
uint64_t mpe_notify_init(void);
/* Every worker is ready and the ports run: READY=1, with @status. */
void mpe_notify_ready(const char *status);
/* A line for `systemctl status`. */
void mpe_notify_status(const char *status);
/* From the supervision loop: WATCHDOG=1 at half the interval at most; a supervisor that stops
 * looping stops the pings, and the manager restarts the engine. */
void mpe_notify_watchdog(void);
/* Around a rules reload: RELOADING=1, then READY=1 with @status. */
void mpe_notify_reloading(void);
void mpe_notify_reloaded(const char *status);
/* The stop has begun: STOPPING=1. */
void mpe_notify_stopping(void);

#endif
