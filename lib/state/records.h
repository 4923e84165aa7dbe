/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record log: what leaders and followers did since boot, one line per step, appended to
 * <run>/pvscan-fast/records so that `pvscan-fast --status` can tell the story without touching
 * a device. Writing costs one write(2) per record (O_APPEND, so concurrent writers never
 * interleave inside a line); the file is bounded (the leader moves a full file to records.old,
 * starting the new one with a "rotated" record); readers take any bytes: a line a writer died
 * in the middle of, junk or a newer version's line is skipped and counted, never fatal.
 *
 * A line, version 1 (PF_RECORDS_MAGIC):
 *   pfr1 <t> <pid> <kind>[ <key>=<value>]...\n
 * t is CLOCK_MONOTONIC in microseconds (shared by every process, counting from boot), pid the
 * writer's, kind and keys [a-z0-9_-]{1,PF_RECORDS_KEY_MAX}; values escape '%', '=', bytes up to
 * space and 0x7f as %XX. Kinds and keys a reader does not know are kept and ignored.
 */
#ifndef PF_RECORDS_H
#define PF_RECORDS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "base/span.h"

#define PF_RECORDS_FILE "records"     /* in <run>/pvscan-fast/ */
#define PF_RECORDS_OLD "records.old"  /* the generation before */
#define PF_RECORDS_MAGIC "pfr1"
/* One line, newline included; longer values are cut (marked with a trailing "..."). */
#define PF_RECORDS_LINE_MAX 1024U
#define PF_RECORDS_FIELDS_MAX 16U
#define PF_RECORDS_KEY_MAX 15U
#define PF_RECORDS_VALUE_MAX 511U
/* A generation's size: past it the leader rotates; followers stop adding at twice that. */
#define PF_RECORDS_FILE_MAX (1U << 20)

struct pf_records_field {
	char key[PF_RECORDS_KEY_MAX + 1];
	char value[PF_RECORDS_VALUE_MAX + 1]; /* unescaped; may hold any byte but NUL */
};

/* One decoded line. */
struct pf_records_entry {
	uint64_t t_us;
	uint32_t pid;
	char kind[PF_RECORDS_KEY_MAX + 1];
	size_t n_fields;
	struct pf_records_field fields[PF_RECORDS_FIELDS_MAX];
};

/* The value of key in e, or NULL. */
const char *pf_records_get(const struct pf_records_entry *e, const char *key) _nonnull_(1, 2)
	_pure_;

/*
 * Pure: decode the line at the start of buf (up to and without its '\n'). -EBADMSG for anything
 * that is not a whole version-1 line: no newline (a torn last line), bad magic, numbers or
 * names, a bad escape, a field without '=', too many fields. *ret is meaningless on failure.
 */
int pf_records_decode(struct pf_span line, struct pf_records_entry *ret) _nonnull_(2)
	_must_check_;

/*
 * Pure: the next line of buf from *off: *off moves past it (and past its newline, if any).
 * Returns 1 with *ret for a good line, 0 for a line that could not be decoded (skipped), -1 at
 * the end of buf. A last line without its newline is taken as torn: 0.
 */
int pf_records_next(struct pf_span buf, size_t *off, struct pf_records_entry *ret)
	_nonnull_(2, 3);

/*
 * Pure: encode a record into buf (at least PF_RECORDS_LINE_MAX bytes): kind, then n key/value
 * pairs (kv[2i], kv[2i+1]; a NULL value leaves the pair out). Values that do not fit are cut.
 * Returns the line's length, newline included, or -EINVAL for a bad kind or key.
 */
int pf_records_encode(char *buf, uint64_t t_us, uint32_t pid, const char *kind,
		      const char *const *kv, size_t n) _nonnull_(1, 4);

/* Called with every record added, for the journal; fields as encoded. */
typedef void (*pf_records_hook_fn)(const char *kind, const char *const *kv, size_t n,
				   const char *line);

struct pf_records {
	int dir_fd;	  /* <run>/pvscan-fast, -1 when the log cannot be used */
	int fd;		  /* records, opened on first use */
	bool may_rotate;  /* the leader lock is ours: nobody else rotates */
	uint64_t size;	  /* what we know of the file's size */
	unsigned dropped; /* records not written (file full, write failed) */
	pf_records_hook_fn hook;
};

/*
 * Open the log of run_dir (creating <run>/pvscan-fast when missing, as the queue does). A log
 * that cannot be opened leaves w unusable and every add a no-op: records are never a reason to
 * fail. may_rotate: only the leader-lock holder.
 */
void pf_records_open(const char *run_dir, bool may_rotate, struct pf_records *w) _nonnull_(1, 3);
void pf_records_close(struct pf_records *w);

/*
 * Append a record: kind, then pairs of const char *key, const char *value ending with a NULL
 * key (a NULL value leaves its pair out). One write(2). Nothing is reported on failure but
 * w->dropped.
 */
void pf_records_add(struct pf_records *w, const char *kind, ...) __attribute__((sentinel));
void pf_records_addv(struct pf_records *w, const char *kind, const char *const *kv, size_t n)
	_nonnull_(2);

/*
 * Read both generations (records.old first) into one buffer, each capped at twice
 * PF_RECORDS_FILE_MAX. Missing files are empty. 0 with *ret (free()) and *ret_len, or -errno.
 */
int pf_records_read(const char *run_dir, char **ret, size_t *ret_len) _nonnull_(1, 2, 3)
	_must_check_;

#endif /* PF_RECORDS_H */
