/* UDP transport: one socket for every SWIM packet, addresses as "ip:port" strings as they
 * appear in member records. IPv4 only. */
#ifndef SWIM_TRANSPORT_H
#define SWIM_TRANSPORT_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/types.h>

#define SWIM_ADDR_LEN 48

typedef struct {
    int fd;
    char local[SWIM_ADDR_LEN]; /* the bound address, with the port the kernel chose for :0 */
} swim_transport_t;

/* "10.8.0.17:7946", a host name, or ":7946" for every interface. */
int swim_addr_parse(const char *s, struct sockaddr_in *out);
void swim_addr_format(const struct sockaddr_in *a, char *buf, size_t len);

int swim_transport_open(const char *bind_addr, swim_transport_t *t);
void swim_transport_close(swim_transport_t *t);

/* Sends one datagram; -EMSGSIZE above SWIM_MAX_PACKET. */
int swim_transport_send(swim_transport_t *t, const char *addr, const void *buf, size_t len);

/* Waits up to timeout_ms (0 polls) for one datagram. Returns its length, 0 when none came,
 * or a negative errno. The sender's address is written to from. */
ssize_t swim_transport_recv(swim_transport_t *t, int timeout_ms, void *buf, size_t cap, char *from, size_t from_len);

#endif
