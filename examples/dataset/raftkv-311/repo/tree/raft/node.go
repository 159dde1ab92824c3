package raft

import (
	"context"
	"time"
)

// Ready carries what the application must do after a step: persist and send messages,
// apply committed entries.
type Ready struct {
	Messages         []Message
	CommittedEntries []Entry
}

// Node runs a raft state machine in its own goroutine.
type Node struct {
	r       *raft
	propc   chan []byte
	recvc   chan Message
	readyc  chan Ready
	advance chan struct{}
	tickc   chan struct{}
	done    chan struct{}
}

// StartNode starts a node with the given configuration.
func StartNode(c *Config) *Node {
	n := &Node{
		r:       newRaft(c),
		propc:   make(chan []byte),
		recvc:   make(chan Message, 256),
		readyc:  make(chan Ready),
		advance: make(chan struct{}),
		tickc:   make(chan struct{}, 128),
		done:    make(chan struct{}),
	}
	go n.run()
	return n
}

func (n *Node) run() {
	var rd Ready
	var readyc chan Ready
	var advancec chan struct{}
	for {
		if advancec == nil && readyc == nil {
			rd = Ready{Messages: n.r.msgs, CommittedEntries: n.r.log.nextCommitted()}
			if len(rd.Messages) > 0 || len(rd.CommittedEntries) > 0 {
				readyc = n.readyc
			}
		}
		select {
		case data := <-n.propc:
			if n.r.state == StateLeader {
				n.r.appendEntry(Entry{Data: data})
				n.r.broadcastAppend()
			}
		case m := <-n.recvc:
			n.r.Step(m)
		case <-n.tickc:
			n.r.tick()
		case readyc <- rd:
			n.r.msgs = nil
			readyc = nil
			advancec = n.advance
		case <-advancec:
			if k := len(rd.CommittedEntries); k > 0 {
				n.r.log.appliedTo(rd.CommittedEntries[k-1].Index)
			}
			advancec = nil
		case <-n.done:
			return
		}
	}
}

// Tick advances the logical clock.
func (n *Node) Tick() {
	select {
	case n.tickc <- struct{}{}:
	default:
	}
}

// Propose submits a command; only a leader accepts it.
func (n *Node) Propose(ctx context.Context, data []byte) error {
	select {
	case n.propc <- data:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Step delivers a message from a peer.
func (n *Node) Step(m Message) { n.recvc <- m }

// Ready returns the channel of pending work.
func (n *Node) Ready() <-chan Ready { return n.readyc }

// Advance tells the node the last Ready was handled.
func (n *Node) Advance() { n.advance <- struct{}{} }

// RunTicker ticks the node every interval until ctx is done.
func (n *Node) RunTicker(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			n.Tick()
		case <-ctx.Done():
			return
		}
	}
}

// Stop stops the node.
func (n *Node) Stop() { close(n.done) }
