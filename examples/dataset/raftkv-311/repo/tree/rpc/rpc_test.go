package rpc

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

type echoReq struct{ Text string }
type echoResp struct{ Text string }

func startServer(t *testing.T, register func(s *Server)) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ServerOptions{MaxConcurrentCalls: 4})
	register(s)
	go s.Serve(ln)
	t.Cleanup(func() { s.Stop(time.Second) })
	return s, ln.Addr().String()
}

func TestFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	fw := newFrameWriter(&buf)
	in := []*Frame{
		{Kind: KindRequest, CallID: 7, Timeout: 1500 * time.Millisecond, Method: "kv.Put", Payload: []byte("abc")},
		{Kind: KindResponse, CallID: 7, Code: NotLeader, Message: "10.0.0.2:7101"},
		{Kind: KindPing, CallID: 8},
	}
	for _, f := range in {
		if err := fw.write(f); err != nil {
			t.Fatal(err)
		}
	}
	fw.flush()
	fr := newFrameReader(&buf, 0)
	for i, want := range in {
		got, err := fr.read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got.Kind != want.Kind || got.CallID != want.CallID || got.Method != want.Method ||
			got.Code != want.Code || got.Message != want.Message || got.Timeout != want.Timeout ||
			!bytes.Equal(got.Payload, want.Payload) {
			t.Fatalf("frame %d: got %+v, want %+v", i, got, want)
		}
	}
}

func TestFrameTooLarge(t *testing.T) {
	var buf bytes.Buffer
	fw := newFrameWriter(&buf)
	fw.write(&Frame{Kind: KindRequest, Method: "m", Payload: make([]byte, 1024)})
	fw.flush()
	if _, err := newFrameReader(&buf, 512).read(); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("got %v, want ErrFrameTooLarge", err)
	}
}

func TestInvoke(t *testing.T) {
	_, addr := startServer(t, func(s *Server) {
		s.Register("echo", func(ctx context.Context, decode func(any) error) (any, error) {
			var req echoReq
			if err := decode(&req); err != nil {
				return nil, err
			}
			return &echoResp{Text: req.Text + "!"}, nil
		})
	})
	for _, codec := range []Codec{GobCodec{}, JSONCodec{}} {
		cc, err := Dial(context.Background(), addr, DialOptions{Codec: codec})
		if err != nil {
			t.Fatal(err)
		}
		var resp echoResp
		if err := cc.Invoke(context.Background(), "echo", &echoReq{Text: "hi"}, &resp); err != nil {
			t.Fatalf("%s: %v", codec.Name(), err)
		}
		if resp.Text != "hi!" {
			t.Fatalf("%s: got %q", codec.Name(), resp.Text)
		}
		cc.Close()
	}
}

func TestUnknownMethodAndStatus(t *testing.T) {
	_, addr := startServer(t, func(s *Server) {
		s.Register("fail", func(ctx context.Context, decode func(any) error) (any, error) {
			return nil, Errorf(NotLeader, "leader is %s", "n2")
		})
	})
	cc, err := Dial(context.Background(), addr, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if err := cc.Invoke(context.Background(), "nope", &echoReq{}, nil); CodeOf(err) != Unimplemented {
		t.Fatalf("got %v, want Unimplemented", err)
	}
	err = cc.Invoke(context.Background(), "fail", &echoReq{}, nil)
	if st := StatusOf(err); st.Code != NotLeader || st.Message != "leader is n2" {
		t.Fatalf("got %v", err)
	}
	if !Retryable(err, false) {
		t.Fatal("NotLeader must be retryable")
	}
}

func TestServerBoundsConcurrentCalls(t *testing.T) {
	release := make(chan struct{})
	_, addr := startServer(t, func(s *Server) {
		s.Register("block", func(ctx context.Context, decode func(any) error) (any, error) {
			<-release
			return nil, nil
		})
	})
	cc, err := Dial(context.Background(), addr, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()

	var wg sync.WaitGroup
	codes := make(chan Code, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- CodeOf(cc.Invoke(context.Background(), "block", &echoReq{}, nil))
		}()
	}
	// four calls fill the slots, the other four are refused
	for i := 0; i < 4; i++ {
		if c := <-codes; c != ResourceExhausted {
			t.Fatalf("got %v, want ResourceExhausted", c)
		}
	}
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != OK {
			t.Fatalf("got %v, want OK", c)
		}
	}
}

func TestPendingCallsFailWhenConnectionCloses(t *testing.T) {
	started := make(chan struct{})
	srv, addr := startServer(t, func(s *Server) {
		s.Register("hang", func(ctx context.Context, decode func(any) error) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	})
	cc, err := Dial(context.Background(), addr, DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cc.Invoke(context.Background(), "hang", &echoReq{}, nil) }()
	<-started
	srv.Stop(0)
	if err := <-errc; CodeOf(err) != Unavailable {
		t.Fatalf("got %v, want Unavailable", err)
	}
	if cc.Healthy() {
		t.Fatal("connection still healthy after the server stopped")
	}
}
