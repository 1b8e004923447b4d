/*
 * signals.c - the SIGINT/SIGTERM handler of the commands (see signals.h).
 */
#include "cmd/signals.h"

#include <string.h>

volatile sig_atomic_t cmd_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	cmd_interrupted = 1;
}

void cmd_install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
