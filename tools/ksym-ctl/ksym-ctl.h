/* SPDX-License-Identifier: GPL-2.0 */
/* ksym-ctl: the subcommands, one file each. */
#ifndef KSYM_CTL_H
#define KSYM_CTL_H

int watch_main(int argc, char **argv);
int unwatch_main(int argc, char **argv);
int clear_main(int argc, char **argv);
int list_main(int argc, char **argv);
int stat_main(int argc, char **argv);
int record_main(int argc, char **argv);
int report_main(int argc, char **argv);
int top_main(int argc, char **argv);
int fields_main(int argc, char **argv);
int reset_main(int argc, char **argv);
int uaf_main(int argc, char **argv);
int local_main(int argc, char **argv);

#endif
