/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Without libFuzzer: feed every file of a fuzz target's seed corpus to it once (make check). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME must name the target's corpus directory, e.g. -DFUZZ_NAME='\"cfg\"'"
#endif

/* Seeds are small; anything bigger is a mistake in the corpus, not an input to try. */
#define REPLAY_FILE_MAX ((size_t)16 << 20)

/* Whole file into a fresh buffer; -EFBIG past the cap. */
static int read_file(int dirfd, const char *name, uint8_t **ret, size_t *ret_size)
{
	char *buf;
	int r = pf_read_file_at(dirfd, name, REPLAY_FILE_MAX, &buf, ret_size);

	if (r < 0)
		return r == -E2BIG ? -EFBIG : r;
	*ret = (uint8_t *)buf;
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *path = NULL;
	const char *dir, *top;
	struct dirent *de;
	unsigned count = 0;
	DIR *d;
	int r = 0;

	if (argc > 1) {
		dir = argv[1];
	} else {
		top = getenv("top_srcdir");
		if (asprintf(&path, "%s/tests/fuzz/corpus/%s", top && *top ? top : ".",
			     FUZZ_NAME) < 0) {
			path = NULL;
			fprintf(stderr, "replay: out of memory\n");
			return EXIT_FAILURE;
		}
		dir = path;
	}

	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: cannot open corpus '%s': %s\n", dir, strerror(errno));
		return EXIT_FAILURE;
	}
	while ((errno = 0, de = readdir(d))) {
		uint8_t *data = NULL;
		size_t size = 0;

		if (de->d_name[0] == '.')
			continue;
		r = read_file(dirfd(d), de->d_name, &data, &size);
		if (r == -EISDIR)
			continue;
		if (r < 0) {
			fprintf(stderr, "replay: cannot read '%s/%s': %s\n", dir, de->d_name,
				strerror(-r));
			break;
		}
		(void)LLVMFuzzerTestOneInput(data, size);
		free(data);
		count++;
	}
	if (r == 0 && errno) {
		r = -errno;
		fprintf(stderr, "replay: reading '%s': %s\n", dir, strerror(-r));
	}
	(void)closedir(d);
	if (r < 0)
		return EXIT_FAILURE;
	if (!count) {
		fprintf(stderr, "replay: no inputs in '%s'\n", dir);
		return EXIT_FAILURE;
	}
	printf("replay %s: %u inputs from %s\n", FUZZ_NAME, count, dir);
	return EXIT_SUCCESS;
}
