/*
 * commands.h - the subcommands of scxprof, one entry point each (git's
 * builtin table shape), and the exit codes they share.
 */
#ifndef SCX_COMMANDS_H
#define SCX_COMMANDS_H

#include <signal.h>

enum exit_code { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

int cmd_record(int argc, char **argv);
int cmd_process(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* SIGINT/SIGTERM set this; long-running commands poll it. */
extern volatile sig_atomic_t scx_interrupted;
void install_signal_handlers(void);

#endif
