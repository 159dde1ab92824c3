package rpc

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Handler serves one method. decode fills the request message from the payload.
type Handler func(ctx context.Context, decode func(v any) error) (any, error)

// Interceptor wraps every call; the API uses it for metrics and logging.
type Interceptor func(ctx context.Context, method string, next func(ctx context.Context) (any, error)) (any, error)

// ServerOptions tune a server; the zero value is usable.
type ServerOptions struct {
	// MaxConcurrentCalls bounds the calls served at once on one connection; further
	// requests are answered with ResourceExhausted.
	MaxConcurrentCalls int
	// IdleTimeout closes a connection that carried no frame for this long.
	IdleTimeout  time.Duration
	MaxFrameSize int
	Interceptor  Interceptor
	Logger       *zap.Logger
}

// Server accepts connections and dispatches request frames to handlers.
type Server struct {
	opts     ServerOptions
	mu       sync.Mutex
	handlers map[string]Handler
	conns    map[*serverConn]struct{}
	lns      []net.Listener
	draining bool
	wg       sync.WaitGroup
}

// NewServer returns a server with no methods.
func NewServer(opts ServerOptions) *Server {
	if opts.MaxConcurrentCalls <= 0 {
		opts.MaxConcurrentCalls = 256
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 5 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Server{opts: opts, handlers: make(map[string]Handler), conns: make(map[*serverConn]struct{})}
}

// Register adds a method; it panics on a duplicate name, which is a programming error.
func (s *Server) Register(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handlers[method]; dup {
		panic("rpc: method registered twice: " + method)
	}
	s.handlers[method] = h
}

// Serve accepts connections on ln until the listener is closed or Stop is called.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		ln.Close()
		return errors.New("rpc: server stopped")
	}
	s.lns = append(s.lns, ln)
	s.mu.Unlock()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// transient (e.g. too many open files): back off like net/http does
				if backoff == 0 {
					backoff = 5 * time.Millisecond
				} else if backoff *= 2; backoff > time.Second {
					backoff = time.Second
				}
				s.opts.Logger.Warn("rpc: accept failed, retrying", zap.Error(err), zap.Duration("backoff", backoff))
				time.Sleep(backoff)
				continue
			}
			s.mu.Lock()
			draining := s.draining
			s.mu.Unlock()
			if draining {
				return nil
			}
			return err
		}
		backoff = 0
		c := s.newConn(nc)
		if c == nil {
			nc.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
		}()
	}
}

func (s *Server) newConn(nc net.Conn) *serverConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return nil
	}
	c := &serverConn{
		srv:   s,
		nc:    nc,
		fr:    newFrameReader(nc, s.opts.MaxFrameSize),
		fw:    newFrameWriter(nc),
		slots: make(chan struct{}, s.opts.MaxConcurrentCalls),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	s.conns[c] = struct{}{}
	return c
}

func (s *Server) removeConn(c *serverConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) handler(method string) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[method]
}

// Stop closes the listeners, tells every client to go away, and waits up to grace for
// calls in flight; then it closes the remaining connections.
func (s *Server) Stop(grace time.Duration) {
	s.mu.Lock()
	s.draining = true
	for _, ln := range s.lns {
		ln.Close()
	}
	conns := make([]*serverConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	for _, c := range conns {
		c.goAway()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		for _, c := range conns {
			c.close()
		}
		<-done
	}
}

// serverConn is one client connection.
type serverConn struct {
	srv    *Server
	nc     net.Conn
	fr     *frameReader
	wmu    sync.Mutex
	fw     *frameWriter
	slots  chan struct{}
	calls  sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
}

func (c *serverConn) serve() {
	defer func() {
		c.calls.Wait()
		c.close()
		c.srv.removeConn(c)
	}()
	log := c.srv.opts.Logger.With(zap.Stringer("remote", c.nc.RemoteAddr()))
	for {
		c.nc.SetReadDeadline(time.Now().Add(c.srv.opts.IdleTimeout))
		f, err := c.fr.read()
		if err != nil {
			if !isClosedConn(err) {
				log.Debug("rpc: connection closed", zap.Error(err))
			}
			return
		}
		switch f.Kind {
		case KindPing:
			c.send(&Frame{Kind: KindPong, CallID: f.CallID})
		case KindRequest:
			select {
			case c.slots <- struct{}{}:
			default:
				c.reply(f, nil, Errorf(ResourceExhausted, "more than %d calls in flight", cap(c.slots)))
				continue
			}
			c.calls.Add(1)
			go c.dispatch(f)
		case KindGoAway:
			log.Debug("rpc: client is going away")
		default:
			log.Warn("rpc: unexpected frame from client", zap.Stringer("kind", f.Kind))
		}
	}
}

func (c *serverConn) dispatch(f *Frame) {
	defer func() {
		<-c.slots
		c.calls.Done()
	}()
	h := c.srv.handler(f.Method)
	if h == nil {
		c.reply(f, nil, Errorf(Unimplemented, "unknown method %q", f.Method))
		return
	}
	ctx := c.ctx
	if f.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.Timeout)
		defer cancel()
	}
	codec := codecForFlags(f.Flags)
	decode := func(v any) error {
		if err := codec.Unmarshal(f.Payload, v); err != nil {
			return Errorf(InvalidArgument, "cannot decode %s request: %v", f.Method, err)
		}
		return nil
	}
	call := func(ctx context.Context) (any, error) { return h(ctx, decode) }
	var (
		resp any
		err  error
	)
	if ic := c.srv.opts.Interceptor; ic != nil {
		resp, err = ic(ctx, f.Method, call)
	} else {
		resp, err = call(ctx)
	}
	c.reply(f, resp, err)
}

func (c *serverConn) reply(req *Frame, resp any, err error) {
	out := &Frame{Kind: KindResponse, CallID: req.CallID, Flags: req.Flags}
	if err != nil {
		st := StatusOf(err)
		out.Code, out.Message = st.Code, st.Message
	} else if resp != nil {
		payload, merr := codecForFlags(req.Flags).Marshal(resp)
		if merr != nil {
			out.Code, out.Message = Internal, "cannot encode response: "+merr.Error()
		} else {
			out.Payload = payload
		}
	}
	c.send(out)
}

func (c *serverConn) send(f *Frame) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	err := c.fw.write(f)
	if err == nil {
		err = c.fw.flush()
	}
	if err != nil {
		// the read loop notices the closed connection and ends it
		c.srv.opts.Logger.Debug("rpc: write failed", zap.Error(err))
		c.close()
	}
}

func (c *serverConn) goAway() { c.send(&Frame{Kind: KindGoAway}) }

func (c *serverConn) close() {
	c.once.Do(func() {
		c.nc.Close()
		c.cancel()
	})
}

func isClosedConn(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF)
}
