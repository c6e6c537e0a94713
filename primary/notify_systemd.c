/* SPDX-License-Identifier: BSD-3-Clause */
/* notify.h through libsystemd's sd_notify (sd_notify(3), sd_watchdog_enabled(3)). */
#include <time.h>

#include <systemd/sd-daemon.h>

#include "clock.h"
#include "notify.h"

static uint64_t watchdog_ns;	   /* half the manager's interval; 0: no watchdog */
static uint64_t next_ping_ns;	   /* the supervision loop's only */

int
mpe_notify_built(void)
{
	return 1;
}

uint64_t
mpe_notify_init(void)
{
	uint64_t usec = 0;

	/* 0 keeps $WATCHDOG_USEC for the pings' interval; > 0 only for this very process */
	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	watchdog_ns = usec * 1000 / 2;
	return usec;
}

void
mpe_notify_ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void
mpe_notify_status(const char *status)
{
	sd_notifyf(0, "STATUS=%s", status);
}

void
mpe_notify_watchdog(void)
{
	uint64_t now;

	if (watchdog_ns == 0)
		return;
	now = mpe_clock_ns(CLOCK_MONOTONIC);
	if (now < next_ping_ns)
		return;
	next_ping_ns = now + watchdog_ns;
	sd_notify(0, "WATCHDOG=1");
}

void
mpe_notify_reloading(void)
{
	/* MONOTONIC_USEC: what Type=notify-reload (systemd 253) asks for with it */
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)(mpe_clock_ns(CLOCK_MONOTONIC) / 1000));
}

void
mpe_notify_reloaded(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void
mpe_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}
