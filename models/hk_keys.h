/* hk_keys: known directive names per config section, known section types,
 * and the nearest known name of a misspelled one ("did you mean"). */
#ifndef HK_KEYS_H
#define HK_KEYS_H

/* The sections of a sphinx.conf / manticore.conf. */
extern const char *const hk_conf_sections[];
/* Keys searchd knows in that section type, NULL-terminated; NULL when hakarma does not check
 * that section's keys (source). */
const char *const *hk_keys_of(const char *section);
/* 1 if w (case-insensitively) is in the NULL-terminated list. */
int hk_word_in(const char *w, const char *const *list);
/* The list's word nearest to w (a typo, a prefix, a plural), or NULL if none is near. */
const char *hk_nearest(const char *w, const char *const *list);

#endif
