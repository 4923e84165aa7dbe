/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm.conf, lvmlocal.conf, lvm_<tag>.conf and --config, read and merged as lvm2 2.03.16 does. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/paths.h"
#include "config/settings.h"
#include "device/filter.h"
#include "format/cfg.h"
#include "format/names.h"

/* lvm2's PV_MIN_SIZE_KB: smaller pv_min_size values are replaced by it. */
#define PV_MIN_SIZE_KB 512
/* Files loaded: lvm.conf, lvmlocal.conf and one lvm_<tag>.conf per host tag at most. */
#define SOURCES_MAX (PF_SETTINGS_TAGS_MAX + 2U)

/* ---- views: what one parsed source says, lvm2-style ---- */

/*
 * lvm2's parser merges repeated sections and keeps the last of repeated settings; lib/cfg
 * keeps every node. A view is the merged picture of a top-level section's settings.
 */
struct entry {
	const char *section, *key;
	const struct pf_cfg_value **vals; /* flattened; n_vals == 0: only sections use this key */
	size_t n_vals;
	bool owned;			/* vals was allocated for this entry (merged views) */
	const struct pf_cfg_node *node; /* the node that last set it (origin) */
	const char *file;
};

struct view {
	const char **sections; /* top-level section names, first-occurrence order */
	size_t n_sections;
	struct entry *e;
	size_t n;
};

struct source {
	char *name;		  /* path, or "--config" */
	struct pf_cfg_tree *tree; /* NULL: empty or missing */
	struct view view;
};

struct pf_settings_loader {
	const char *etc;
	bool strict;
	const char *hostname;
	pf_settings_system_id_fn *system_id;
	struct source *src; /* lvm.conf, lvmlocal.conf, lvm_<tag>.conf..., in load order */
	size_t n_src, src_alloc;
	struct source cmdline;
	bool have_cmdline;
	struct view merged;
	size_t tags_alloc;
	bool hosttags_done;
	struct pf_settings *s;
	struct pf_diag *reterr;
};

/* One key under a set of same-named sections: last value, whether it is also a section. */
struct mchild {
	const char *key;
	const struct pf_cfg_node *value; /* last setting node, or NULL */
	const struct pf_cfg_node *first; /* first node with this key */
	bool has_section;
};

static void view_release(struct view *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->e[i].owned)
			free(v->e[i].vals);
	free(v->e);
	free(v->sections);
	memset(v, 0, sizeof(*v));
}

static int too_many(struct pf_settings_loader *ld, const char *file)
{
	pf_diag_msg(ld->reterr, "%s: more than %u settings", file, PF_SETTINGS_KEYS_MAX);
	return -E2BIG;
}

/* Group the children of every chain in chains[0..n) by key, in first-occurrence order. */
static int merged_children(struct pf_settings_loader *ld, const char *file,
			   const struct pf_cfg_node *const *chains, size_t n, struct mchild **ret,
			   size_t *ret_n)
{
	struct mchild *m = NULL;
	size_t cnt = 0, alloc = 0;

	for (size_t c = 0; c < n; c++) {
		for (const struct pf_cfg_node *x = chains[c]; x; x = x->next) {
			size_t i;

			for (i = 0; i < cnt && strcmp(m[i].key, x->key) != 0; i++)
				;
			if (i == cnt) {
				int r = pf_grow(&m, &alloc, cnt + 1, PF_SETTINGS_KEYS_MAX);

				if (r < 0) {
					free(m);
					return r == -E2BIG ? too_many(ld, file) : r;
				}
				m[cnt++] = (struct mchild){ .key = x->key, .first = x };
			}
			if (pf_cfg_is_section(x))
				m[i].has_section = true;
			else
				m[i].value = x;
		}
	}
	*ret = m;
	*ret_n = cnt;
	return 0;
}

/* First-children of every section named key among the nodes of chain. */
static int section_chains(const struct pf_cfg_node *chain, const char *key,
			  const struct pf_cfg_node ***ret, size_t *ret_n)
{
	const struct pf_cfg_node **v = NULL;
	size_t n = 0, alloc = 0;
	int r;

	for (const struct pf_cfg_node *x = chain; x; x = x->next) {
		if (!pf_cfg_is_section(x) || strcmp(x->key, key) != 0)
			continue;
		/* never more sections than nodes in a tree */
		r = pf_grow(&v, &alloc, n + 1, PF_SETTINGS_NODES_MAX);
		if (r < 0) {
			free(v);
			return r;
		}
		v[n++] = x->child;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static int flatten(const struct pf_cfg_node *node, const struct pf_cfg_value ***ret, size_t *ret_n)
{
	const struct pf_cfg_value **v;
	size_t n = 0;

	for (const struct pf_cfg_value *x = node->value; x; x = x->next)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = 0;
	for (const struct pf_cfg_value *x = node->value; x; x = x->next)
		v[n++] = x;
	*ret = v;
	*ret_n = n;
	return 0;
}

static int view_add(struct pf_settings_loader *ld, struct view *v, size_t *alloc,
		    const struct entry *e)
{
	int r = pf_grow(&v->e, alloc, v->n + 1, PF_SETTINGS_KEYS_MAX);

	if (r < 0)
		return r == -E2BIG ? too_many(ld, e->file) : r;
	v->e[v->n++] = *e;
	return 0;
}

static struct entry *view_find(const struct view *v, const char *section, const char *key)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->e[i].section, section) == 0 && strcmp(v->e[i].key, key) == 0)
			return &v->e[i];
	return NULL;
}

static bool view_has_section(const struct view *v, const char *section)
{
	for (size_t i = 0; i < v->n_sections; i++)
		if (strcmp(v->sections[i], section) == 0)
			return true;
	return false;
}

/* The settings directly under each top-level section of one parsed source. */
static int view_build(struct pf_settings_loader *ld, struct source *src)
{
	const struct pf_cfg_node *root = src->tree ? pf_cfg_root(src->tree) : NULL;
	struct mchild *top = NULL, *kids = NULL;
	const struct pf_cfg_node **chains = NULL;
	size_t n_top = 0, n_kids = 0, n_chains = 0, alloc = 0;
	struct view *v = &src->view;
	int r;

	r = merged_children(ld, src->name, &root, 1, &top, &n_top);
	if (r < 0)
		return r;
	v->sections = calloc(n_top ? n_top : 1, sizeof(*v->sections));
	if (!v->sections) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t t = 0; t < n_top; t++) {
		if (!top[t].has_section)
			continue; /* a top-level setting: never looked up */
		v->sections[v->n_sections++] = top[t].key;
		r = section_chains(root, top[t].key, &chains, &n_chains);
		if (r == 0)
			r = merged_children(ld, src->name, chains, n_chains, &kids, &n_kids);
		free(chains);
		chains = NULL;
		for (size_t k = 0; r == 0 && k < n_kids; k++) {
			struct entry e = { .section = top[t].key,
					   .key = kids[k].key,
					   .node = kids[k].value ? kids[k].value : kids[k].first,
					   .file = src->name };

			if (kids[k].value) {
				r = flatten(kids[k].value, &e.vals, &e.n_vals);
				if (r < 0)
					break;
				e.owned = true;
			}
			r = view_add(ld, v, &alloc, &e);
			if (r < 0 && e.owned)
				free(e.vals);
		}
		free(kids);
		kids = NULL;
		if (r < 0)
			goto out;
	}
out:
	free(top);
	return r;
}

/* ---- warnings ---- */

static void origin_of(const struct entry *e, struct pf_diag *d)
{
	if (e && e->node) {
		d->line = e->node->line;
		d->col = e->node->col;
	}
}

/*
 * Record something lvm2 warns about and then ignores. With strict, a config warning (one
 * about a setting's value) is an error instead.
 */
static int warn(struct pf_settings_loader *ld, const struct entry *e, bool config,
		const char *fmt, ...)
	_printf_(4, 5);

static int warn(struct pf_settings_loader *ld, const struct entry *e, bool config,
		const char *fmt, ...)
{
	char msg[PF_DIAG_MSG_MAX];
	struct pf_diag d = { 0 };
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e)
		pf_diag_msg(&d, "%s: %s", e->file, msg);
	else
		pf_diag_msg(&d, "%s", msg);
	origin_of(e, &d);
	if (config && ld->strict) {
		if (ld->reterr)
			*ld->reterr = d;
		return -EBADMSG;
	}
	if (ld->s->n_warnings < PF_SETTINGS_WARNINGS_MAX)
		ld->s->warnings[ld->s->n_warnings++] = d;
	return 0;
}

static int config_error(struct pf_settings_loader *ld, const struct entry *e, const char *fmt, ...)
	_printf_(3, 4);

static int config_error(struct pf_settings_loader *ld, const struct entry *e, const char *fmt, ...)
{
	char msg[PF_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e)
		pf_diag_msg(ld->reterr, "%s: %s", e->file, msg);
	else
		pf_diag_msg(ld->reterr, "%s", msg);
	if (ld->reterr)
		origin_of(e, ld->reterr);
	return -EBADMSG;
}

/* ---- typed lookups with lvm2's rules ---- */

static const char *type_name(const struct pf_cfg_value *v)
{
	switch (v->type) {
	case PF_CFG_INT:
		return "integer";
	case PF_CFG_FLOAT:
		return "float";
	case PF_CFG_STRING:
		return "string";
	default:
		return "array";
	}
}

/* The --config string first, then the merged files: the first that has the node decides. */
static const struct entry *lookup(const struct pf_settings_loader *ld, const char *section,
				  const char *key)
{
	const struct entry *e = NULL;

	if (ld->have_cmdline)
		e = view_find(&ld->cmdline.view, section, key);
	return e ? e : view_find(&ld->merged, section, key);
}

static bool str_to_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "y", "yes", "on", "true" };
	static const char *const no[] = { "n", "no", "off", "false" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return true;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return true;
		}
	}
	return false;
}

/* lvm2 checks a scalar setting for a single value, of the expected type; arrays only warn. */
static int check_scalar(struct pf_settings_loader *ld, const struct entry *e, const char *path,
			enum pf_cfg_type want, const char *want_name)
{
	const struct pf_cfg_value *v;

	if (!e->n_vals)
		return warn(ld, e, true, "%s is a section, expected %s; using the default", path,
			    want_name);
	v = e->vals[0];
	if (e->n_vals > 1 || v->type == PF_CFG_EMPTY_ARRAY)
		return warn(ld, e, true, "%s has invalid type: found array, expected %s", path,
			    want_name);
	if (v->type == want)
		return 0;
	if (want == PF_CFG_INT && v->type == PF_CFG_STRING && !strcmp(want_name, "boolean")) {
		bool b;

		if (str_to_bool(v->v.s, &b))
			return 0;
		return warn(ld, e, true,
			    "%s invalid: found string value \"%s\", expected a boolean "
			    "(0/1, y/n, yes/no, on/off, true/false)",
			    path, v->v.s);
	}
	return warn(ld, e, true, "%s has invalid type: found %s, expected %s", path, type_name(v),
		    want_name);
}

/*
 * The setting section/key, checked to be a scalar of type want: *ret_e is NULL (and 0 is
 * returned) when it is not set; path receives "section/key" for the caller's warnings.
 */
static int scalar_entry(struct pf_settings_loader *ld, const char *section, const char *key,
			enum pf_cfg_type want, const char *want_name, char (*path)[128],
			const struct entry **ret_e)
{
	const struct entry *e = lookup(ld, section, key);

	*ret_e = e;
	if (!e)
		return 0;
	(void)snprintf(*path, sizeof(*path), "%s/%s", section, key);
	return check_scalar(ld, e, *path, want, want_name);
}

static int get_bool(struct pf_settings_loader *ld, const char *section, const char *key,
		    bool def, bool *ret, const struct entry **ret_e)
{
	const struct entry *e;
	char path[128];
	bool b = def;
	int r;

	*ret = def;
	r = scalar_entry(ld, section, key, PF_CFG_INT, "boolean", &path, &e);
	if (ret_e)
		*ret_e = e;
	if (r < 0 || !e)
		return r;
	/* Even a malformed array is read by its first element, as lvm2 does. */
	if (e->n_vals && e->vals[0]->type == PF_CFG_INT)
		b = e->vals[0]->v.i != 0;
	else if (e->n_vals && e->vals[0]->type == PF_CFG_STRING &&
		 !str_to_bool(e->vals[0]->v.s, &b))
		b = def;
	*ret = b;
	return 0;
}

static int get_int(struct pf_settings_loader *ld, const char *section, const char *key, int64_t def,
		   int64_t *ret, const struct entry **ret_e)
{
	const struct entry *e;
	char path[128];
	int r;

	*ret = def;
	r = scalar_entry(ld, section, key, PF_CFG_INT, "integer", &path, &e);
	if (ret_e)
		*ret_e = e;
	if (r < 0 || !e)
		return r;
	if (e->n_vals && e->vals[0]->type == PF_CFG_INT)
		*ret = e->vals[0]->v.i;
	return 0;
}

static int get_str(struct pf_settings_loader *ld, const char *section, const char *key,
		   const char *def, bool allow_empty, const char **ret, const struct entry **ret_e)
{
	const struct entry *e;
	const struct pf_cfg_value *v;
	char path[128];
	int r;

	*ret = def;
	r = scalar_entry(ld, section, key, PF_CFG_STRING, "string", &path, &e);
	if (ret_e)
		*ret_e = e;
	if (r < 0 || !e)
		return r;
	v = e->n_vals ? e->vals[0] : NULL;
	if (v && v->type == PF_CFG_STRING && (allow_empty || v->v.s[0])) {
		*ret = v->v.s;
		return 0;
	}
	if (v && v->type == PF_CFG_STRING)
		return warn(ld, e, true, "%s cannot be set to an empty value; using the default",
			    path);
	return 0;
}

int pf_settings_get_str(struct pf_settings_loader *ld, const char *section, const char *key,
			const char *def, bool allow_empty, const char **ret)
{
	return get_str(ld, section, key, def, allow_empty, ret, NULL);
}

int pf_settings_warn(struct pf_settings_loader *ld, const char *section, const char *key,
		     bool config, const char *fmt, ...)
{
	char msg[PF_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return warn(ld, section ? lookup(ld, section, key) : NULL, config, "%s", msg);
}

static char *dup_or_null(const char *s, int *r)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*r = -ENOMEM;
	return d;
}

/* Read up to max bytes of path; -ENOENT passes through. */
static int read_capped(const char *path, size_t max, char **ret, size_t *ret_len, bool *ret_over)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, size;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	/* Sized by fstat (the follower path reads lvm.conf), grown to the cap if it grows. */
	size = S_ISREG(st.st_mode) && (uintmax_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	while (len <= max) {
		ssize_t k;

		if (len == size) {
			char *nb = realloc(buf, max + 2);

			if (!nb)
				return -ENOMEM;
			buf = nb;
			size = max + 1;
		}
		k = read(fd, buf + len, size - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		len += (size_t)k;
	}
	*ret_over = len > max;
	if (len > max)
		len = max;
	buf[len] = '\0';
	*ret_len = len;
	*ret = TAKE_PTR(buf);
	return 0;
}

/* ---- tags ---- */

static int add_tag(struct pf_settings_loader *ld, const char *tag)
{
	struct pf_settings_strv *t = &ld->s->host_tags;
	int r;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i], tag) == 0)
			return 0;
	r = pf_grow(&t->v, &ld->tags_alloc, t->n + 1, PF_SETTINGS_TAGS_MAX);
	if (r == -E2BIG)
		pf_diag_msg(ld->reterr, "more than %u host tags", PF_SETTINGS_TAGS_MAX);
	if (r < 0)
		return r;
	t->v[t->n] = strdup(tag);
	if (!t->v[t->n])
		return -ENOMEM;
	t->n++;
	t->set = true;
	return 0;
}

/* A bool setting read from one file only, as lvm2 reads tags/hosttags. */
static bool entry_bool(const struct entry *e, bool def)
{
	bool b = def;

	if (!e || !e->n_vals)
		return def;
	if (e->vals[0]->type == PF_CFG_INT)
		return e->vals[0]->v.i != 0;
	if (e->vals[0]->type == PF_CFG_STRING && str_to_bool(e->vals[0]->v.s, &b))
		return b;
	return def;
}

/* lvm2's _check_host_filters() on the merged children of tags/<tag>. */
static int host_filters_pass(struct pf_settings_loader *ld, struct source *src, const char *tag_key,
			     bool *ret_passes)
{
	const struct pf_cfg_node *root = pf_cfg_root(src->tree);
	const struct pf_cfg_node **tags = NULL, **secs = NULL;
	size_t n_tags = 0, n_secs = 0, n = 0, alloc = 0;
	struct mchild *kids = NULL;
	const struct entry e0 = { .file = src->name };
	int r;

	*ret_passes = true;
	r = section_chains(root, "tags", &tags, &n_tags);
	for (size_t i = 0; r == 0 && i < n_tags; i++) {
		const struct pf_cfg_node **part = NULL;
		size_t n_part = 0;

		r = section_chains(tags[i], tag_key, &part, &n_part);
		if (r == 0)
			r = pf_grow(&secs, &alloc, n + n_part, PF_SETTINGS_NODES_MAX);
		if (r == 0 && n_part) {
			memcpy(secs + n, part, n_part * sizeof(*part));
			n += n_part;
		}
		free(part);
	}
	n_secs = n;
	if (r == 0)
		r = merged_children(ld, src->name, secs, n_secs, &kids, &n);
	for (size_t k = 0; r == 0 && k < n; k++) {
		const struct pf_cfg_node *v = kids[k].value;
		struct entry e = e0;

		if (!v)
			continue;
		e.node = v;
		if (!strcmp(kids[k].key, "host_list")) {
			*ret_passes = false;
			if (v->value->type == PF_CFG_EMPTY_ARRAY)
				continue;
			for (const struct pf_cfg_value *x = v->value; x; x = x->next) {
				if (x->type != PF_CFG_STRING) {
					r = config_error(ld, &e,
							 "invalid hostname string for tag %s",
							 tag_key);
					break;
				}
				if (!strcmp(x->v.s, ld->hostname)) {
					*ret_passes = true;
					goto out;
				}
			}
		}
		if (r == 0 && !strcmp(kids[k].key, "host_filter"))
			r = config_error(ld, &e, "tags/%s/host_filter is not supported", tag_key);
	}
out:
	free(kids);
	free(secs);
	free(tags);
	return r;
}

/* lvm2's _init_tags() on one file. */
static int init_tags(struct pf_settings_loader *ld, struct source *src)
{
	const struct view *v = &src->view;
	bool any = false;
	int r;

	for (size_t i = 0; i < v->n; i++)
		any |= !strcmp(v->e[i].section, "tags");
	if (!any)
		return 0;
	if (!ld->hosttags_done && entry_bool(view_find(v, "tags", "hosttags"), false)) {
		/* compat: lvm2 does not check the host name as a tag. */
		r = add_tag(ld, ld->hostname);
		if (r < 0)
			return r;
		ld->hosttags_done = true;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct entry *e = &v->e[i];
		const char *tag = e->key;
		bool passes;

		if (strcmp(e->section, "tags") != 0 || e->n_vals)
			continue;
		if (*tag == '@')
			tag++;
		if (!pf_name_is_valid(tag, strlen(tag)))
			return config_error(ld, e, "invalid tag in config file: %s", e->key);
		r = host_filters_pass(ld, src, e->key, &passes);
		if (r < 0)
			return r;
		if (passes) {
			r = add_tag(ld, tag);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* ---- loading and merging ---- */

static int load_text(struct pf_settings_loader *ld, struct source *src, const char *text,
		     size_t len)
{
	struct pf_cfg_limits limits = pf_cfg_default_limits;
	struct pf_diag d = { 0 };
	int r;

	/* Grouping settings by key is quadratic in their number: keep the trees small. */
	limits.max_nodes = PF_SETTINGS_NODES_MAX;
	r = pf_cfg_parse(text, len, &limits, &src->tree, &d);
	if (r < 0) {
		if (ld->reterr) {
			*ld->reterr = d;
			pf_diag_prefix(ld->reterr, "%s: ", src->name);
		}
		return r == -ENOMEM ? r : r == -E2BIG ? r : -EBADMSG;
	}
	return view_build(ld, src);
}

static int load_file(struct pf_settings_loader *ld, const char *name)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct source *src;
	size_t len = 0;
	bool over;
	int r;

	path = pf_path_join(ld->etc, name);
	if (!path)
		return -ENOMEM;
	r = pf_grow(&ld->src, &ld->src_alloc, ld->n_src + 1, SOURCES_MAX);
	if (r < 0)
		return r;
	src = &ld->src[ld->n_src++];
	memset(src, 0, sizeof(*src));
	src->name = TAKE_PTR(path);
	r = read_capped(src->name, PF_SETTINGS_FILE_MAX, &text, &len, &over);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		pf_diag_msg(ld->reterr, "%s: cannot read: %s", src->name, strerror(-r));
		return r;
	}
	if (over) {
		pf_diag_msg(ld->reterr, "%s: larger than %zu bytes", src->name,
			    PF_SETTINGS_FILE_MAX);
		return -E2BIG;
	}
	return load_text(ld, src, text, len);
}

static bool tags_match(const struct pf_settings_loader *ld, const struct entry *t)
{
	for (size_t i = 0; i < t->n_vals; i++) {
		const char *s = t->vals[i]->v.s;

		if (t->vals[i]->type != PF_CFG_STRING)
			continue;
		if (*s == '@')
			s++;
		for (size_t k = 0; *s && k < ld->s->host_tags.n; k++)
			if (!strcmp(ld->s->host_tags.v[k], s))
				return true;
	}
	return false;
}

static bool concatenated(const char *section, const char *key)
{
	return (!strcmp(section, "activation") && !strcmp(key, "volume_list")) ||
	       (!strcmp(section, "devices") && (!strcmp(key, "filter") || !strcmp(key, "types")));
}

static int merge_entry(struct pf_settings_loader *ld, size_t *alloc, const struct entry *e)
{
	struct entry *m = view_find(&ld->merged, e->section, e->key);
	const struct pf_cfg_value **v;
	struct entry copy = *e;
	int r;

	if (m && !e->n_vals)
		return 0; /* lvm2 merges settings only, not subsections */
	if (m && concatenated(e->section, e->key)) {
		/* compat: lvm2 puts the later file's values first and keeps the earlier ones. */
		v = calloc(e->n_vals + m->n_vals, sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (e->n_vals)
			memcpy(v, e->vals, e->n_vals * sizeof(*v));
		if (m->n_vals)
			memcpy(v + e->n_vals, m->vals, m->n_vals * sizeof(*v));
		copy.n_vals = e->n_vals + m->n_vals;
	} else {
		v = calloc(e->n_vals ? e->n_vals : 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (e->n_vals)
			memcpy(v, e->vals, e->n_vals * sizeof(*v));
	}
	copy.vals = v;
	copy.owned = true;
	if (m) {
		if (m->owned)
			free(m->vals);
		*m = copy;
		return 0;
	}
	r = view_add(ld, &ld->merged, alloc, &copy);
	if (r < 0)
		free(v);
	return r;
}

/* lvm2's merge_config_tree() with CONFIG_MERGE_TYPE_TAGS, one file after the other. */
static int merge_all(struct pf_settings_loader *ld)
{
	size_t alloc = 0, sec_alloc = 0;
	int r;

	for (size_t f = 0; f < ld->n_src; f++) {
		const struct view *v = &ld->src[f].view;

		for (size_t i = 0; i < v->n_sections; i++) {
			const char *sec = v->sections[i];
			const struct entry *t = view_find(v, sec, "tags");
			bool is_new;

			if (!strcmp(sec, "tags") || (t && !tags_match(ld, t)))
				continue;
			is_new = !view_has_section(&ld->merged, sec);
			if (is_new) {
				r = pf_grow(&ld->merged.sections, &sec_alloc,
					    ld->merged.n_sections + 1,
					    (size_t)SOURCES_MAX * PF_SETTINGS_KEYS_MAX);
				if (r < 0)
					return r;
				ld->merged.sections[ld->merged.n_sections++] = sec;
			}
			for (size_t k = 0; k < v->n; k++) {
				if (strcmp(v->e[k].section, sec) != 0 ||
				    !strcmp(v->e[k].key, "tags"))
					continue;
				r = merge_entry(ld, &alloc, &v->e[k]);
				if (r == -E2BIG)
					return too_many(ld, v->e[k].file);
				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

/* lvm2 takes one --config; several are joined by newlines, so the last one wins. */
static int load_cmdline(struct pf_settings_loader *ld, const struct pf_settings_opts *opts)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, o = 0;

	for (size_t i = 0; i < opts->n_config; i++) {
		size_t l = strlen(opts->config[i]);

		if (l > PF_SETTINGS_FILE_MAX || len + l + 1 > PF_SETTINGS_FILE_MAX) {
			pf_diag_msg(ld->reterr, "--config: longer than %zu bytes",
				    PF_SETTINGS_FILE_MAX);
			return -E2BIG;
		}
		len += l + 1;
	}
	text = malloc(len + 1);
	ld->cmdline.name = strdup("--config");
	if (!text || !ld->cmdline.name)
		return -ENOMEM;
	for (size_t i = 0; i < opts->n_config; i++) {
		size_t l = strlen(opts->config[i]);

		memcpy(text + o, opts->config[i], l);
		o += l;
		text[o++] = '\n';
	}
	ld->have_cmdline = true;
	return load_text(ld, &ld->cmdline, text, o);
}

static int load_sources(struct pf_settings_loader *ld, const struct pf_settings_opts *opts)
{
	int r;

	r = load_file(ld, "lvm.conf");
	if (r == 0)
		r = init_tags(ld, &ld->src[0]);
	if (r == 0)
		r = load_file(ld, "lvmlocal.conf");
	if (r == 0)
		r = init_tags(ld, &ld->src[1]);
	/* Each tag may bring its own file, which may add tags: the list grows as we go. */
	for (size_t i = 0; r == 0 && i < ld->s->host_tags.n; i++) {
		char name[sizeof("lvm_.conf") + PF_NAME_MAX];

		if (strchr(ld->s->host_tags.v[i], '/'))
			continue; /* only a host name can hold one; never leave <etc> */
		(void)snprintf(name, sizeof(name), "lvm_%s.conf", ld->s->host_tags.v[i]);
		r = load_file(ld, name);
		if (r == 0)
			r = init_tags(ld, &ld->src[ld->n_src - 1]);
	}
	if (r == 0)
		r = merge_all(ld);
	if (r == 0 && opts->n_config)
		r = load_cmdline(ld, opts);
	return r;
}

/* ---- extraction ---- */

static void set_origin(struct pf_settings_strv *v, const struct entry *e, int *r)
{
	if (!e || !e->node)
		return;
	v->origin.file = dup_or_null(e->file, r);
	v->origin.line = e->node->line;
	v->origin.col = e->node->col;
}

/* One of the n_vals values of a setting: never more than that many. */
static int strv_push(struct pf_settings_strv *v, size_t *alloc, size_t n_vals, const char *s)
{
	int r = pf_grow(&v->v, alloc, v->n + 1, n_vals);

	if (r < 0)
		return r;
	v->v[v->n] = strdup(s);
	if (!v->v[v->n])
		return -ENOMEM;
	v->n++;
	return 0;
}

/* global_filter / filter: every element must be a string, or lvm2 refuses to run. */
static int get_filter(struct pf_settings_loader *ld, const char *key, struct pf_settings_strv *ret)
{
	const struct entry *e = lookup(ld, "devices", key);
	size_t alloc = 0;
	int r = 0;

	if (!e)
		return 0;
	if (!e->n_vals)
		return config_error(ld, e, "devices/%s is a section, expected an array of strings",
				    key);
	for (size_t i = 0; i < e->n_vals; i++)
		if (e->vals[i]->type != PF_CFG_STRING)
			return config_error(
				ld, e, "devices/%s[%zu]: filter patterns must be strings", key, i);
	ret->set = true;
	for (size_t i = 0; r == 0 && i < e->n_vals; i++)
		r = strv_push(ret, &alloc, e->n_vals, e->vals[i]->v.s);
	set_origin(ret, e, &r);
	return r;
}

/* devices/types: pairs of a name and a non-zero partition count. */
static int get_types(struct pf_settings_loader *ld)
{
	const struct entry *e = lookup(ld, "devices", "types");
	struct pf_settings *s = ld->s;

	if (!e)
		return 0;
	if (!e->n_vals) /* lvm2 warns and reads no values from a section */
		return warn(ld, e, true, "devices/types is a section, expected an array");
	s->types = calloc(e->n_vals, sizeof(*s->types));
	if (!s->types)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_vals; i += 2) {
		const struct pf_cfg_value *name = e->vals[i], *cnt;

		if (name->type != PF_CFG_STRING)
			return config_error(ld, e, "expecting string in devices/types");
		cnt = i + 1 < e->n_vals ? e->vals[i + 1] : NULL;
		if (!cnt || cnt->type != PF_CFG_INT)
			return config_error(ld, e,
					    "max partition count missing for %s in devices/types",
					    name->v.s);
		if (cnt->v.i == 0)
			return config_error(ld, e,
					    "zero partition count invalid for %s in devices/types",
					    name->v.s);
		s->types[s->n_types].name = strdup(name->v.s);
		if (!s->types[s->n_types].name)
			return -ENOMEM;
		s->types[s->n_types++].max_partitions = cnt->v.i;
	}
	return 0;
}

/*
 * activation/volume_list and auto_activation_volume_list: lvm2 stops at "[]" (so "[]" matches
 * nothing) and skips, with a message, entries that are not strings; empty strings and a bare "@"
 * are skipped where the list is checked.
 */
static int get_volume_list(struct pf_settings_loader *ld, const char *key,
			   struct pf_settings_strv *ret)
{
	const struct entry *e = lookup(ld, "activation", key);
	size_t alloc = 0;
	int r = 0;

	if (!e)
		return 0;
	ret->set = true;
	for (size_t i = 0; r == 0 && i < e->n_vals; i++) {
		const struct pf_cfg_value *v = e->vals[i];

		if (v->type == PF_CFG_EMPTY_ARRAY)
			break;
		/* empty ones are kept: lvm2 says so each time it checks an LV (aamsg.c) */
		if (v->type != PF_CFG_STRING)
			r = warn(ld, e, true, "ignoring invalid string in activation/%s", key);
		else
			r = strv_push(ret, &alloc, e->n_vals, v->v.s);
	}
	set_origin(ret, e, &r);
	return r;
}

/* A pvscan_fast/<key> timeout in seconds, 1 to max; out of range: a warning and the default. */
static int get_seconds(struct pf_settings_loader *ld, const char *key, unsigned def, unsigned max,
		       unsigned *ret)
{
	const struct entry *e = NULL;
	int64_t v;
	int r = get_int(ld, "pvscan_fast", key, def, &v, &e);

	if (r < 0)
		return r;
	if (v <= 0 || v > max) {
		r = warn(ld, e, true, "pvscan_fast/%s must be 1 to %u seconds, using %u", key, max,
			 def);
		if (r < 0)
			return r;
		v = def;
	}
	*ret = (unsigned)v;
	return 0;
}

static int extract(struct pf_settings_loader *ld)
{
	struct pf_settings *s = ld->s;
	const struct entry *e;
	const char *str;
	int64_t i64;
	int r;

	if ((r = get_bool(ld, "global", "event_activation", true, &s->event_activation, NULL)) <
		    0 ||
	    (r = get_bool(ld, "devices", "use_devicesfile", false, &s->use_devicesfile, NULL)) <
		    0 ||
	    (r = get_str(ld, "devices", "devicesfile", "system.devices", false, &str, &e)) < 0)
		return r;
	r = 0;
	s->devicesfile = dup_or_null(str, &r);
	if (r < 0)
		return r;
	if (s->use_devicesfile) {
		_cleanup_free_ char *dir = pf_path_join(ld->etc, "devices");

		if (!pf_name_is_valid(str, strlen(str)))
			return config_error(ld, e, "invalid devices file name \"%s\"", str);
		if (!dir)
			return -ENOMEM;
		s->devicesfile_path = pf_path_join(dir, str);
		if (!s->devicesfile_path)
			return -ENOMEM;
	}
	if ((r = get_filter(ld, "global_filter", &s->global_filter)) < 0 ||
	    (r = get_filter(ld, "filter", &s->filter)) < 0 || (r = get_types(ld)) < 0 ||
	    (r = get_bool(ld, "devices", "scan_lvs", false, &s->scan_lvs, NULL)) < 0 ||
	    (r = get_bool(ld, "devices", "multipath_component_detection", true,
			  &s->multipath_component_detection, NULL)) < 0 ||
	    (r = get_bool(ld, "devices", "md_component_detection", true, &s->md_component_detection,
			  NULL)) < 0 ||
	    (r = get_str(ld, "devices", "md_component_checks", "auto", false, &str, &e)) < 0)
		return r;
	if (strcmp(str, "auto") && strcmp(str, "start") && strcmp(str, "full")) {
		r = warn(ld, e, true, "ignoring unknown md_component_checks setting, using auto");
		if (r < 0)
			return r;
		str = "auto";
	}
	r = 0;
	s->md_component_checks = dup_or_null(str, &r);
	if (r < 0 || (r = get_int(ld, "devices", "pv_min_size", 2048, &i64, &e)) < 0)
		return r;
	/* compat: lvm2 2.03.16 passes this value through an int. */
	s->pv_min_size_kib = (int32_t)(uint32_t)i64;
	if (s->pv_min_size_kib < PV_MIN_SIZE_KB) {
		r = warn(ld, e, true, "ignoring too small pv_min_size %" PRId64 "KB, using %dKB",
			 s->pv_min_size_kib, PV_MIN_SIZE_KB);
		if (r < 0)
			return r;
		s->pv_min_size_kib = PV_MIN_SIZE_KB;
	}
	if ((r = get_str(ld, "devices", "multipath_wwids_file", "/etc/multipath/wwids", true, &str,
			 NULL)) < 0)
		return r;
	s->multipath_wwids_file = dup_or_null(str, &r);
	if (r < 0 || (r = get_str(ld, "devices", "hints", "all", false, &str, NULL)) < 0)
		return r;
	s->hints = dup_or_null(str, &r);
	if (r < 0 || (r = get_str(ld, "global", "etc", "/etc", false, &str, NULL)) < 0)
		return r;
	s->etc = dup_or_null(str, &r);
	if (r < 0 || (r = get_str(ld, "global", "system_id_file", NULL, false, &str, NULL)) < 0)
		return r;
	s->system_id_file = dup_or_null(str, &r);
	if (r < 0 || (ld->system_id && (r = ld->system_id(ld, ld->hostname, s)) < 0) ||
	    (r = get_volume_list(ld, "auto_activation_volume_list",
				 &s->auto_activation_volume_list)) < 0 ||
	    (r = get_volume_list(ld, "volume_list", &s->volume_list)) < 0 ||
	    (r = get_volume_list(ld, "read_only_volume_list", &s->read_only_volume_list)) < 0 ||
	    (r = get_bool(ld, "activation", "use_linear_target", true, &s->use_linear_target,
			  NULL)) < 0 ||
	    (r = get_bool(ld, "activation", "udev_rules", true, &s->udev_rules, NULL)) < 0 ||
	    (r = get_bool(ld, "activation", "udev_sync", true, &s->udev_sync, NULL)) < 0 ||
	    (r = get_bool(ld, "activation", "verify_udev_operations", false,
			  &s->verify_udev_operations, NULL)) < 0 ||
	    (r = get_bool(ld, "devices", "allow_changes_with_duplicate_pvs", false,
			  &s->allow_changes_with_duplicate_pvs, NULL)) < 0 ||
	    (r = get_str(ld, "activation", "readahead", "auto", false, &str, &e)) < 0)
		return r;
	s->readahead_none = strcasecmp(str, "none") == 0;
	if (!s->readahead_none && strcasecmp(str, "auto") != 0)
		return config_error(ld, e, "Invalid readahead specification");
	if ((r = get_seconds(ld, "scan_timeout", PF_SETTINGS_SCAN_TIMEOUT_DEFAULT,
			     PF_SETTINGS_SCAN_TIMEOUT_MAX, &s->scan_timeout_sec)) < 0 ||
	    (r = get_seconds(ld, "activation_timeout", PF_SETTINGS_ACTIVATION_TIMEOUT_DEFAULT,
			     PF_SETTINGS_TIMEOUT_MAX, &s->activation_timeout_sec)) < 0 ||
	    (r = get_seconds(ld, "lock_timeout", PF_SETTINGS_LOCK_TIMEOUT_DEFAULT,
			     PF_SETTINGS_TIMEOUT_MAX, &s->lock_timeout_sec)) < 0 ||
	    (r = get_bool(ld, "pvscan_fast", "degraded_activation", false,
			  &s->degraded_activation, NULL)) < 0 ||
	    (r = get_seconds(ld, "degraded_activation_timeout",
			     PF_SETTINGS_DEGRADED_TIMEOUT_DEFAULT, PF_SETTINGS_TIMEOUT_MAX,
			     &s->degraded_timeout_sec)) < 0)
		return r;
	s->hosttags = ld->hosttags_done;
	return 0;
}

static void loader_release(struct pf_settings_loader *ld)
{
	for (size_t i = 0; i < ld->n_src; i++) {
		view_release(&ld->src[i].view);
		pf_cfg_free(ld->src[i].tree);
		free(ld->src[i].name);
	}
	free(ld->src);
	view_release(&ld->cmdline.view);
	pf_cfg_free(ld->cmdline.tree);
	free(ld->cmdline.name);
	view_release(&ld->merged);
}

int pf_settings_load_opts(const struct pf_settings_opts *opts, struct pf_settings *ret,
			  struct pf_diag *reterr)
{
	struct pf_settings_loader ld = { .etc = opts->etc,
					 .strict = opts->strict,
					 .system_id = opts->system_id,
					 .reterr = reterr };
	struct pf_settings s = { 0 };
	struct utsname uts;
	int r;

	pf_diag_clear(reterr);
	ld.s = &s;
	s.warnings = calloc(PF_SETTINGS_WARNINGS_MAX, sizeof(*s.warnings));
	if (!s.warnings) {
		r = -ENOMEM;
		goto out;
	}
	if (opts->hostname) {
		ld.hostname = opts->hostname;
	} else if (uname(&uts) == 0) {
		ld.hostname = uts.nodename;
	} else {
		r = -errno;
		pf_diag_msg(reterr, "uname: %s", strerror(-r));
		goto out;
	}
	r = load_sources(&ld, opts);
	if (r == 0)
		r = extract(&ld);
	if (r == 0) {
		*ret = s;
		memset(&s, 0, sizeof(s));
	}
out:
	loader_release(&ld);
	pf_settings_release(&s);
	return r;
}

static void strv_release(struct pf_settings_strv *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	free(v->origin.file);
}

void pf_settings_release(struct pf_settings *s)
{
	if (!s)
		return;
	free(s->devicesfile);
	free(s->devicesfile_path);
	strv_release(&s->global_filter);
	strv_release(&s->read_only_volume_list);
	strv_release(&s->filter);
	for (size_t i = 0; i < s->n_types; i++)
		free(s->types[i].name);
	free(s->types);
	free(s->md_component_checks);
	free(s->multipath_wwids_file);
	free(s->hints);
	free(s->system_id_source);
	free(s->local_system_id);
	free(s->system_id_file);
	free(s->etc);
	free(s->system_id);
	strv_release(&s->auto_activation_volume_list);
	strv_release(&s->volume_list);
	strv_release(&s->host_tags);
	free(s->warnings);
	memset(s, 0, sizeof(*s));
}

static int compile_one(const struct pf_settings_strv *v, const char *key, struct pf_filter **ret,
		       struct pf_diag *reterr)
{
	int r;

	if (!v->set)
		return 0;
	r = pf_filter_compile((const char *const *)v->v, v->n, ret, reterr);
	if (r < 0 && reterr) {
		pf_diag_prefix(reterr, "%s: devices/%s", v->origin.file ? v->origin.file : "?",
			       key);
		reterr->line = v->origin.line;
		reterr->col = v->origin.col;
	}
	return r;
}

int pf_settings_compile_filters(const struct pf_settings *s, struct pf_filter **ret_global,
				struct pf_filter **ret_filter, struct pf_diag *reterr)
{
	struct pf_filter *g = NULL, *f = NULL;
	int r;

	r = compile_one(&s->global_filter, "global_filter", &g, reterr);
	if (r == 0)
		r = compile_one(&s->filter, "filter", &f, reterr);
	if (r < 0) {
		pf_filter_free(g);
		return r;
	}
	*ret_global = g;
	*ret_filter = f;
	return 0;
}

/*
 * Could this text set event_activation, or pull in lvm_<tag>.conf? Conservative: comments
 * are skipped only where lvm2's tokenizer sees one ('#' outside a string; strings in '' or
 * "" with backslash escapes, possibly across lines); every other byte, strings included,
 * is searched for the keys.
 */
static bool may_set_event_activation(const char *text, size_t len)
{
	static const char *const words[] = { "event_activation", "tags" };
	char quote = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (quote) {
			if (c == '\\' && quote == '"')
				i++;
			else if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '#') {
			const char *nl = memchr(text + i, '\n', len - i);

			i = nl ? (size_t)(nl - text) : len;
			continue;
		}
		for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
			size_t wl = strlen(words[w]);

			if (c == words[w][0] && len - i >= wl && memcmp(text + i, words[w], wl) == 0)
				return true;
		}
	}
	return false;
}

int pf_settings_event_activation(const char *etc, const char *const *config, size_t n_config,
				 bool *ret)
{
	static const char *const files[] = { "lvm.conf", "lvmlocal.conf" };
	const struct pf_settings_opts opts = { .etc = etc, .config = config, .n_config = n_config };
	struct pf_settings st;
	struct pf_diag diag;
	bool maybe = false;
	int r;

	for (size_t i = 0; i < n_config && !maybe; i++)
		maybe = may_set_event_activation(config[i], strlen(config[i]));
	for (size_t i = 0; i < ARRAY_SIZE(files) && !maybe; i++) {
		_cleanup_free_ char *path = pf_path_join(etc, files[i]), *text = NULL;
		size_t len = 0;
		bool over;

		if (!path)
			return -ENOMEM;
		r = read_capped(path, PF_SETTINGS_FILE_MAX, &text, &len, &over);
		if (r == -ENOENT)
			continue;
		maybe = r < 0 || over || may_set_event_activation(text, len);
	}
	if (!maybe) {
		*ret = true;
		return 0;
	}
	r = pf_settings_load_opts(&opts, &st, &diag);
	if (r < 0)
		return r;
	*ret = st.event_activation;
	pf_settings_release(&st);
	return 0;
}
