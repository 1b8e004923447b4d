/*
 * commands.h - the subcommands of scxprof, one entry point each (git's
 * builtin table shape), and the exit codes they share.
 */
#ifndef SCX_COMMANDS_H
#define SCX_COMMANDS_H

enum exit_code { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

int cmd_record(int argc, char **argv);
int cmd_process(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
