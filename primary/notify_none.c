/* SPDX-License-Identifier: BSD-3-Clause */
/* notify.h without libsystemd (meson -Dsystemd=disabled, or no libsystemd-dev): nothing is
 * sent; an engine started by systemd must then run as Type=simple. */
#include "notify.h"

int
mpe_notify_built(void)
{
	return 0;
}

uint64_t
mpe_notify_init(void)
{
	return 0;
}

void
mpe_notify_ready(const char *status)
{
	(void)status;
}

void
mpe_notify_status(const char *status)
{
	(void)status;
}

void
mpe_notify_watchdog(void)
{
}

void
mpe_notify_reloading(void)
{
}

void
mpe_notify_reloaded(const char *status)
{
	(void)status;
}

void
mpe_notify_stopping(void)
{
}
