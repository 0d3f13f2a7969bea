package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// The readers' input, before any parsing: gzip detected from the first
// bytes and checked to its end, a UTF-8 byte order mark dropped, and user
// values in messages cut to a readable length.

var gzipMagic = []byte{0x1f, 0x8b}

// utf8BOM is the byte order mark some editors (Excel's "CSV UTF-8")
// put before the first header name.
const utf8BOM = "\ufeff"

// CorruptInputError is a compressed input that does not decompress to its
// end: truncated (a copy cut short) or damaged. Nothing read from it is
// used, since the rows before the damage are only part of the file.
type CorruptInputError struct {
	Input string // the input's name
	Err   error  // the decompressor's error
}

func (e *CorruptInputError) Error() string {
	what := "damaged"
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		what = "truncated"
	}
	return fmt.Sprintf("data: %q is a %s gzip file (%v): none of it is used, since its rows would be only part of the data; check a fresh copy with gzip -t", e.Input, what, e.Err)
}

func (e *CorruptInputError) Unwrap() error { return e.Err }

// gunzipReader is a gzip stream whose every error but the clean end is a
// CorruptInputError naming the input: a truncated stream must never look
// like the end of the file.
type gunzipReader struct {
	zr   *gzip.Reader
	name string
}

func (g *gunzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = &CorruptInputError{Input: g.name, Err: err}
	}
	return n, err
}

// text is an input opened for parsing.
type text struct {
	*bufio.Reader
	gz bool // gunzipped
}

// openText returns r as text to parse: gunzipped if it starts with the
// gzip magic bytes, without a leading UTF-8 byte order mark.
func openText(r io.Reader, name string) (*text, error) {
	t := &text{Reader: bufio.NewReaderSize(r, 1<<16)}
	head, _ := t.Peek(2)
	if bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(t.Reader)
		if err != nil {
			return nil, &CorruptInputError{Input: name, Err: err}
		}
		t.Reader, t.gz = bufio.NewReaderSize(&gunzipReader{zr: zr, name: name}, 1<<16), true
	}
	if head, _ := t.Peek(len(utf8BOM)); string(head) == utf8BOM {
		_, _ = t.Discard(len(utf8BOM))
	}
	return t, nil
}

// blame returns the error of reading a compressed input: the damage, if
// the rest of the stream shows some, else err. A damaged gzip stream
// usually decompresses to garbage before its checksum fails, and "unknown
// category" would send the owner looking for a mistake in the data.
func (t *text) blame(err error) error {
	var ce *CorruptInputError
	if err == nil || !t.gz || errors.As(err, &ce) {
		return err
	}
	if _, derr := io.Copy(io.Discard, t.Reader); errors.As(derr, &ce) {
		return derr
	}
	return err
}

// wrapRead names the input in a read error, unless the error names it
// already (a damaged compressed input).
func wrapRead(name string, err error) error {
	var ce *CorruptInputError
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("data: %q: %w", name, err)
}

// ReadHeader returns the trimmed column names on the first line of a
// delimited file (gzip allowed, a byte order mark dropped, tab-separated
// if the line holds a tab), for commands that choose the schema's columns
// a file holds before reading it.
func ReadHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	br, err := openText(f, path)
	if err != nil {
		return nil, err
	}
	line, err := br.ReadString('\n')
	if err != nil && line == "" {
		if err == io.EOF {
			return nil, fmt.Errorf("data: %q is empty: want a header row naming the columns, then one row per record", path)
		}
		return nil, wrapRead(path, err)
	}
	cr := csv.NewReader(strings.NewReader(line))
	if strings.Contains(line, "\t") {
		cr.Comma = '\t'
	}
	fields, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("data: header of %q: %w", path, err)
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return fields, nil
}

// maxQuoted is the longest user value, in characters, that a message
// quotes whole.
const maxQuoted = 80

// QuoteValue quotes a value from a user's file for an error message (as
// %q does), cut to its first 80 characters with an ellipsis and its
// length when longer: a 20 MB field must not become a 20 MB message.
func QuoteValue(s string) string {
	head, n := cutAt(s)
	if head == s {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d characters)", head, n)
}

// cutValue is QuoteValue without the quotes, for lists of names.
func cutValue(s string) string {
	head, n := cutAt(s)
	if head == s {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", head, n)
}

// cutAt returns s's first maxQuoted characters (s itself if no longer)
// and its length in characters.
func cutAt(s string) (string, int) {
	if len(s) <= maxQuoted {
		return s, utf8.RuneCountInString(s)
	}
	head, runes := s, 0
	for i := range s {
		if runes == maxQuoted {
			head = s[:i]
		}
		runes++
	}
	return head, runes
}
