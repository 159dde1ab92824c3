/*
 * Shared keys that authenticate packets: every packet ends with a tag, the first 16 bytes of
 * HMAC-SHA256 over the packet with the primary key. A packet is accepted when its tag matches
 * any key of the ring, so keys can be rotated without a flag day: install the new key
 * everywhere, make it primary everywhere, then remove the old one.
 */
#ifndef SWIM_KEYRING_H
#define SWIM_KEYRING_H

#include <stddef.h>

#define SWIM_KEY_LEN 32
#define SWIM_MAX_KEYS 4
#define SWIM_TAG_LEN 16

typedef struct {
    unsigned char keys[SWIM_MAX_KEYS][SWIM_KEY_LEN]; /* keys[0] is the primary */
    size_t n;
} swim_keyring_t;

/* 64 hex digits. */
int swim_key_parse(const char *hex, unsigned char key[SWIM_KEY_LEN]);

int swim_keyring_add(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]);
/* Makes an installed key the primary. */
int swim_keyring_use(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]);
/* Removes a key; the primary cannot be removed. */
int swim_keyring_remove(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]);

/* A file of hex keys, one a line, the first the primary; '#' starts a comment. */
int swim_keyring_load(swim_keyring_t *kr, const char *path);

/* Appends the tag after len bytes of buf; returns the new length or -EMSGSIZE beyond cap. */
int swim_keyring_seal(const swim_keyring_t *kr, char *buf, size_t len, size_t cap);
/* Checks the tag at the end of buf; returns the length without it or -EBADMSG. */
int swim_keyring_verify(const swim_keyring_t *kr, const char *buf, size_t len);

#endif
