package wal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/raftkv/raftkv/raft"
)

// recordType tells what a WAL record holds.
type recordType uint8

const (
	metadataRecord recordType = iota + 1
	entryRecord
	stateRecord
	snapshotRecord
)

func (t recordType) String() string {
	switch t {
	case metadataRecord:
		return "metadata"
	case entryRecord:
		return "entry"
	case stateRecord:
		return "state"
	case snapshotRecord:
		return "snapshot"
	default:
		return fmt.Sprintf("record(%d)", uint8(t))
	}
}

// A record on disk, 8-byte aligned so that a torn write never leaves a header that
// straddles two sectors:
//
//	uint32  body length (type byte + data), without padding
//	uint32  CRC-32C of the body
//	uint8   record type
//	...     data
//	...     zero padding up to a multiple of 8
const recordHeaderSize = 8

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var (
	// ErrCRCMismatch means a record's body does not match its checksum.
	ErrCRCMismatch = errors.New("wal: crc mismatch")
	// errZeroRecord is a header of zeros: preallocated space after the last record.
	errZeroRecord = errors.New("wal: zero record")
)

// maxRecordSize bounds one record; larger lengths mean a corrupt header.
const maxRecordSize = 64 << 20

type record struct {
	typ  recordType
	data []byte
}

func padding(n int) int { return (8 - n%8) % 8 }

type encoder struct {
	bw  *bufio.Writer
	buf []byte
}

func newEncoder(w io.Writer) *encoder {
	return &encoder{bw: bufio.NewWriterSize(w, 64<<10)}
}

func (e *encoder) encode(r *record) (int, error) {
	body := 1 + len(r.data)
	total := recordHeaderSize + body + padding(body)
	if cap(e.buf) < total {
		e.buf = make([]byte, total)
	}
	b := e.buf[:total]
	for i := recordHeaderSize + body; i < total; i++ {
		b[i] = 0
	}
	b[recordHeaderSize] = byte(r.typ)
	copy(b[recordHeaderSize+1:], r.data)
	binary.LittleEndian.PutUint32(b[0:4], uint32(body))
	binary.LittleEndian.PutUint32(b[4:8], crc32.Checksum(b[recordHeaderSize:recordHeaderSize+body], crcTable))
	return e.bw.Write(b)
}

func (e *encoder) flush() error { return e.bw.Flush() }

type decoder struct {
	br *bufio.Reader
	// offset is the position after the last record decoded successfully; Repair
	// truncates the segment there.
	offset int64
}

func newDecoder(r io.Reader) *decoder {
	return &decoder{br: bufio.NewReaderSize(r, 64<<10)}
}

func (d *decoder) decode() (*record, error) {
	var hdr [recordHeaderSize]byte
	if _, err := io.ReadFull(d.br, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	body := int(binary.LittleEndian.Uint32(hdr[0:4]))
	sum := binary.LittleEndian.Uint32(hdr[4:8])
	if body == 0 && sum == 0 {
		return nil, errZeroRecord
	}
	if body > maxRecordSize {
		return nil, fmt.Errorf("wal: record length %d exceeds the maximum", body)
	}
	buf := make([]byte, body+padding(body))
	if _, err := io.ReadFull(d.br, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	buf = buf[:body]
	if crc32.Checksum(buf, crcTable) != sum {
		return nil, ErrCRCMismatch
	}
	d.offset += int64(recordHeaderSize + body + padding(body))
	return &record{typ: recordType(buf[0]), data: buf[1:]}, nil
}

// HardState is what raft must remember across restarts besides the log.
type HardState struct {
	Term   uint64
	Vote   uint64
	Commit uint64
}

// IsEmpty tells whether st was never set.
func (st HardState) IsEmpty() bool { return st == HardState{} }

// SnapshotMark records that a snapshot at Index/Term was saved, so that replay can
// start there.
type SnapshotMark struct {
	Index uint64
	Term  uint64
}

func encodeEntry(e raft.Entry) []byte {
	b := make([]byte, 8+8+1+len(e.Data))
	binary.LittleEndian.PutUint64(b[0:8], e.Term)
	binary.LittleEndian.PutUint64(b[8:16], e.Index)
	b[16] = byte(e.Type)
	copy(b[17:], e.Data)
	return b
}

func decodeEntry(b []byte) (raft.Entry, error) {
	if len(b) < 17 {
		return raft.Entry{}, fmt.Errorf("wal: entry record of %d bytes", len(b))
	}
	e := raft.Entry{
		Term:  binary.LittleEndian.Uint64(b[0:8]),
		Index: binary.LittleEndian.Uint64(b[8:16]),
		Type:  raft.EntryType(b[16]),
	}
	if len(b) > 17 {
		e.Data = append([]byte(nil), b[17:]...)
	}
	return e, nil
}

func encodeState(st HardState) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint64(b[0:8], st.Term)
	binary.LittleEndian.PutUint64(b[8:16], st.Vote)
	binary.LittleEndian.PutUint64(b[16:24], st.Commit)
	return b
}

func decodeState(b []byte) (HardState, error) {
	if len(b) != 24 {
		return HardState{}, fmt.Errorf("wal: state record of %d bytes", len(b))
	}
	return HardState{
		Term:   binary.LittleEndian.Uint64(b[0:8]),
		Vote:   binary.LittleEndian.Uint64(b[8:16]),
		Commit: binary.LittleEndian.Uint64(b[16:24]),
	}, nil
}

func encodeSnapshotMark(m SnapshotMark) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b[0:8], m.Index)
	binary.LittleEndian.PutUint64(b[8:16], m.Term)
	return b
}

func decodeSnapshotMark(b []byte) (SnapshotMark, error) {
	if len(b) != 16 {
		return SnapshotMark{}, fmt.Errorf("wal: snapshot record of %d bytes", len(b))
	}
	return SnapshotMark{Index: binary.LittleEndian.Uint64(b[0:8]), Term: binary.LittleEndian.Uint64(b[8:16])}, nil
}
