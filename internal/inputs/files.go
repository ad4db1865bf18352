package inputs

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxFileSize is the most a file named by an input (prompt-file, env-file, output-schema) may
// hold.
const MaxFileSize = 1 << 20

// NotRegularError is the error of Env.ReadFile for a path that is not a regular file.
type NotRegularError struct {
	Kind string // what it is instead: "a directory", "a named pipe", "a device", ...
}

func (e *NotRegularError) Error() string { return e.Kind + ", not a regular file" }

// fileError is a file that was read but cannot be used; its message names the path.
type fileError struct{ msg string }

func (e *fileError) Error() string { return e.msg }

// readText reads the text file at path named by an input: a regular file of at most
// MaxFileSize bytes of UTF-8 without NUL bytes. Its error is Env.ReadFile's or a *fileError;
// readError words either.
func (l *loader) readText(path string) ([]byte, error) {
	data, err := l.env.ReadFile(path, MaxFileSize+1)
	var nr *NotRegularError
	switch {
	case errors.As(err, &nr):
		return nil, &fileError{fmt.Sprintf("%s is %s, not a regular file; give a text file", path, nr.Kind)}
	case err != nil:
		return nil, err
	case len(data) > MaxFileSize:
		return nil, &fileError{fmt.Sprintf("%s is larger than 1 MiB, the most a file given to an input may hold", path)}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &fileError{fmt.Sprintf("%s holds a NUL byte at offset %d, so it is not a text file", path, i)}
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return nil, &fileError{fmt.Sprintf("%s is not UTF-8 text: byte 0x%02x at offset %d is not part of a UTF-8 character", path, data[i], i)}
		}
		i += size
	}
	return data, nil
}
