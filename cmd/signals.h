/*
 * signals.h - SIGINT/SIGTERM for the commands (signals.c): the handler only
 * sets a flag, which the long-running stages poll through their stop
 * pointer and which turns a failure into exit code 130.
 */
#ifndef SCX_CMD_SIGNALS_H
#define SCX_CMD_SIGNALS_H

#include <signal.h>

/* SIGINT/SIGTERM set this; long-running commands poll it. */
extern volatile sig_atomic_t cmd_interrupted;

/* Install the handler (main.c does, before running a command). */
void cmd_install_signal_handlers(void);

#endif
