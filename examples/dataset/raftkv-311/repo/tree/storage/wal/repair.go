package wal

import (
	"errors"
	"io"
	"os"

	"go.uber.org/zap"
)

// Repair fixes the one corruption a crash can cause: a torn record at the end of the
// last segment. It keeps a copy of the segment as <name>.broken and truncates the
// segment after its last good record. It returns false when the damage is elsewhere
// (a bad record in the middle, a missing segment), which needs an operator.
func Repair(dir string, logger *zap.Logger) (bool, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	names, err := segmentNames(dir)
	if err != nil {
		return false, err
	}
	if len(names) == 0 {
		return false, nil
	}
	name := names[len(names)-1]
	path := segmentPath(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()

	dec := newDecoder(f)
	for {
		_, err := dec.decode()
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF), errors.Is(err, errZeroRecord):
			// nothing torn
			return true, nil
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrCRCMismatch):
			st, serr := f.Stat()
			if serr != nil {
				return false, serr
			}
			// a CRC mismatch is repairable only if nothing follows the bad record
			if errors.Is(err, ErrCRCMismatch) && !onlyZerosAfter(f, dec.offset, st.Size()) {
				logger.Warn("wal: corrupt record in the middle of the last segment", zap.String("segment", name), zap.Int64("offset", dec.offset))
				return false, nil
			}
			if err := copyFile(path, path+".broken"); err != nil {
				return false, err
			}
			if err := os.Truncate(path, dec.offset); err != nil {
				return false, err
			}
			logger.Info("wal: truncated a torn record", zap.String("segment", name), zap.Int64("offset", dec.offset), zap.Int64("dropped-bytes", st.Size()-dec.offset))
			return true, syncDir(dir)
		default:
			logger.Warn("wal: cannot repair", zap.String("segment", name), zap.Error(err))
			return false, nil
		}
	}
}

// onlyZerosAfter tells whether the file holds only the bad record and zeros after it.
// The bad record's own length cannot be trusted, so this looks for any record header
// that decodes cleanly after offset.
func onlyZerosAfter(f *os.File, offset, size int64) bool {
	for pos := offset + recordHeaderSize; pos+recordHeaderSize <= size; pos += 8 {
		if _, err := f.Seek(pos, io.SeekStart); err != nil {
			return false
		}
		if _, err := newDecoder(f).decode(); err == nil {
			return false
		}
	}
	return true
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
