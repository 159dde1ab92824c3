#include "packet.h"

#include <errno.h>
#include <string.h>

#define VERSION 1
#define HEADER_FIXED 8

const char *swim_packet_type_name(swim_packet_type_t t) {
    switch (t) {
    case PKT_PING: return "ping";
    case PKT_ACK: return "ack";
    case PKT_PING_REQ: return "ping-req";
    case PKT_NACK: return "nack";
    case PKT_SYNC: return "sync";
    case PKT_SYNC_REPLY: return "sync-reply";
    }
    return "unknown";
}

typedef struct {
    char *p;
    size_t len;
    size_t cap;
    int overflow;
} writer_t;

static void put(writer_t *w, const void *data, size_t n) {
    if (w->overflow || w->cap - w->len < n) {
        w->overflow = 1;
        return;
    }
    memcpy(w->p + w->len, data, n);
    w->len += n;
}

static void put_u8(writer_t *w, unsigned v) {
    unsigned char b = (unsigned char)v;
    put(w, &b, 1);
}

static void put_u16(writer_t *w, unsigned v) {
    unsigned char b[2] = {(unsigned char)(v >> 8), (unsigned char)v};
    put(w, b, 2);
}

static void put_u32(writer_t *w, uint32_t v) {
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    put(w, b, 4);
}

static void put_s8(writer_t *w, const char *s) {
    size_t n = strnlen(s, 255);
    put_u8(w, (unsigned)n);
    put(w, s, n);
}

/* Appends one piggybacked update, or nothing when it does not fit. */
static int put_update(writer_t *w, const swim_msg_t *m) {
    char text[256];
    int n = swim_encode(m, text, sizeof text);
    if (n < 0 || w->cap - w->len < (size_t)n + 1) return 0;
    put_u8(w, (unsigned)n);
    put(w, text, (size_t)n);
    return 1;
}

static int put_event(writer_t *w, const swim_user_event_t *e) {
    size_t need = 4 + 1 + strnlen(e->name, SWIM_EVENT_NAME_LEN) + 2 + e->payload_len;
    if (w->cap - w->len < need) return 0;
    put_u32(w, e->ltime);
    put_s8(w, e->name);
    put_u16(w, (unsigned)e->payload_len);
    put(w, e->payload, e->payload_len);
    return 1;
}

int swim_packet_encode(const swim_packet_t *p, char *buf, size_t cap, size_t *n_updates_written,
                       size_t *n_events_written) {
    writer_t w = {buf, 0, cap, 0};
    put(&w, "SW", 2);
    put_u8(&w, VERSION);
    put_u8(&w, (unsigned)p->type);
    put_u32(&w, p->seq);
    put_s8(&w, p->from);
    put_s8(&w, p->target);
    put_s8(&w, p->target_addr);
    /* Leave room for both counts; updates fill what is left first, then events. */
    size_t counts_at = w.len;
    put_u8(&w, 0);
    if (w.overflow || w.cap - w.len < 1) return -EMSGSIZE;
    w.cap -= 1;
    size_t updates = 0, events = 0;
    while (updates < p->n_updates && updates < SWIM_MAX_UPDATES && put_update(&w, &p->updates[updates])) updates++;
    w.cap += 1;
    size_t events_at = w.len;
    put_u8(&w, 0);
    while (events < p->n_events && events < SWIM_MAX_EVENTS && put_event(&w, &p->events[events])) events++;
    buf[counts_at] = (char)updates;
    buf[events_at] = (char)events;
    if (n_updates_written) *n_updates_written = updates;
    if (n_events_written) *n_events_written = events;
    return (int)w.len;
}

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
    int bad;
} reader_t;

static const unsigned char *take(reader_t *r, size_t n) {
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *at = r->p;
    r->p += n;
    return at;
}

static unsigned get_u8(reader_t *r) {
    const unsigned char *b = take(r, 1);
    return b ? b[0] : 0;
}

static unsigned get_u16(reader_t *r) {
    const unsigned char *b = take(r, 2);
    return b ? ((unsigned)b[0] << 8) | b[1] : 0;
}

static uint32_t get_u32(reader_t *r) {
    const unsigned char *b = take(r, 4);
    return b ? ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3] : 0;
}

/* A string into a NUL-terminated field of size cap; too long for the field is malformed. */
static void get_s8(reader_t *r, char *out, size_t cap) {
    size_t n = get_u8(r);
    const unsigned char *s = take(r, n);
    if (!s || n >= cap) {
        r->bad = 1;
        out[0] = '\0';
        return;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

static void get_update(reader_t *r, swim_msg_t *m) {
    size_t n = get_u8(r);
    const unsigned char *s = take(r, n);
    if (!s || swim_decode((const char *)s, n, m) != 0) r->bad = 1;
}

static void get_event(reader_t *r, swim_user_event_t *e) {
    e->ltime = get_u32(r);
    get_s8(r, e->name, sizeof e->name);
    e->payload_len = get_u16(r);
    const unsigned char *s = take(r, e->payload_len);
    if (!s || e->payload_len > sizeof e->payload) {
        r->bad = 1;
        return;
    }
    memcpy(e->payload, s, e->payload_len);
}

int swim_packet_decode(const char *buf, size_t len, swim_packet_t *p) {
    reader_t r = {(const unsigned char *)buf, (const unsigned char *)buf + len, 0};
    memset(p, 0, sizeof *p);
    const unsigned char *magic = take(&r, 2);
    if (!magic || magic[0] != 'S' || magic[1] != 'W' || get_u8(&r) != VERSION) return -EBADMSG;
    unsigned type = get_u8(&r);
    if (type < PKT_PING || type > PKT_SYNC_REPLY) return -EBADMSG;
    p->type = (swim_packet_type_t)type;
    p->seq = get_u32(&r);
    get_s8(&r, p->from, sizeof p->from);
    get_s8(&r, p->target, sizeof p->target);
    get_s8(&r, p->target_addr, sizeof p->target_addr);
    p->n_updates = get_u8(&r);
    if (p->n_updates > SWIM_MAX_UPDATES) return -EBADMSG;
    for (size_t i = 0; i < p->n_updates && !r.bad; i++) get_update(&r, &p->updates[i]);
    p->n_events = get_u8(&r);
    if (p->n_events > SWIM_MAX_EVENTS) return -EBADMSG;
    for (size_t i = 0; i < p->n_events && !r.bad; i++) get_event(&r, &p->events[i]);
    if (r.bad || r.p != r.end || p->from[0] == '\0') return -EBADMSG;
    return 0;
}
