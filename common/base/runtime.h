/* SPDX-License-Identifier: BSD-3-Clause */
/* What a DPDK process leaves on disk: its hugepage files and runtime directory.
 * Used by the primary at exit, and by the last worker when the primary died. */
#ifndef MPE_RUNTIME_H
#define MPE_RUNTIME_H

/* The hugepage files behind this process's memory segments, found through their
 * descriptors: call before rte_eal_cleanup(), which closes them. */
struct mpe_runtime_files;
struct mpe_runtime_files *mpe_runtime_files_collect(void);
/* Unlink what was collected, and every other hugepage file of the same prefix (segments
 * another process made and left behind), and free the list. */
void mpe_runtime_files_unlink(struct mpe_runtime_files *f);

/* Remove a runtime directory and the files in it (the EAL makes no subdirectories). */
void mpe_runtime_remove_dir(const char *dir);

/* Note where this process's hugepage files and runtime directory are (after rte_eal_init),
 * so that mpe_runtime_remove_now() can remove them from a signal handler; 0 or -errno. */
int mpe_runtime_arm(const char *runtime_dir);
/* Unlink the hugepage files of the prefix armed and remove its runtime directory, with
 * async-signal-safe calls only (open, getdents64, unlinkat, rmdir, close). */
void mpe_runtime_remove_now(void);

#endif
