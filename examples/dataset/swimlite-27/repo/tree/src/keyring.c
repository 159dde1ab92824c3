#include "keyring.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sha256.h"

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int swim_key_parse(const char *hex, unsigned char key[SWIM_KEY_LEN]) {
    if (strlen(hex) != 2 * SWIM_KEY_LEN) return -EINVAL;
    for (size_t i = 0; i < SWIM_KEY_LEN; i++) {
        int hi = hex_value((unsigned char)hex[2 * i]), lo = hex_value((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -EINVAL;
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

static int find(const swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]) {
    for (size_t i = 0; i < kr->n; i++)
        if (memcmp(kr->keys[i], key, SWIM_KEY_LEN) == 0) return (int)i;
    return -1;
}

int swim_keyring_add(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]) {
    if (find(kr, key) >= 0) return 0;
    if (kr->n == SWIM_MAX_KEYS) return -ENOSPC;
    memcpy(kr->keys[kr->n++], key, SWIM_KEY_LEN);
    return 0;
}

int swim_keyring_use(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]) {
    int i = find(kr, key);
    if (i < 0) return -ENOENT;
    unsigned char tmp[SWIM_KEY_LEN];
    memcpy(tmp, kr->keys[0], SWIM_KEY_LEN);
    memcpy(kr->keys[0], kr->keys[i], SWIM_KEY_LEN);
    memcpy(kr->keys[i], tmp, SWIM_KEY_LEN);
    return 0;
}

int swim_keyring_remove(swim_keyring_t *kr, const unsigned char key[SWIM_KEY_LEN]) {
    int i = find(kr, key);
    if (i < 0) return -ENOENT;
    if (i == 0) return -EBUSY;
    memmove(kr->keys[i], kr->keys[i + 1], (kr->n - (size_t)i - 1) * SWIM_KEY_LEN);
    kr->n--;
    return 0;
}

int swim_keyring_load(swim_keyring_t *kr, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -errno;
    char line[256];
    int rc = 0;
    memset(kr, 0, sizeof *kr);
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        s[strcspn(s, " \t\r\n")] = '\0';
        if (*s == '\0') continue;
        unsigned char key[SWIM_KEY_LEN];
        rc = swim_key_parse(s, key);
        if (rc == 0) rc = swim_keyring_add(kr, key);
    }
    fclose(f);
    if (rc == 0 && kr->n == 0) rc = -ENOKEY;
    return rc;
}

int swim_keyring_seal(const swim_keyring_t *kr, char *buf, size_t len, size_t cap) {
    if (kr->n == 0) return -ENOKEY;
    if (cap - len < SWIM_TAG_LEN || len > cap) return -EMSGSIZE;
    unsigned char mac[SWIM_SHA256_LEN];
    swim_hmac_sha256(kr->keys[0], SWIM_KEY_LEN, buf, len, mac);
    memcpy(buf + len, mac, SWIM_TAG_LEN);
    return (int)(len + SWIM_TAG_LEN);
}

/* Compares every byte so the time taken does not tell how much of a forged tag was right. */
static int tags_equal(const unsigned char *a, const unsigned char *b) {
    unsigned char diff = 0;
    for (size_t i = 0; i < SWIM_TAG_LEN; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}

int swim_keyring_verify(const swim_keyring_t *kr, const char *buf, size_t len) {
    if (len < SWIM_TAG_LEN) return -EBADMSG;
    size_t body = len - SWIM_TAG_LEN;
    for (size_t i = 0; i < kr->n; i++) {
        unsigned char mac[SWIM_SHA256_LEN];
        swim_hmac_sha256(kr->keys[i], SWIM_KEY_LEN, buf, body, mac);
        if (tags_equal(mac, (const unsigned char *)buf + body)) return (int)body;
    }
    return -EBADMSG;
}
