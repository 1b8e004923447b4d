/*
 * error.h - how library code reports failure.
 *
 * Library functions never print. A failing function records one line of text
 * (naming the file and what is wrong) with scx_fail() and returns -1 (or NULL);
 * the caller that decides to give up prints scx_errmsg(). The message lives in
 * a thread-local buffer, so it is only valid until the next scx_fail() on the
 * same thread.
 */
#ifndef SCX_ERROR_H
#define SCX_ERROR_H

/* Set the current error message (printf format). Always returns -1. */
int scx_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like scx_fail() but appends ": strerror(errno)" using the errno at entry. */
int scx_fail_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Put context in front of the current message: "PREFIX: MESSAGE" (printf
 * format for PREFIX). Use it instead of scx_fail("%s: %s", x, scx_errmsg()),
 * which would format the buffer into itself. Always returns -1.
 */
int scx_fail_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last message set on this thread ("" if none). */
const char *scx_errmsg(void);

/* Forget the current message. */
void scx_clear_error(void);

#endif
