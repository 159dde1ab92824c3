package kv

import (
	"context"
	"encoding/gob"
	"net"
	"sync"

	"github.com/raftkv/raftkv/raft"
	"go.uber.org/zap"
)

// TCPTransport sends each message on its own pooled connection; messages to the same
// peer may arrive out of order.
type TCPTransport struct {
	id     uint64
	addrs  map[uint64]string
	node   *raft.Node
	logger *zap.Logger
	mu     sync.Mutex
	pools  map[uint64][]net.Conn
}

// NewTCPTransport returns a transport for the given peer addresses.
func NewTCPTransport(id uint64, addrs map[uint64]string, node *raft.Node, logger *zap.Logger) *TCPTransport {
	return &TCPTransport{id: id, addrs: addrs, node: node, logger: logger, pools: map[uint64][]net.Conn{}}
}

// Send sends messages concurrently, one goroutine each.
func (t *TCPTransport) Send(msgs []raft.Message) {
	for _, m := range msgs {
		go t.sendOne(m)
	}
}

func (t *TCPTransport) sendOne(m raft.Message) {
	conn, err := t.get(m.To)
	if err != nil {
		t.logger.Debug("peer unreachable", zap.Uint64("to", m.To), zap.Error(err))
		return
	}
	if err := gob.NewEncoder(conn).Encode(&m); err != nil {
		conn.Close()
		return
	}
	t.put(m.To, conn)
}

func (t *TCPTransport) get(to uint64) (net.Conn, error) {
	t.mu.Lock()
	if pool := t.pools[to]; len(pool) > 0 {
		c := pool[len(pool)-1]
		t.pools[to] = pool[:len(pool)-1]
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	return net.Dial("tcp", t.addrs[to])
}

func (t *TCPTransport) put(to uint64, c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pools[to] = append(t.pools[to], c)
}

// Listen accepts connections from peers and steps their messages into the node.
func (t *TCPTransport) Listen(ctx context.Context) {
	ln, err := net.Listen("tcp", t.addrs[t.id])
	if err != nil {
		t.logger.Fatal("listen", zap.Error(err))
	}
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			dec := gob.NewDecoder(conn)
			for {
				var m raft.Message
				if err := dec.Decode(&m); err != nil {
					conn.Close()
					return
				}
				t.node.Step(m)
			}
		}()
	}
}
