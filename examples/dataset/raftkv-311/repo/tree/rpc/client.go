package rpc

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// ErrConnClosing is returned for calls on a connection that is closed or going away.
var ErrConnClosing = &Status{Code: Unavailable, Message: "connection is closing"}

// DialOptions tune a client connection.
type DialOptions struct {
	DialTimeout time.Duration
	// KeepaliveInterval sends a ping when the connection was idle this long; a missing
	// pong within KeepaliveTimeout closes it. Zero disables keepalives.
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration
	Codec             Codec
	MaxFrameSize      int
}

// ClientConn multiplexes calls over one connection.
type ClientConn struct {
	addr  string
	nc    net.Conn
	opts  DialOptions
	codec Codec

	wmu sync.Mutex
	fw  *frameWriter

	mu        sync.Mutex
	nextID    uint64
	pending   map[uint64]chan *Frame
	closed    bool
	goingAway bool
	err       error
	lastRead  time.Time

	done chan struct{}
}

// Dial connects to addr.
func Dial(ctx context.Context, addr string, opts DialOptions) (*ClientConn, error) {
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 3 * time.Second
	}
	if opts.Codec == nil {
		opts.Codec = GobCodec{}
	}
	if opts.KeepaliveInterval > 0 && opts.KeepaliveTimeout <= 0 {
		opts.KeepaliveTimeout = 2 * opts.KeepaliveInterval
	}
	d := net.Dialer{Timeout: opts.DialTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &Status{Code: Unavailable, Message: err.Error()}
	}
	cc := &ClientConn{
		addr:     addr,
		nc:       nc,
		opts:     opts,
		codec:    opts.Codec,
		fw:       newFrameWriter(nc),
		pending:  make(map[uint64]chan *Frame),
		lastRead: time.Now(),
		done:     make(chan struct{}),
	}
	go cc.readLoop(newFrameReader(nc, opts.MaxFrameSize))
	if opts.KeepaliveInterval > 0 {
		go cc.keepalive()
	}
	return cc, nil
}

// Addr returns the address the connection was dialed to.
func (cc *ClientConn) Addr() string { return cc.addr }

// Invoke calls method with req and decodes the answer into resp. The context's deadline
// travels with the request so that the server can give up too.
func (cc *ClientConn) Invoke(ctx context.Context, method string, req, resp any) error {
	payload, err := cc.codec.Marshal(req)
	if err != nil {
		return Errorf(InvalidArgument, "cannot encode request: %v", err)
	}
	id, ch, err := cc.register()
	if err != nil {
		return err
	}
	defer cc.unregister(id)

	f := &Frame{Kind: KindRequest, Flags: flagsForCodec(cc.codec), CallID: id, Method: method, Payload: payload}
	if dl, ok := ctx.Deadline(); ok {
		f.Timeout = time.Until(dl)
		if f.Timeout <= 0 {
			return &Status{Code: DeadlineExceeded, Message: "deadline passed before the call was sent"}
		}
	}
	if err := cc.write(f); err != nil {
		cc.fail(err)
		return &Status{Code: Unavailable, Message: err.Error()}
	}

	select {
	case r, ok := <-ch:
		if !ok {
			return cc.closeErr()
		}
		if r.Code != OK {
			return &Status{Code: r.Code, Message: r.Message}
		}
		if resp == nil || len(r.Payload) == 0 {
			return nil
		}
		return cc.codec.Unmarshal(r.Payload, resp)
	case <-ctx.Done():
		return StatusOf(ctx.Err())
	}
}

func (cc *ClientConn) register() (uint64, chan *Frame, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed || cc.goingAway {
		return 0, nil, ErrConnClosing
	}
	cc.nextID++
	ch := make(chan *Frame, 1)
	cc.pending[cc.nextID] = ch
	return cc.nextID, ch, nil
}

func (cc *ClientConn) unregister(id uint64) {
	cc.mu.Lock()
	delete(cc.pending, id)
	cc.mu.Unlock()
}

func (cc *ClientConn) write(f *Frame) error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	cc.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := cc.fw.write(f); err != nil {
		return err
	}
	return cc.fw.flush()
}

func (cc *ClientConn) readLoop(fr *frameReader) {
	for {
		f, err := fr.read()
		if err != nil {
			cc.fail(err)
			return
		}
		cc.mu.Lock()
		cc.lastRead = time.Now()
		switch f.Kind {
		case KindResponse:
			if ch, ok := cc.pending[f.CallID]; ok {
				ch <- f
				delete(cc.pending, f.CallID)
			}
		case KindGoAway:
			// no new calls; the owner redials when Healthy turns false
			cc.goingAway = true
		case KindPong:
		}
		cc.mu.Unlock()
	}
}

func (cc *ClientConn) keepalive() {
	t := time.NewTicker(cc.opts.KeepaliveInterval)
	defer t.Stop()
	for {
		select {
		case <-cc.done:
			return
		case now := <-t.C:
			cc.mu.Lock()
			idle := now.Sub(cc.lastRead)
			cc.mu.Unlock()
			if idle > cc.opts.KeepaliveInterval+cc.opts.KeepaliveTimeout {
				cc.fail(errors.New("keepalive timed out"))
				return
			}
			if idle >= cc.opts.KeepaliveInterval {
				if err := cc.write(&Frame{Kind: KindPing}); err != nil {
					cc.fail(err)
					return
				}
			}
		}
	}
}

// fail closes the connection and fails every pending call.
func (cc *ClientConn) fail(err error) {
	cc.mu.Lock()
	if cc.closed {
		cc.mu.Unlock()
		return
	}
	cc.closed = true
	cc.err = err
	for id, ch := range cc.pending {
		close(ch)
		delete(cc.pending, id)
	}
	cc.mu.Unlock()
	close(cc.done)
	cc.nc.Close()
}

func (cc *ClientConn) closeErr() error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err == nil {
		return ErrConnClosing
	}
	return &Status{Code: Unavailable, Message: cc.err.Error()}
}

// Healthy tells whether new calls may use this connection.
func (cc *ClientConn) Healthy() bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return !cc.closed && !cc.goingAway
}

// Close closes the connection; pending calls fail with Unavailable.
func (cc *ClientConn) Close() error {
	cc.fail(errors.New("closed by client"))
	return nil
}
