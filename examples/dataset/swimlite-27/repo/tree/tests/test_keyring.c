/* SHA-256 and HMAC against published vectors, key rotation, and sealed packets. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keyring.h"
#include "sha256.h"

static void hex(const unsigned char *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_vectors(void) {
    unsigned char digest[SWIM_SHA256_LEN];
    char text[2 * SWIM_SHA256_LEN + 1];
    swim_sha256_t s;
    swim_sha256_init(&s);
    swim_sha256_update(&s, "abc", 3);
    swim_sha256_final(&s, digest);
    hex(digest, sizeof digest, text);
    assert(strcmp(text, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);

    /* RFC 4231, test case 2 */
    swim_hmac_sha256((const unsigned char *)"Jefe", 4, "what do ya want for nothing?", 28, digest);
    hex(digest, sizeof digest, text);
    assert(strcmp(text, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") == 0);
}

static void test_rotation(void) {
    unsigned char old_key[SWIM_KEY_LEN], new_key[SWIM_KEY_LEN];
    assert(swim_key_parse("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", old_key) == 0);
    assert(swim_key_parse("ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1eff", new_key) == 0);
    assert(swim_key_parse("not hex", new_key) == -EINVAL);
    assert(swim_key_parse("ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1eff", new_key) == 0);

    swim_keyring_t a = {0}, b = {0};
    assert(swim_keyring_add(&a, old_key) == 0);
    assert(swim_keyring_add(&b, old_key) == 0);
    char buf[128] = "a packet";
    int len = swim_keyring_seal(&a, buf, 8, sizeof buf);
    assert(len == 8 + SWIM_TAG_LEN && swim_keyring_verify(&b, buf, (size_t)len) == 8);
    buf[3] ^= 1;
    assert(swim_keyring_verify(&b, buf, (size_t)len) == -EBADMSG);
    buf[3] ^= 1;

    /* Step one: b learns the new key; step two: a signs with it; b still accepts. */
    assert(swim_keyring_add(&b, new_key) == 0);
    assert(swim_keyring_add(&a, new_key) == 0 && swim_keyring_use(&a, new_key) == 0);
    len = swim_keyring_seal(&a, buf, 8, sizeof buf);
    assert(swim_keyring_verify(&b, buf, (size_t)len) == 8);
    assert(swim_keyring_remove(&a, new_key) == -EBUSY);
    assert(swim_keyring_remove(&a, old_key) == 0 && a.n == 1);
    assert(swim_keyring_seal(&a, buf, 120, sizeof buf) == -EMSGSIZE);
}

int main(void) {
    test_vectors();
    test_rotation();
    puts("test_keyring passed");
    return 0;
}
