/* SPDX-License-Identifier: BSD-3-Clause */
/* Registration of the engine's log types. */
#include "log.h"

RTE_LOG_REGISTER(mpe_logtype_engine, mpe.engine, INFO);
RTE_LOG_REGISTER(mpe_logtype_config, mpe.config, INFO);
RTE_LOG_REGISTER(mpe_logtype_port, mpe.port, INFO);
RTE_LOG_REGISTER(mpe_logtype_worker, mpe.worker, INFO);
RTE_LOG_REGISTER(mpe_logtype_io, mpe.io, INFO);
