/* SPDX-License-Identifier: BSD-3-Clause */
/* Log types of the engine, one per module ("mpe.<module>"): --log-level=mpe.*:debug works. */
#ifndef MPE_LOG_H
#define MPE_LOG_H

#include <rte_log.h>

extern int mpe_logtype_engine;
extern int mpe_logtype_config;
extern int mpe_logtype_port;
extern int mpe_logtype_worker;
extern int mpe_logtype_io;

#define MPE_LOG(level, module, fmt, ...)                                                    \
	rte_log(RTE_LOG_##level, mpe_logtype_##module, "mpe." #module ": " fmt "\n",       \
		##__VA_ARGS__)

#endif
