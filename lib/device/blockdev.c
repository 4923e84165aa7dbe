/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Releasing, ordering and classifying struct pf_dev records. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "device/blockdev.h"

void pf_dev_release(struct pf_dev *d)
{
	if (!d)
		return;
	free(d->kname);
	free(d->path);
	for (size_t i = 0; i < d->n_aliases; i++)
		free(d->aliases[i]);
	free(d->aliases);
	free(d->parent_kname);
	free(d->type_name);
	free(d->dm_uuid);
	free(d->dm_name);
	free(d->loop_backing_file);
	free(d->md_uuid);
	free(d->wwid);
	free(d->serial);
	for (size_t i = 0; i < d->n_holders; i++)
		free(d->holders[i]);
	free(d->holders);
	memset(d, 0, sizeof(*d));
}

void pf_dev_list_release(struct pf_dev_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		pf_dev_release(&l->devs[i]);
	free(l->devs);
	l->devs = NULL;
	l->n = 0;
}

int pf_dev_cmp_devno(const void *a, const void *b)
{
	const struct pf_dev *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

bool pf_dev_is_type(const struct pf_dev *d, const char *name)
{
	return d->type_name && !strcmp(d->type_name, name);
}

bool pf_dev_is_nvme(const struct pf_dev *d)
{
	return d->kname && !strncmp(d->kname, "nvme", strlen("nvme"));
}
