/* SPDX-License-Identifier: BSD-3-Clause */
/* args.c: mpe-primary's command line: the engine's options after "--", the configuration they
 * name, and the rules for the EAL arguments before it. Main thread, before the EAL starts:
 * everything goes to stdout and stderr, there is no EAL log yet. */
#ifndef MPE_ARGS_H
#define MPE_ARGS_H

/* at most this many EAL arguments are passed on to every worker */
#define MPE_MAX_FWD_ARGS 64

struct mpe_conf;
struct mpe_primary;

struct mpe_args {
	const char *config; /* -c FILE */
	int check;          /* --check: validate the configuration, no EAL */
	int print_config;   /* --print-config */
	int nb_eal;         /* argv[0 .. nb_eal - 1]: the program and the EAL's arguments */
};

/* The engine's options into @a, and those the primary keeps (--secondary, --no-spawn,
 * --idle-exit) into @p; --help and --help-config print and exit 0. 0, or -EINVAL after
 * saying why on stderr. */
int mpe_args_parse(int argc, char **argv, struct mpe_args *a, struct mpe_primary *p);
/* Read and check the configuration @a names into @conf, before any EAL object exists; with
 * --check, say it is fine; with --print-config, print it. 0, or -errno once every error
 * was said on stderr. */
int mpe_args_config(const struct mpe_args *a, struct mpe_conf *conf);
/* The EAL arguments argv[1 .. argc - 1]: refuse the options the engine cannot run with, and
 * those to be passed on to workers that are abbreviated. 0, or -errno after saying why. */
int mpe_args_check_eal(int argc, char **argv);
/* A sanitizer build (MPE_BASE_VIRTADDR_DEFAULT): the EAL arguments argv[0 .. *nb_eal - 1]
 * with --base-virtaddr at that address added when they choose none, into *@argv and
 * *@nb_eal, said on stderr. Any other build: nothing. */
void mpe_args_base_default(int *nb_eal, char ***argv);
/* The EAL arguments every worker process is given too, as written (--file-prefix apart: the
 * workers get it as the EAL took it), into @out, at most @max (@out NULL: only counted).
 * How many, or -errno after saying why on stderr. */
int mpe_args_eal_forwarded(int argc, char **argv, char **out, int max);

#endif
