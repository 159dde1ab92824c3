// Package rpc is the request/response protocol of the client API: length-prefixed frames
// over one TCP connection, many calls in flight per connection, matched by call id.
//
// A frame on the wire:
//
//	uint32  length of everything after this field
//	uint8   kind (request, response, ping, pong, goaway)
//	uint8   flags
//	uint64  call id
//	uint32  timeout in milliseconds (requests only; 0 means none)
//	uint16  method name length, then the method name (requests only)
//	uint16  status code (responses only), then the status message length and message
//	...     payload, encoded by the connection's codec
package rpc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// FrameKind tells what a frame carries.
type FrameKind uint8

const (
	KindRequest FrameKind = iota + 1
	KindResponse
	KindPing
	KindPong
	// KindGoAway tells the peer that the sender will not accept new calls on this
	// connection; calls already in flight still complete.
	KindGoAway
)

func (k FrameKind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindResponse:
		return "response"
	case KindPing:
		return "ping"
	case KindPong:
		return "pong"
	case KindGoAway:
		return "goaway"
	default:
		return fmt.Sprintf("kind(%d)", uint8(k))
	}
}

// DefaultMaxFrameSize bounds a frame so that a corrupt length cannot make the reader
// allocate gigabytes.
const DefaultMaxFrameSize = 4 << 20

// fixedHeaderSize is kind + flags + call id + timeout.
const fixedHeaderSize = 1 + 1 + 8 + 4

var (
	ErrFrameTooLarge = errors.New("rpc: frame exceeds the maximum size")
	ErrShortFrame    = errors.New("rpc: frame shorter than its header")
)

// Frame is one decoded frame.
type Frame struct {
	Kind    FrameKind
	Flags   uint8
	CallID  uint64
	Timeout time.Duration
	Method  string
	Code    Code
	Message string
	Payload []byte
}

// frameWriter encodes frames into a buffered writer. It is not safe for concurrent use:
// the connection serializes writers.
type frameWriter struct {
	w   *bufio.Writer
	hdr [fixedHeaderSize + 4]byte
}

func newFrameWriter(w io.Writer) *frameWriter {
	return &frameWriter{w: bufio.NewWriterSize(w, 32<<10)}
}

func (fw *frameWriter) write(f *Frame) error {
	var variable int
	switch f.Kind {
	case KindRequest:
		variable = 2 + len(f.Method)
	case KindResponse:
		variable = 2 + 2 + len(f.Message)
	}
	length := fixedHeaderSize + variable + len(f.Payload)
	if length > DefaultMaxFrameSize {
		return ErrFrameTooLarge
	}
	h := fw.hdr[:]
	binary.BigEndian.PutUint32(h[0:4], uint32(length))
	h[4] = byte(f.Kind)
	h[5] = f.Flags
	binary.BigEndian.PutUint64(h[6:14], f.CallID)
	binary.BigEndian.PutUint32(h[14:18], uint32(f.Timeout/time.Millisecond))
	if _, err := fw.w.Write(h); err != nil {
		return err
	}
	var scratch [2]byte
	switch f.Kind {
	case KindRequest:
		binary.BigEndian.PutUint16(scratch[:], uint16(len(f.Method)))
		fw.w.Write(scratch[:])
		fw.w.WriteString(f.Method)
	case KindResponse:
		binary.BigEndian.PutUint16(scratch[:], uint16(f.Code))
		fw.w.Write(scratch[:])
		binary.BigEndian.PutUint16(scratch[:], uint16(len(f.Message)))
		fw.w.Write(scratch[:])
		fw.w.WriteString(f.Message)
	}
	if _, err := fw.w.Write(f.Payload); err != nil {
		return err
	}
	return nil
}

func (fw *frameWriter) flush() error { return fw.w.Flush() }

// frameReader decodes frames from a buffered reader.
type frameReader struct {
	r       *bufio.Reader
	maxSize int
}

func newFrameReader(r io.Reader, maxSize int) *frameReader {
	if maxSize <= 0 {
		maxSize = DefaultMaxFrameSize
	}
	return &frameReader{r: bufio.NewReaderSize(r, 32<<10), maxSize: maxSize}
}

func (fr *frameReader) read() (*Frame, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(fr.r, lenBuf[:]); err != nil {
		return nil, err
	}
	length := int(binary.BigEndian.Uint32(lenBuf[:]))
	if length > fr.maxSize {
		return nil, ErrFrameTooLarge
	}
	if length < fixedHeaderSize {
		return nil, ErrShortFrame
	}
	buf := make([]byte, length)
	if _, err := io.ReadFull(fr.r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	f := &Frame{
		Kind:    FrameKind(buf[0]),
		Flags:   buf[1],
		CallID:  binary.BigEndian.Uint64(buf[2:10]),
		Timeout: time.Duration(binary.BigEndian.Uint32(buf[10:14])) * time.Millisecond,
	}
	rest := buf[fixedHeaderSize:]
	var err error
	switch f.Kind {
	case KindRequest:
		var method []byte
		if method, rest, err = readString(rest); err != nil {
			return nil, err
		}
		f.Method = string(method)
	case KindResponse:
		if len(rest) < 2 {
			return nil, ErrShortFrame
		}
		f.Code = Code(binary.BigEndian.Uint16(rest[:2]))
		var msg []byte
		if msg, rest, err = readString(rest[2:]); err != nil {
			return nil, err
		}
		f.Message = string(msg)
	case KindPing, KindPong, KindGoAway:
	default:
		return nil, fmt.Errorf("rpc: unknown frame kind %d", buf[0])
	}
	f.Payload = rest
	return f, nil
}

// readString reads a uint16 length-prefixed string.
func readString(b []byte) (s, rest []byte, err error) {
	if len(b) < 2 {
		return nil, nil, ErrShortFrame
	}
	n := int(binary.BigEndian.Uint16(b[:2]))
	if len(b) < 2+n {
		return nil, nil, ErrShortFrame
	}
	return b[2 : 2+n], b[2+n:], nil
}
